"""Optional powers declined in a log (issue 9): every building power that draws a card, the gold mine's
four cards, the councillor's and prospector's privileges, the prefecture's second card and the archive.
Each is tested used and declined on a small position, with the exact hands and piles after the move,
and each decline that the position does not allow raises its rule code with an exact message.

Rules: "玩家也可以选择不使用建筑功能" (san_juan_rules_zh.txt, special buildings) and "所有玩家皆可放弃行使
该职业牌的特权或行动" (roles)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from replay.errors import FieldError, IllegalMoveError, RuleViolation
from replay.golden import render_golden
from replay.logfile import parse_game
from replay.replayer import replay
from replay.san_juan import rules
from replay.san_juan.cards import Good, Role
from replay.san_juan.engine import ENGINE
from replay.san_juan.moves import Build, ChooseRole, Councillor, GoldMine, Pass, Produce, Sell, parse_move
from replay.san_juan.state import Stage

from .positions import CR, IP, SM, TS, at_role, play, seat

NAMES = ("Ana", "Bruno", "Carla")


def builder(players, **kw):
    return play(at_role(players, **kw), ChooseRole(Role.BUILDER))


def _violation(state, move):
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, move)
    return err.value.rule, err.value.reason


# -- carpenter ---------------------------------------------------------------------------------


CARPENTER_SEAT = seat(hand=("Tower", "Hero", "Well", "Chapel", "Crane"), buildings=(IP, "Carpenter"))


def test_carpenter_card_declined_stays_on_the_draw_pile():
    state = builder([seat(), CARPENTER_SEAT], draw=("Palace", "Library"))
    used = play(state, Build("Tower", ("Hero", "Well", "Chapel")))
    assert used.players[1].hand == ("Crane", "Palace") and used.draw_pile == ("Library",)
    declined = play(state, Build("Tower", ("Hero", "Well", "Chapel"), decline=("Carpenter",)))
    assert declined.players[1].hand == ("Crane",)
    assert declined.draw_pile == ("Palace", "Library")
    assert declined.discard == ("Hero", "Well", "Chapel")


def test_carpenter_decline_listed_after_each_violet_build():
    state = builder([seat(), seat(hand=("Smithy", "Hero", SM), buildings=(IP, "Carpenter"))], draw=("Palace",))
    assert rules.legal_moves(state) == [
        Build(SM, ("Smithy", "Hero")),
        Build("Smithy", (SM,)), Build("Smithy", (SM,), decline=("Carpenter",)),
        Build("Smithy", ("Hero",)), Build("Smithy", ("Hero",), decline=("Carpenter",)),
        Pass(),
    ]


def test_declining_the_carpenter_card_makes_the_poor_house_draw():
    # One card left after building; the carpenter would make it two, declined it stays one.
    players = [seat(hand=("Smithy", "Hero"), buildings=(IP, "Carpenter", "Poor house"))]
    state = builder(players, draw=("Well", "Crane"))
    moves = rules.legal_moves(state)
    assert [m for m in moves if isinstance(m, Build) and m.building == "Smithy"] == [
        Build("Smithy", ()),
        Build("Smithy", (), decline=("Carpenter",)),
        Build("Smithy", (), decline=("Poor house", "Carpenter")),
    ]
    only_poor_house = play(state, Build("Smithy", (), decline=("Carpenter",)))
    assert only_poor_house.players[0].hand == ("Well", "Hero") and only_poor_house.draw_pile == ("Crane",)
    neither = play(state, Build("Smithy", (), decline=("Poor house", "Carpenter")))
    assert neither.players[0].hand == ("Hero",) and neither.draw_pile == ("Well", "Crane")
    # With the carpenter's card the hand holds two: the poor house does not draw, so it cannot be declined.
    assert _violation(state, Build("Smithy", (), decline=("Poor house",))) == (
        "poor_house.decline",
        "the poor house draws a card only with 0 or 1 cards in hand after building, and 2 are left",
    )


# -- poor house --------------------------------------------------------------------------------


def test_poor_house_card_declined():
    players = [seat(hand=(SM, "Hero", "Tower"), buildings=(IP, "Poor house"))]
    state = builder(players, draw=("Well", "Crane"))
    assert rules.legal_moves(state) == [
        Build(SM, ("Tower",)), Build(SM, ("Tower",), decline=("Poor house",)),
        Build(SM, ("Hero",)), Build(SM, ("Hero",), decline=("Poor house",)),
        Build("Tower", (SM, "Hero")), Build("Tower", (SM, "Hero"), decline=("Poor house",)),
        Pass(),
    ]
    used = play(state, Build(SM, ("Hero",)))
    assert used.players[0].hand == ("Well", "Tower") and used.draw_pile == ("Crane",)
    declined = play(state, Build(SM, ("Hero",), decline=("Poor house",)))
    assert declined.players[0].hand == ("Tower",) and declined.draw_pile == ("Well", "Crane")


# -- well --------------------------------------------------------------------------------------


def test_well_card_declined_and_the_next_draw_shifts_by_one():
    players = [seat(buildings=(IP, SM, "Well")), seat(buildings=(IP,))]
    state = play(at_role(players, draw=("Tower", "Crane", "Chapel", "Quarry")), ChooseRole(Role.PRODUCER))
    assert rules.legal_moves(state) == [
        Produce((Good.INDIGO,)), Produce((Good.SUGAR,)),
        Produce((Good.INDIGO, Good.SUGAR)), Produce((Good.INDIGO, Good.SUGAR), ("Well",)),
        Pass(),
    ]
    used = play(state, Produce((Good.SUGAR, Good.INDIGO)), Produce((Good.INDIGO,)))
    assert used.players[0].hand == ("Chapel",) and used.players[1].goods == ("Quarry",)
    declined = play(state, Produce((Good.SUGAR, Good.INDIGO), ("Well",)), Produce((Good.INDIGO,)))
    assert declined.players[0].hand == ()
    assert declined.players[0].goods == ("Crane", "Tower", None)
    # The card the well would have drawn is the next seat's good.
    assert declined.players[1].goods == ("Chapel",) and declined.draw_pile == ("Quarry",)


# -- market stand and market hall --------------------------------------------------------------


def _seller(extra, goods_count, draw=("Hero", "Tower", "Well", "Chapel", "Crane")):
    buildings = (IP, SM, TS, *extra)
    me = seat(buildings=buildings, goods={i: "Palace" for i in range(goods_count)})
    return play(at_role([me, seat()], draw=draw), ChooseRole(Role.TRADER))


def test_market_stand_card_declined():
    state = _seller(("Market stand",), 2)
    assert rules.legal_moves(state) == [
        Sell((Good.INDIGO,)), Sell((Good.SUGAR,)),
        Sell((Good.INDIGO, Good.SUGAR)), Sell((Good.INDIGO, Good.SUGAR), ("Market stand",)),
        Pass(),
    ]
    used = play(state, Sell((Good.INDIGO, Good.SUGAR)))  # tile 1: 1 + 1, and the stand's card
    assert used.players[0].hand == ("Well", "Tower", "Hero") and used.draw_pile == ("Chapel", "Crane")
    declined = play(state, Sell((Good.INDIGO, Good.SUGAR), ("Market stand",)))
    assert declined.players[0].hand == ("Tower", "Hero") and declined.draw_pile == ("Well", "Chapel", "Crane")


def test_market_hall_card_declined_with_and_without_the_market_stand():
    state = _seller(("Market stand", "Market hall"), 2)
    moves = rules.legal_moves(state)
    assert moves[:2] == [Sell((Good.INDIGO,)), Sell((Good.INDIGO,), ("Market hall",))]
    assert [m for m in moves if isinstance(m, Sell) and len(m.goods) == 2] == [
        Sell((Good.INDIGO, Good.SUGAR)),
        Sell((Good.INDIGO, Good.SUGAR), ("Market stand",)),
        Sell((Good.INDIGO, Good.SUGAR), ("Market hall",)),
        Sell((Good.INDIGO, Good.SUGAR), ("Market stand", "Market hall")),
    ]
    assert len(play(state, Sell((Good.INDIGO, Good.SUGAR))).players[0].hand) == 4
    assert len(play(state, Sell((Good.INDIGO, Good.SUGAR), ("Market hall",))).players[0].hand) == 3
    both = play(state, Sell((Good.INDIGO, Good.SUGAR), ("Market stand", "Market hall")))
    assert both.players[0].hand == ("Tower", "Hero") and both.draw_pile == ("Well", "Chapel", "Crane")
    one = play(state, Sell((Good.SUGAR,), ("Market hall",)))
    assert one.players[0].hand == ("Hero",)


# -- gold mine ---------------------------------------------------------------------------------

DIFFERENT = (IP, SM, TS, CR)  # costs 1, 2, 3, 4
OTHER = ("Smithy", "Well", "Chapel", "Quarry")  # costs 1, 2, 3, 4


def test_gold_mine_declined_turns_up_no_cards_and_the_next_owner_takes_them():
    players = [seat(), seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))]
    state = at_role(players, draw=("Hero", *DIFFERENT, *OTHER))
    used = play(state, ChooseRole(Role.PROSPECTOR))
    assert (used.current_seat, used.looking) == (1, DIFFERENT)
    declined = play(state, ChooseRole(Role.PROSPECTOR, gold_mine_declined=(1,)))
    assert declined.players[0].hand == ("Hero",)
    assert (declined.current_seat, declined.looking) == (2, DIFFERENT)
    declined = play(declined, GoldMine(CR))
    assert declined.players[1].hand == () and declined.players[2].hand == (CR,)
    assert declined.draw_pile == OTHER and declined.stage is Stage.ROLE


def test_every_gold_mine_declined_ends_the_phase():
    players = [seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))]
    state = play(at_role(players, draw=("Hero", *DIFFERENT)), ChooseRole(Role.PROSPECTOR, gold_mine_declined=(0, 1)))
    assert state.stage is Stage.ROLE and state.players[0].hand == ("Hero",)
    assert state.draw_pile == DIFFERENT and state.discard == ()


def test_role_choice_lists_every_set_of_declined_gold_mines():
    players = [seat(), seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))]
    moves = [m for m in rules.legal_moves(at_role(players)) if m.role is Role.PROSPECTOR]
    assert moves == [
        ChooseRole(Role.PROSPECTOR),
        ChooseRole(Role.PROSPECTOR, gold_mine_declined=(1,)),
        ChooseRole(Role.PROSPECTOR, gold_mine_declined=(2,)),
        ChooseRole(Role.PROSPECTOR, gold_mine_declined=(1, 2)),
        ChooseRole(Role.PROSPECTOR, privilege=False),
        ChooseRole(Role.PROSPECTOR, privilege=False, gold_mine_declined=(1,)),
        ChooseRole(Role.PROSPECTOR, privilege=False, gold_mine_declined=(2,)),
        ChooseRole(Role.PROSPECTOR, privilege=False, gold_mine_declined=(1, 2)),
    ]


# -- privileges --------------------------------------------------------------------------------


def test_prospector_privilege_declined_draws_nothing():
    players = [seat(), seat()]
    state = play(at_role(players, draw=("Hero", "Tower")), ChooseRole(Role.PROSPECTOR, privilege=False))
    assert state.players[0].hand == () and state.draw_pile == ("Hero", "Tower") and state.stage is Stage.ROLE


def test_councillor_privilege_declined_draws_two():
    draw = ("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy")
    state = play(at_role([seat(), seat()], draw=draw), ChooseRole(Role.COUNCILLOR, privilege=False))
    assert state.looking == ("Well", "Crane")
    state = play(state, Councillor(keep=("Crane",)))
    assert state.looking == ("Chapel", "Quarry")
    assert state.players[0].hand == ("Crane",)


def test_declined_privilege_leaves_the_library_unused_in_a_two_player_round():
    players = [seat(buildings=(IP, "Library")), seat()]
    draw = ("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy", "Tower", "Hero", "Statue")
    state = play(at_role(players, draw=draw), ChooseRole(Role.COUNCILLOR, privilege=False))
    assert state.looking == ("Well", "Crane") and not state.library
    assert state.players[0].library_used is False


# -- prefecture and archive --------------------------------------------------------------------


def test_prefecture_may_keep_one():
    players = [seat(), seat(buildings=(IP, "Prefecture"))]
    state = play(at_role(players, draw=("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy")),
                 ChooseRole(Role.COUNCILLOR), Councillor(keep=("Well",)))
    state = play(state, Councillor(keep=("Library",)))
    assert state.players[1].hand == ("Library",)
    assert state.discard[-1] == "Smithy"


def test_archive_declined_by_naming_the_card_kept():
    players = [seat(hand=("Hero",), buildings=(IP, "Archive")), seat()]
    state = play(at_role(players, draw=("Well", "Crane", "Chapel", "Quarry", "Palace", "Smithy", "Tower")),
                 ChooseRole(Role.COUNCILLOR))
    with_archive = play(state, Councillor(discard=("Hero", "Crane", "Chapel", "Quarry")))
    declined = play(state, Councillor(keep=("Well", "Palace")[:1]))
    assert with_archive.players[0].hand == ("Well", "Palace")
    assert declined.players[0].hand == ("Well", "Hero")
    assert declined.discard == ("Crane", "Chapel", "Quarry", "Palace")


# -- what cannot be declined -------------------------------------------------------------------

ILLEGAL = [
    ("refrain from another role's action", lambda: at_role([seat(), seat()]),
     ChooseRole(Role.BUILDER, None, True, (), (1,)),
     "councillor.refrain", "only the councillor's draw is refrained from this way, not the builder's action"),
    ("carpenter not owned", lambda: builder([seat(hand=("Tower", "Hero", "Well", "Chapel"))]),
     Build("Tower", ("Hero", "Well"), decline=("Carpenter",)),
     "carpenter.decline", "seat 0 owns no carpenter to decline"),
    ("carpenter after a production building", lambda: builder([seat(hand=(SM, "Hero", "Well"), buildings=(IP, "Carpenter"))]),
     Build(SM, ("Hero",), decline=("Carpenter",)),
     "carpenter.decline", "the carpenter draws a card only after a violet building, not after Sugar mill"),
    ("carpenter just built", lambda: builder([seat(hand=("Carpenter", "Hero", "Well", "Chapel"))]),
     Build("Carpenter", ("Hero", "Well"), decline=("Carpenter",)),
     "carpenter.decline", "the carpenter works only from the end of the builder phase in which it is built"),
    ("carpenter built over", lambda: builder([seat(hand=("Library", "Hero", "Well"), buildings=(IP, "Carpenter", "Crane"))]),
     Build("Library", ("Hero",), replace="Carpenter", decline=("Carpenter",)),
     "carpenter.decline", "the carpenter is being built over and gives no card"),
    ("poor house not owned", lambda: builder([seat(hand=(SM, "Hero"))]),
     Build(SM, ("Hero",), decline=("Poor house",)),
     "poor_house.decline", "seat 0 owns no poor house to decline"),
    ("poor house with two cards left", lambda: builder([seat(hand=(SM, "Hero", "Tower", "Well"), buildings=(IP, "Poor house"))]),
     Build(SM, ("Hero",), decline=("Poor house",)),
     "poor_house.decline", "the poor house draws a card only with 0 or 1 cards in hand after building, and 2 are left"),
    ("well not owned", lambda: play(at_role([seat(buildings=(IP, SM))], draw=("Hero", "Tower", "Well")), ChooseRole(Role.PRODUCER)),
     Produce((Good.INDIGO, Good.SUGAR), ("Well",)),
     "well.decline", "seat 0 owns no well to decline"),
    ("well for one good", lambda: play(at_role([seat(buildings=(IP, SM, "Well"))], draw=("Hero", "Tower")), ChooseRole(Role.PRODUCER)),
     Produce((Good.SUGAR,), ("Well",)),
     "well.decline", "the well draws a card only when 2 or more goods are produced, not 1"),
    ("market stand not owned", lambda: _seller(("Market hall",), 2),
     Sell((Good.INDIGO, Good.SUGAR), ("Market stand",)),
     "market_stand.decline", "seat 0 owns no market stand to decline"),
    ("market stand for one good", lambda: _seller(("Market stand",), 2),
     Sell((Good.SUGAR,), ("Market stand",)),
     "market_stand.decline", "the market stand draws a card only when 2 or more goods are sold, not 1"),
    ("market hall not owned", lambda: _seller(("Market stand",), 2),
     Sell((Good.SUGAR,), ("Market hall",)),
     "market_hall.decline", "seat 0 owns no market hall to decline"),
    ("gold mine not owned", lambda: at_role([seat(), seat(buildings=(IP, "Gold mine"))]),
     ChooseRole(Role.PROSPECTOR, gold_mine_declined=(0,)),
     "gold_mine.decline", "seat 0 owns no gold mine to decline"),
    ("gold mine outside the prospector", lambda: at_role([seat(), seat(buildings=(IP, "Gold mine"))]),
     ChooseRole(Role.BUILDER, gold_mine_declined=(1,)),
     "gold_mine.decline", "gold mines turn up cards only in the prospector phase, not the builder's"),
    ("gold mine of no seat", lambda: at_role([seat(), seat(buildings=(IP, "Gold mine"))]),
     ChooseRole(Role.PROSPECTOR, gold_mine_declined=(2,)),
     "gold_mine.decline", "there is no seat 2 in a 2-player game"),
    ("builder privilege", lambda: at_role([seat(), seat()]),
     ChooseRole(Role.BUILDER, privilege=False),
     "privilege.decline",
     "the builder's privilege cannot be declined (it only lowers a cost or raises a limit); only the councillor's "
     "and the prospector's can"),
    ("library for a declined privilege", lambda: at_role([seat(buildings=(IP, "Library")), seat()]),
     ChooseRole(Role.COUNCILLOR, True, privilege=False),
     "library.use", "the privilege is declined, so the library has nothing to double"),
]


@pytest.mark.parametrize(("make", "move", "rule", "reason"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL])
def test_a_decline_the_position_does_not_allow_names_its_rule(make, move, rule, reason):
    assert _violation(make(), move) == (rule, reason)


# -- the move's JSON, text and words -----------------------------------------------------------

FORMS = [
    ({"kind": "build", "building": "Tower", "pay": ["Hero"], "decline": ["carpenter", "Poor House"]},
     Build("Tower", ("Hero",), decline=("Poor house", "Carpenter")),
     "build Tower pay [Hero] decline [Poor house, Carpenter]"),
    ({"kind": "produce", "goods": ["sugar", "indigo"], "decline": ["Well"]},
     Produce((Good.SUGAR, Good.INDIGO), ("Well",)), "produce sugar, indigo decline [Well]"),
    ({"kind": "sell", "goods": ["sugar", "indigo"], "decline": ["Market hall", "Market stand"]},
     Sell((Good.INDIGO, Good.SUGAR), ("Market stand", "Market hall")),
     "sell indigo, sugar decline [Market stand, Market hall]"),
    ({"kind": "role", "role": "prospector", "privilege": False, "gold_mine_declined": [2, 0]},
     ChooseRole(Role.PROSPECTOR, privilege=False, gold_mine_declined=(0, 2)),
     "role prospector -privilege -gold mine [0, 2]"),
]


@pytest.mark.parametrize(("obj", "move", "text"), FORMS, ids=[f[2] for f in FORMS])
def test_decline_json_and_text(obj, move, text):
    parsed = parse_move(obj, "moves[3]")
    assert parsed == move
    assert parsed.text() == text
    assert parse_move(parsed.to_json(), "moves[3]") == move


def test_a_log_that_says_nothing_writes_nothing():
    assert Build("Tower", ("Hero",)).to_json() == {"kind": "build", "building": "Tower", "pay": ["Hero"]}
    assert Produce((Good.SUGAR,)).to_json() == {"kind": "produce", "goods": ["sugar"]}
    assert Sell((Good.SUGAR,)).to_json() == {"kind": "sell", "goods": ["sugar"]}
    assert ChooseRole(Role.PROSPECTOR).to_json() == {"kind": "role", "role": "prospector"}


BAD_FIELDS = [
    ({"kind": "produce", "goods": ["sugar"], "decline": ["Carpenter"]}, "moves[3].decline[0]",
     "a 'produce' move can decline only the card of the well, not Carpenter"),
    ({"kind": "sell", "goods": ["sugar"], "decline": ["Well"]}, "moves[3].decline[0]",
     "a 'sell' move can decline only the card of the market stand or the market hall, not Well"),
    ({"kind": "build", "building": "Well", "decline": ["Carpenter", "carpenter"]}, "moves[3].decline",
     "names a building twice"),
    ({"kind": "build", "building": "Well", "decline": "Carpenter"}, "moves[3].decline",
     "expected a list of card names, got str"),
    ({"kind": "role", "role": "prospector", "gold_mine_declined": [1, 1]}, "moves[3].gold_mine_declined",
     "names a seat twice"),
    ({"kind": "role", "role": "prospector", "gold_mine_declined": ["1"]}, "moves[3].gold_mine_declined",
     "expected a list of seat numbers, got ['1']"),
    ({"kind": "role", "role": "councillor", "privilege": "no"}, "moves[3].privilege", "expected true or false"),
]


@pytest.mark.parametrize(("obj", "path", "reason"), BAD_FIELDS, ids=[b[2] for b in BAD_FIELDS])
def test_malformed_declines_name_their_field(obj, path, reason):
    with pytest.raises(FieldError) as err:
        parse_move(obj, "moves[3]")
    assert (err.value.path, err.value.reason) == (path, reason)


def test_declines_in_words():
    produce = play(at_role([seat(buildings=(IP, SM, "Well")), seat()], draw=("Hero", "Tower")), ChooseRole(Role.PRODUCER))
    assert ENGINE.describe_move(produce, Produce((Good.INDIGO, Good.SUGAR), ("Well",)), NAMES) == (
        "Ana produces indigo and sugar and declines the well's card"
    )
    build = builder([seat(), CARPENTER_SEAT])
    assert ENGINE.describe_move(build, Build("Tower", ("Hero", "Well"), decline=("Carpenter",)), NAMES) == (
        "Bruno builds Tower, paying Hero and Well, and declines the carpenter's card"
    )
    sell = _seller(("Market stand", "Market hall"), 2)
    assert ENGINE.describe_move(sell, Sell((Good.INDIGO, Good.SUGAR), ("Market stand", "Market hall")), NAMES) == (
        "Ana sells indigo and sugar for 2 cards and declines the market stand's card and the market hall's card"
    )
    role = at_role([seat(), seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))])
    assert ENGINE.describe_move(role, ChooseRole(Role.PROSPECTOR, gold_mine_declined=(1,)), NAMES) == (
        "Ana chooses the prospector; Bruno declines the gold mine"
    )
    assert ENGINE.describe_move(role, ChooseRole(Role.PROSPECTOR, privilege=False, gold_mine_declined=(1, 2)), NAMES) == (
        "Ana chooses the prospector and declines the privilege; Bruno and Carla decline their gold mines"
    )


def test_schema_lists_what_each_move_can_decline():

    from replay.log_schema import full_schema
    from replay.san_juan.moves import DECLINABLE

    schema = full_schema()
    branches = {b["properties"]["kind"]["const"]: b for b in schema["$defs"]["sj_move"]["oneOf"]}
    for kind, buildings in DECLINABLE.items():
        assert branches[kind]["properties"]["decline"]["items"]["enum"] == list(buildings)
    assert branches["role"]["properties"]["privilege"]["type"] == "boolean"


# -- a whole game with every power declined ----------------------------------------------------

DATA = Path(__file__).resolve().parent / "data"


def _declines_log():
    return parse_game(json.loads((DATA / "declines.json").read_text(encoding="utf-8")), file="declines.json")


def test_declines_log_replays_to_its_golden_text():
    """tests/replay/san_juan/data/declines.json: every optional power declined at least once in a complete game
    (regenerate with ``python tests/replay/san_juan/data/make_declines_log.py`` and review the diff)."""
    expected = (DATA / "declines.txt").read_text(encoding="utf-8")
    assert render_golden(_declines_log(), source="tests/replay/san_juan/data/declines.json") == expected


def _hand_gain(used, declined, seat_index):
    return Counter(used.players[seat_index].hand) - Counter(declined.players[seat_index].hand)


def test_each_declined_power_in_the_declines_log_leaves_its_cards_on_the_draw_pile():
    game = replay(_declines_log())
    kinds: Counter[str] = Counter()
    for step in game.steps:
        before, declined, move, who = game.state_at(step.number - 1), step.state, step.move, step.seat
        player = before.players[who]
        if isinstance(move, (Build, Produce, Sell)) and move.decline:
            used = rules.apply(before, replace(move, decline=()))
            k = len(move.decline)
            # One card per declined power: the used move draws exactly the cards the decline left on
            # top, and past the pile's end those of the reshuffle the decline did not need.
            upcoming = declined.draw_pile
            if len(used.reshuffles_used) > len(declined.reshuffles_used):
                upcoming += used.reshuffles_used[len(declined.reshuffles_used)]
            assert _hand_gain(used, declined, who) == Counter(upcoming[:k]), step.number
            assert used.draw_pile == upcoming[k:], step.number
            kinds.update(move.decline)
        elif isinstance(move, ChooseRole) and not move.privilege:
            used = rules.apply(before, replace(move, privilege=True))
            if move.role is Role.COUNCILLOR:
                assert (declined.looking, used.looking) == (before.draw_pile[:2], before.draw_pile[:5]), step.number
            else:
                # Without the privilege card, a gold mine turns up from the card the prospector would have drawn.
                assert _hand_gain(used, declined, who) == Counter(before.draw_pile[:1]), step.number
                assert declined.players[who].hand == player.hand, step.number
            kinds[f"privilege {move.role.value}"] += 1
        elif isinstance(move, ChooseRole) and move.councillor_refrained:
            used = rules.apply(before, replace(move, councillor_refrained=()))
            # The refraining seats get no councillor turn (and draw nothing); with the draw they would.
            assert not set(move.councillor_refrained) & set(declined.queue), step.number
            assert set(move.councillor_refrained) <= set(used.queue), step.number
            assert declined.draw_pile == before.draw_pile[len(declined.looking):], step.number
            kinds["councillor draw"] += len(move.councillor_refrained)
        elif isinstance(move, ChooseRole) and move.gold_mine_declined:
            used = rules.apply(before, replace(move, gold_mine_declined=()))
            shown = declined.draw_pile[:4]  # the decliner was the only owner: nobody turned these up
            assert used.looking == shown or used.discard[-4:] == shown, step.number
            assert declined.stage is Stage.ROLE, step.number
            kinds["Gold mine"] += len(move.gold_mine_declined)
        elif isinstance(move, Councillor) and move.keep is not None and before.stage is Stage.PHASE:
            if "Archive" in player.buildings:
                kinds["Archive"] += 1
                assert "declines the archive" in step.words
            elif "Prefecture" in player.buildings and len(move.keep) < min(2, len(before.looking)):
                kinds["Prefecture"] += 1
    assert set(kinds) == {
        "Carpenter", "Poor house", "Well", "Market stand", "Market hall", "Gold mine", "privilege councillor",
        "privilege prospector", "councillor draw", "Archive", "Prefecture",
    }, kinds
    assert game.log.result is not None and [s.total for s in ENGINE.scores(game.final)] == game.log.result["scores"]


def test_an_illegal_decline_in_a_log_names_file_move_player_and_rule():
    obj = json.loads((DATA / "declines.json").read_text(encoding="utf-8"))
    assert obj["moves"][8] == {"seat": 2, "kind": "produce", "goods": ["indigo"]}
    obj["moves"][8]["decline"] = ["well"]
    with pytest.raises(IllegalMoveError) as err:
        replay(parse_game(obj, file="declines.json"))
    assert str(err.value) == (
        "declines.json: move 9, seat 2 (Carla), 'produce indigo decline [Well]': "
        "seat 2 owns no well to decline [rule well.decline]"
    )


def test_declines_log_matches_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from replay.log_schema import full_schema

    validator = jsonschema.Draft202012Validator(full_schema())
    game = json.loads((DATA / "declines.json").read_text(encoding="utf-8"))
    assert not list(validator.iter_errors(game))
    assert game["moves"][8]["kind"] == "produce"
    game["moves"][8]["decline"] = ["Carpenter"]  # a produce move can decline only the well
    assert not validator.is_valid(game)


# -- refraining from the councillor's draw -----------------------------------------------------------


def _councillor_table():
    return at_role([seat(hand=["Statue"]), seat(hand=["Well"]), seat(hand=[])],
                   draw=["Chapel", "Tower", "Smithy", "Well", "Palace", "Library", "Statue", "Hero"])


def test_a_seat_that_refrains_from_the_councillor_draws_nothing() -> None:
    state = play(_councillor_table(), ChooseRole(Role.COUNCILLOR, None, True, (), (1,)))
    assert state.queue == (0, 2)
    assert state.looking == ("Chapel", "Tower", "Smithy", "Well", "Palace")
    state = play(state, Councillor(keep=("Chapel",)))
    # Carla draws the next two; Bruno's two cards stay on the draw pile for later draws.
    assert state.queue == (2,) and state.looking == ("Library", "Statue") and state.draw_pile == ("Hero",)
    assert state.players[1].hand == ("Well",)


def test_the_councillor_may_refrain_too() -> None:
    state = play(_councillor_table(), ChooseRole(Role.COUNCILLOR, None, True, (), (0,)))
    assert state.queue == (1, 2) and state.looking == ("Chapel", "Tower")
    assert state.draw_pile == ("Smithy", "Well", "Palace", "Library", "Statue", "Hero")


def test_refraining_in_words_text_and_json() -> None:
    move = ChooseRole(Role.COUNCILLOR, None, True, (), (1, 2))
    assert move.text() == "role councillor -draw [1, 2]"
    assert move.to_json() == {"kind": "role", "role": "councillor", "councillor_refrained": [1, 2]}
    assert parse_move(move.to_json(), "moves[0]") == move
    assert ENGINE.describe_move(_councillor_table(), move, ["Ana", "Bruno", "Carla"]) == (
        "Ana chooses the councillor; Bruno and Carla refrain from the draw")


def test_refraining_is_listed_by_legal_moves() -> None:
    moves = rules.legal_moves(_councillor_table())
    refrains = [m for m in moves if isinstance(m, ChooseRole) and m.councillor_refrained]
    assert [m.councillor_refrained for m in refrains] == [
        (0,), (1,), (1,), (2,), (2,), (0, 1), (0, 2), (1, 2), (1, 2), (0, 1, 2)]
    assert ChooseRole(Role.COUNCILLOR, None, False, (), (1,)) in refrains


@pytest.mark.parametrize(
    ("move", "message"),
    [
        (ChooseRole(Role.BUILDER, None, True, (), (1,)),
         "only the councillor's draw is refrained from this way, not the builder's action"),
        (ChooseRole(Role.COUNCILLOR, None, True, (), (5,)), "there is no seat 5 in a 3-player game"),
        (ChooseRole(Role.COUNCILLOR, None, False, (), (0,)),
         "the councillor refrains from the draw, so there is no privilege to decline or double"),
    ],
)
def test_illegal_refrains(move: ChooseRole, message: str) -> None:
    with pytest.raises(RuleViolation) as err:
        rules.apply(_councillor_table(), move)
    assert (err.value.rule, err.value.reason) == ("councillor.refrain", message)
