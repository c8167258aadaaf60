"""Illegal San Juan moves: every rule code ``rules.apply`` raises, with its exact message; and through
``replay.replayer`` the context an error carries (file, game, move, seat and player, move text, rule),
malformed logs (``LogFormatError`` with the JSON path) and a wrong recorded result."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace

import pytest

from replay.errors import IllegalMoveError, LogFormatError, ResultMismatchError, RuleViolation
from replay.logfile import GameLog, parse_game
from replay.replayer import final_state, replay
from replay.san_juan import rules
from replay.san_juan.bots import HeuristicPlayer, RandomPlayer
from replay.san_juan.cards import STARTING_BUILDING, Good, Role, full_deck
from replay.san_juan.engine import ENGINE
from replay.san_juan.moves import (
    Build,
    Chapel,
    ChooseRole,
    Councillor,
    Draft,
    GoldMine,
    HandLimit,
    Pass,
    Produce,
    Sell,
)
from replay.san_juan.state import Stage

from .positions import IP, SM, SS, at_role, play, position, seat
from .test_sj_declines import ILLEGAL as DECLINE_CASES

DRAW = ("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy", "Tower")


def builder(players, **kw):
    return play(at_role(players, **kw), ChooseRole(Role.BUILDER))


def other_builds(hand, buildings=(IP,), goods=None):
    """The builder phase with seat 1 (no privilege) to build."""
    return builder([seat(), seat(hand=hand, buildings=buildings, goods=goods)])


CASES = [
    # (id, position, move, rule, reason)
    ("builder.in_hand", lambda: other_builds((IP, "Hero", "Well")), Build(SM, ("Hero", "Well")),
     "builder.in_hand", "Sugar mill is not in the hand"),
    ("crane.owned", lambda: other_builds((SM, "Hero", "Well")), Build(SM, ("Hero",), replace=IP),
     "crane.owned", "building over another building needs a crane"),
    ("crane.target.missing", lambda: other_builds((SS, "Hero", "Well"), (IP, "Crane")), Build(SS, ("Hero",), replace=SM),
     "crane.target", "no Sugar mill to build over"),
    ("crane.target.crane", lambda: other_builds((SM, "Hero"), (IP, "Crane")), Build(SM, (), replace="Crane"),
     "crane.target", "the crane cannot be built over"),
    ("crane.target.same", lambda: other_builds((IP, "Hero"), (IP, "Crane")), Build(IP, (), replace=IP),
     "crane.target", "Indigo plant cannot be built over with the same building"),
    ("builder.unique", lambda: other_builds(("Smithy", IP, "Hero"), (IP, "Smithy")), Build("Smithy", ("Hero",)),
     "builder.unique", "already owns a Smithy (one of each violet building)"),
    ("black_market.owned", lambda: other_builds((SM, "Hero", "Well"), (IP,), {0: "Hero"}), Build(SM, ("Hero",), (Good.INDIGO,)),
     "black_market.owned", "paying with goods needs a black market"),
    ("black_market.limit", lambda: other_builds((SS, "Hero", "Well"), (IP, IP, IP, "Black market"),
                                                {0: "Hero", 1: "Tower", 2: "Well"}),
     Build(SS, ("Hero", "Well"), (Good.INDIGO,) * 3),
     "black_market.limit", "the black market takes at most 2 goods, not 3"),
    ("black_market.goods", lambda: other_builds((SM, "Hero"), (IP, "Black market"), {0: "Well"}),
     Build(SM, (), (Good.SUGAR, Good.INDIGO)),
     "black_market.goods", "has 0 sugar, pays 1"),
    ("builder.cost", lambda: other_builds((SS, "Hero", "Well", "Tower", "Chapel", "Crane")), Build(SS, ("Hero",)),
     "builder.cost", "Silver smelter costs 5 after discounts, but 1 was paid"),
    ("builder.cost.over", lambda: other_builds((SS, "Hero", "Well", "Tower", "Crane"), (IP, "Crane")),
     Build(SS, ("Hero", "Well"), replace=IP),
     "builder.cost", "Silver smelter costs 4 after discounts over Indigo plant, but 2 were paid"),
    ("builder.payment", lambda: other_builds((SM, "Hero", "Well")), Build(SM, ("Hero", "Tower")),
     "builder.payment", "the hand (besides the building) has 0x Tower, needs 1"),
    ("builder.payment.building", lambda: other_builds((SM, "Hero", "Well")), Build(SM, (SM, "Hero")),
     "builder.payment", "the hand (besides the building) has 0x Sugar mill, needs 1"),
    ("producer.limit", lambda: play(at_role([seat(), seat(buildings=(IP, SM))], draw=DRAW), ChooseRole(Role.PRODUCER), Pass()),
     Produce((Good.INDIGO, Good.SUGAR)),
     "producer.limit", "may produce at most 1 goods, not 2"),
    ("producer.empty_building", lambda: play(at_role([seat(buildings=(IP, IP, SM))], draw=DRAW), ChooseRole(Role.PRODUCER)),
     Produce((Good.SUGAR, Good.SUGAR)),
     "producer.empty_building", "has 1 empty Sugar mill, cannot produce 2 sugar"),
    ("producer.no_cards", lambda: play(at_role([seat(buildings=(IP, SM))], draw=("Hero",)), ChooseRole(Role.PRODUCER)),
     Produce((Good.INDIGO, Good.SUGAR)),
     "producer.no_cards", "there are not enough cards left to produce that many goods"),
    ("producer.empty", lambda: play(at_role([seat()], draw=DRAW), ChooseRole(Role.PRODUCER)),
     Produce(()),
     "producer.empty", "produce at least one good, or pass"),
    ("trader.limit", lambda: play(at_role([seat(), seat(buildings=(IP, SM), goods={0: "Hero", 1: "Tower"})], draw=DRAW),
                                  ChooseRole(Role.TRADER)),
     Sell((Good.INDIGO, Good.SUGAR)),
     "trader.limit", "may sell at most 1 goods, not 2"),
    ("trader.goods", lambda: play(at_role([seat(buildings=(IP, SM), goods={0: "Hero"})], draw=DRAW), ChooseRole(Role.TRADER)),
     Sell((Good.SUGAR,)),
     "trader.goods", "has 0 sugar to sell, not 1"),
    ("trader.empty", lambda: play(at_role([seat(goods={0: "Hero"})], draw=DRAW), ChooseRole(Role.TRADER)),
     Sell(()),
     "trader.empty", "sell at least one good, or pass"),
    ("councillor.archive.discard", lambda: play(at_role([seat()], draw=DRAW), ChooseRole(Role.COUNCILLOR)),
     Councillor(discard=("Well",)),
     "councillor.archive", "discarding from the whole hand needs an archive; name the cards kept ('keep')"),
    ("councillor.discard_count", lambda: play(at_role([seat(buildings=(IP, "Archive"))], draw=DRAW), ChooseRole(Role.COUNCILLOR)),
     Councillor(discard=("Well", "Crane")),
     "councillor.discard_count", "must discard 4 to 5 of 5 drawn cards, not 2"),
    ("councillor.discard", lambda: play(at_role([seat(hand=("Hero",), buildings=(IP, "Archive"))], draw=DRAW),
                                        ChooseRole(Role.COUNCILLOR)),
     Councillor(discard=("Well", "Crane", "Hero", "Hero")),
     "councillor.discard", "the hand with the drawn cards has 1x Hero, needs 2"),
    ("councillor.keep_count", lambda: play(at_role([seat(buildings=(IP, "Prefecture"))], draw=DRAW), ChooseRole(Role.COUNCILLOR)),
     Councillor(keep=("Well", "Crane", "Chapel")),
     "councillor.keep_count", "may keep at most 2 of the drawn cards, not 3"),
    ("councillor.keep", lambda: play(at_role([seat()], draw=DRAW), ChooseRole(Role.COUNCILLOR)),
     Councillor(keep=("Tower",)),
     "councillor.keep", "the drawn cards has 0x Tower, needs 1"),
    ("gold_mine.keep", lambda: play(at_role([seat(buildings=(IP, "Gold mine"))], draw=("Hero", IP, SM, "Tower", "Quarry")),
                                    ChooseRole(Role.PROSPECTOR)),
     GoldMine("Hero"),
     "gold_mine.keep", "the turned-up cards has 0x Hero, needs 1"),
    ("draft.count", lambda: position([seat(hand=("Hero", "Well", "Crane", "Tower", "Chapel"))], stage=Stage.DRAFT, draft=True),
     Draft(("Hero", "Well", "Crane", "Tower", "Chapel")),
     "draft.count", "must keep exactly 4 cards, not 5"),
    ("draft.keep", lambda: position([seat(hand=("Hero", "Well", "Crane", "Tower", "Chapel"))], stage=Stage.DRAFT, draft=True),
     Draft(("Hero", "Hero", "Well", "Crane")),
     "draft.keep", "the drafted cards has 1x Hero, needs 2"),
    ("chapel.card", lambda: position([seat(hand=("Hero",), buildings=(IP, "Chapel")), seat()], stage=Stage.CHAPEL),
     Chapel("Well"),
     "chapel.card", "the hand has 0x Well, needs 1"),
    ("hand_limit.count", lambda: position([seat(hand=("Hero",) * 9)], stage=Stage.HAND_LIMIT),
     HandLimit(("Hero",)),
     "hand_limit.count", "holds 9 cards with a limit of 7: must discard 2, not 1"),
    ("hand_limit.card", lambda: position([seat(hand=("Hero",) * 9)], stage=Stage.HAND_LIMIT),
     HandLimit(("Hero", "Well")),
     "hand_limit.card", "the hand has 0x Well, needs 1"),
    ("role.taken", lambda: play(at_role([seat(), seat(), seat()]), ChooseRole(Role.TRADER)),
     ChooseRole(Role.TRADER),
     "role.taken", "the trader was already chosen this round"),
    ("library.use.none", lambda: at_role([seat(), seat()]),
     ChooseRole(Role.PROSPECTOR, True),
     "library.use", "owns no library"),
    ("library.use.twice", lambda: play(at_role([seat(buildings=(IP, "Library")), seat()]),
                                       ChooseRole(Role.TRADER), ChooseRole(Role.PROSPECTOR)),
     ChooseRole(Role.COUNCILLOR, True),
     "library.use", "already used the library this round (2 players)"),
    ("turn.kind.role", lambda: at_role([seat(), seat()]),
     Pass(),
     "turn.kind", "seat 0 must choose a role, not 'pass'"),
    ("turn.kind.build", lambda: other_builds((SM, "Hero", "Well")),
     Sell((Good.INDIGO,)),
     "turn.kind", "seat 1 must build or pass, not 'sell indigo'"),
    ("turn.kind.chapel", lambda: position([seat(hand=("Hero",), buildings=(IP, "Chapel")), seat()], stage=Stage.CHAPEL),
     ChooseRole(Role.BUILDER),
     "turn.kind", "seat 0 must tuck a card under the chapel or pass, not 'role builder'"),
    ("turn.kind.hand_limit", lambda: position([seat(hand=("Hero",) * 9)], stage=Stage.HAND_LIMIT),
     Pass(),
     "turn.kind", "seat 0 must discard down to the hand limit, not 'pass'"),
    ("turn.kind.draft", lambda: position([seat(hand=("Hero",) * 5)], stage=Stage.DRAFT, draft=True),
     Chapel("Hero"),
     "turn.kind", "seat 0 must keep 4 of the drafted cards, not 'chapel Hero'"),
    ("turn.kind.gold_mine", lambda: play(at_role([seat(buildings=(IP, "Gold mine"))], draw=("Hero", IP, SM, "Tower", "Quarry")),
                                         ChooseRole(Role.PROSPECTOR)),
     Councillor(keep=()),
     "turn.kind", "seat 0 must keep a gold-mine card or pass, not 'councillor keep []'"),
    ("game.over", lambda: position([seat(), seat()], stage=Stage.OVER),
     ChooseRole(Role.BUILDER),
     "game.over", "the game is already over"),
]


@pytest.mark.parametrize(("make", "move", "rule", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_illegal_move_names_its_rule(make, move, rule, reason):
    state = make()
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, move)
    assert (err.value.rule, err.value.reason) == (rule, reason)
    assert str(err.value) == f"[{rule}] {reason}"
    assert move not in rules.legal_moves(state)


def test_every_rule_code_of_rules_py_has_a_case():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "replay" / "san_juan" / "rules.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'RuleViolation\(\s*"([a-z_.]+)"', text))
    codes |= set(re.findall(r'_take\([^)]*?"([a-z_]+\.[a-z_]+)"', text))
    assert codes <= {c[3] for c in CASES} | {c[3] for c in DECLINE_CASES}
    assert len(codes) >= 30


def test_illegal_move_leaves_the_state_unchanged():
    state = other_builds((SM, "Hero", "Well"))
    before = copy.deepcopy(state)
    with pytest.raises(RuleViolation):
        rules.apply(state, Build(SM, ("Hero", "Tower")))
    assert state == before


# -- through the replayer ------------------------------------------------------------------------------

NAMES = ("Ann", "Bob")
HANDS = [["Smithy", "Sugar mill", "Hero", "Palace"], ["Well", "Tower", "Chapel", "Quarry"]]


def _deck(hands):
    deck = Counter(full_deck()) - Counter([STARTING_BUILDING] * len(hands))
    for hand in hands:
        deck -= Counter(hand)
    out = []
    for card in full_deck():  # catalogue order
        if deck[card]:
            deck[card] -= 1
            out.append(card)
    return out


def small_log(moves, *, hands=None, deck=None, players=NAMES, result=None, **setup_extra) -> GameLog:
    hands = HANDS if hands is None else hands
    obj = {
        "format": "governor-log",
        "version": 1,
        "game": "san_juan",
        "players": [{"name": n} for n in players],
        "setup": {"hands": hands, "deck": _deck(hands) if deck is None else deck, "tiles": [3, 1, 5, 2, 4],
                  **setup_extra},
        "moves": moves,
    }
    if result is not None:
        obj["result"] = result
    return parse_game(obj, file="small.json", index=0)


BUILDER = {"kind": "role", "role": "builder"}


def test_small_log_deck_is_the_rest_of_the_cards():
    deck = _deck(HANDS)
    assert len(deck) == 110 - 2 - 8
    assert deck[:9] == [IP] * 8 + [SM]


def test_replayer_illegal_move_message_names_file_game_move_seat_player_move_and_rule():
    log = small_log([BUILDER, {"kind": "build", "building": "Sugar mill", "pay": ["Hero"]},
                     {"kind": "build", "building": "Tower", "pay": ["Well"]}])
    with pytest.raises(IllegalMoveError) as err:
        final_state(log)
    e = err.value
    assert str(e) == ("small.json, game 1: move 3, seat 1 (Bob), 'build Tower pay [Well]': "
                      "Tower costs 3 after discounts, but 1 was paid [rule builder.cost]")
    assert (e.file, e.game_index, e.move_number, e.seat, e.player, e.move_text, e.rule) == (
        "small.json", 0, 3, 1, "Bob", "build Tower pay [Well]", "builder.cost")
    assert e.as_record()["rule"] == "builder.cost"


def test_replayer_wrong_seat():
    log = small_log([BUILDER, {"kind": "pass", "seat": 1}])
    with pytest.raises(IllegalMoveError) as err:
        final_state(log)
    assert str(err.value) == ("small.json, game 1: move 2, seat 1 (Bob), 'pass': "
                              "it is seat 0's turn (Ann), not seat 1's [rule turn.seat]")


def test_replayer_unknown_card_in_a_move_names_the_json_path():
    log = small_log([BUILDER, {"kind": "build", "building": "Smithee", "pay": []}])
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert not isinstance(err.value, IllegalMoveError)
    assert err.value.path == "moves[1].building"
    assert str(err.value) == "small.json, game 1: moves[1].building: unknown card 'Smithee' (did you mean 'Smithy'?)"
    log = small_log([BUILDER, {"kind": "build", "building": "Sugar mill", "pay": ["Palce"]}])
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert str(err.value) == "small.json, game 1: moves[1].pay[0]: unknown card 'Palce' (did you mean 'Palace'?)"


def test_replayer_unknown_card_in_the_setup():
    hands = [["Smithy", "Sugar mill", "Hero", "Palace"], ["Well", "Tower", "Chapel", "Quary"]]
    log = small_log([], hands=hands, deck=_deck(HANDS))
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert err.value.path == "setup.hands[1][3]"
    assert str(err.value) == "small.json, game 1: setup.hands[1][3]: unknown card 'Quary' (did you mean 'Quarry'?)"


@pytest.mark.parametrize("count", [1, 5])
def test_replayer_wrong_number_of_players(count):
    names = tuple(f"P{i}" for i in range(count))
    log = small_log([], players=names, hands=HANDS[:1] * count)
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert str(err.value) == f"small.json, game 1: players: san_juan is for 2 to 4 players, not {count}"


def test_replayer_hands_do_not_match_the_players():
    log = small_log([], players=("Ann", "Bob", "Cid"))
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert str(err.value) == "small.json, game 1: setup.hands: expected one hand for each of the 3 players"


def test_replayer_wrong_hand_size():
    hands = [["Smithy", "Sugar mill", "Hero", "Palace", "Hero"], HANDS[1]]
    log = small_log([], hands=hands, deck=_deck(HANDS))
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert str(err.value) == "small.json, game 1: setup.hands[0]: seat 0 is dealt 4 cards, not 5"


def test_replayer_setup_not_the_110_cards():
    deck = _deck(HANDS)
    deck.remove("Hero")
    with pytest.raises(LogFormatError) as err:
        final_state(small_log([], deck=deck))
    assert str(err.value) == ("small.json, game 1: setup: starting buildings, hands and deck are not the 110 cards "
                              "of the game: missing 1x Hero")
    deck = _deck(HANDS) + ["Palace"]
    deck.remove(IP)
    with pytest.raises(LogFormatError) as err:
        final_state(small_log([], deck=deck))
    assert str(err.value) == ("small.json, game 1: setup: starting buildings, hands and deck are not the 110 cards "
                              "of the game: missing 1x Indigo plant; too many 1x Palace")


def test_replayer_bad_tiles():
    log = small_log([])
    bad = GameLog(game=log.game, players=log.players, setup={**log.setup, "tiles": [1, 2, 3, 4, 4]},
                  moves=(), file="small.json", index=0)
    with pytest.raises(LogFormatError) as err:
        final_state(bad)
    assert str(err.value) == "small.json, game 1: setup.tiles: expected an order of the tiles 1 to 5, got [1, 2, 3, 4, 4]"


def test_replayer_log_ends_before_the_game_does():
    log = small_log([BUILDER])
    with pytest.raises(LogFormatError) as err:
        final_state(log)
    assert str(err.value) == ("small.json, game 1: moves: the log ends after move 1 but the game is not over: "
                              "seat 0 must build or pass")


# -- a whole simulated game -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def whole_game():
    """A complete 2-player game played by the heuristic bots (seed 0), with one reshuffle."""
    log = ENGINE.new_random_game(list(NAMES), 0, {})
    state = ENGINE.simulation_state(log, 0)
    bots = [HeuristicPlayer(0), HeuristicPlayer(1)]
    moves = []
    reshuffle_move = None
    while state.stage is not Stage.OVER:
        move = bots[state.current_seat].choose(state)
        moves.append(move.to_json())
        before = len(state.reshuffles_used)
        state = rules.apply(state, move)
        if reshuffle_move is None and len(state.reshuffles_used) > before:
            reshuffle_move = len(moves)
    obj = ENGINE.finish_log(log, state, moves)
    assert obj["setup"]["reshuffles"] and reshuffle_move is not None
    return obj, state, reshuffle_move


def test_whole_game_replays_to_the_same_final_state_and_result(whole_game):
    obj, state, _ = whole_game
    game = replay(parse_game(obj, file="sim.json", index=0))
    assert game.final == replace(state, shuffle_seed=None)  # replayed from the recorded orders
    assert len(game.steps) == len(obj["moves"])
    assert [s.total for s in ENGINE.scores(game.final)] == obj["result"]["scores"]
    assert sorted(game.final.all_cards()) == sorted(full_deck())


def test_trailing_move_after_the_end(whole_game):
    obj, _, _ = whole_game
    bad = copy.deepcopy(obj)
    bad["moves"].append({"kind": "role", "role": "builder"})
    number = len(bad["moves"])
    with pytest.raises(IllegalMoveError) as err:
        final_state(parse_game(bad, file="sim.json", index=0))
    assert str(err.value) == (f"sim.json, game 1: move {number}, no player, 'role builder': "
                              f"the game is already over after move {number - 1}; no further moves [rule game.over]")


def test_missing_reshuffle_order(whole_game):
    obj, _, at = whole_game
    bad = copy.deepcopy(obj)
    bad["setup"]["reshuffles"] = []
    with pytest.raises(LogFormatError) as err:
        final_state(parse_game(bad, file="sim.json", index=0))
    assert err.value.path == "setup.reshuffles"
    assert str(err.value) == (f"sim.json, game 1: setup.reshuffles: the draw pile runs out at move {at} and the log "
                              f"records 0 reshuffle order(s); reshuffle 1 is missing")


def test_wrong_reshuffle_order(whole_game):
    obj, _, at = whole_game
    bad = copy.deepcopy(obj)
    order = bad["setup"]["reshuffles"][0]
    order[order.index(next(c for c in order if c != "Palace"))] = "Palace" if order.count("Palace") < 2 else order[0]
    with pytest.raises(LogFormatError) as err:
        final_state(parse_game(bad, file="sim.json", index=0))
    assert err.value.path == "setup.reshuffles[0]"
    assert f"cards in the discard pile at move {at}: " in str(err.value)


def test_wrong_recorded_scores(whole_game):
    obj, state, _ = whole_game
    bad = copy.deepcopy(obj)
    real = [s.total for s in ENGINE.scores(state)]
    bad["result"]["scores"] = [real[0] + 1, real[1]]
    with pytest.raises(ResultMismatchError) as err:
        final_state(parse_game(bad, file="sim.json", index=0))
    assert err.value.path == "result.scores"
    assert str(err.value) == f"sim.json, game 1: result.scores: the log records {bad['result']['scores']} but the replay scores {real}"


def test_wrong_recorded_winners(whole_game):
    obj, state, _ = whole_game
    bad = copy.deepcopy(obj)
    real = ENGINE.winners(state)
    bad["result"]["winners"] = [1 - real[0]]
    with pytest.raises(ResultMismatchError) as err:
        final_state(parse_game(bad, file="sim.json", index=0))
    assert str(err.value) == (f"sim.json, game 1: result.winners: the log records winner seat(s) {[1 - real[0]]} "
                              f"but the replay gives {real}")


# -- random play keeps the invariants ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_random_play_conserves_cards_and_replays(players, seed):
    log = ENGINE.new_random_game([f"P{i}" for i in range(players)], seed, {"draft_start": seed == 2})
    state = ENGINE.simulation_state(log, seed)
    bot = RandomPlayer(ENGINE, seed)
    deck = sorted(full_deck())
    moves = []
    for _ in range(300):
        if state.stage is Stage.OVER:
            break
        move = bot.choose(state)
        assert ENGINE.parse_move(move.to_json(), "m") == move
        moves.append(move.to_json())
        state = rules.apply(state, move)
        assert sorted(state.all_cards()) == deck
        assert all(len(p.buildings) == len(p.goods) for p in state.players)
    # Replaying the generated moves with the recorded reshuffles reaches the same state.
    setup = dict(log.setup, reshuffles=[list(o) for o in state.reshuffles_used])
    again = rules.new_game(players, log.options, setup)
    for raw in moves:
        again = rules.apply(again, ENGINE.parse_move(raw, "m"))
    assert again == replace(state, shuffle_seed=None)


# -- move JSON --------------------------------------------------------------------------------------------

ALL_KINDS = [
    (ChooseRole(Role.BUILDER), {"kind": "role", "role": "builder"}, "role builder"),
    (ChooseRole(Role.TRADER, False), {"kind": "role", "role": "trader", "library": False}, "role trader -library"),
    (Build(SS, ("Hero",), (Good.INDIGO,), IP),
     {"kind": "build", "building": SS, "pay": ["Hero"], "goods": ["indigo"], "replace": IP},
     "build Silver smelter over Indigo plant pay [Hero] goods [indigo]"),
    (Produce((Good.SILVER, Good.INDIGO)), {"kind": "produce", "goods": ["silver", "indigo"]}, "produce silver, indigo"),
    (Sell((Good.INDIGO, Good.SILVER)), {"kind": "sell", "goods": ["indigo", "silver"]}, "sell indigo, silver"),
    (Councillor(keep=("Well",)), {"kind": "councillor", "keep": ["Well"]}, "councillor keep [Well]"),
    (Councillor(discard=("Well", "Hero")), {"kind": "councillor", "discard": ["Well", "Hero"]},
     "councillor discard [Well, Hero]"),
    (GoldMine("Hero"), {"kind": "gold_mine", "keep": "Hero"}, "gold mine keep Hero"),
    (Chapel("Hero"), {"kind": "chapel", "card": "Hero"}, "chapel Hero"),
    (HandLimit(("Hero",)), {"kind": "hand_limit", "discard": ["Hero"]}, "hand limit discard [Hero]"),
    (Draft((IP, SM, "Well", "Hero")), {"kind": "draft", "keep": [IP, SM, "Well", "Hero"]},
     "draft keep [Indigo plant, Sugar mill, Well, Hero]"),
    (Pass(), {"kind": "pass"}, "pass"),
]


@pytest.mark.parametrize(("move", "obj", "text"), ALL_KINDS, ids=[o["kind"] + str(i) for i, (_, o, _) in enumerate(ALL_KINDS)])
def test_move_json_round_trip_and_text(move, obj, text):
    assert move.to_json() == obj
    assert ENGINE.parse_move(obj, "moves[0]") == move
    assert move.text() == text


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"kind": "dance"}, "small.json, game 1: moves[1].kind: unknown move kind 'dance' (kinds: role, build, produce, "
                            "sell, councillor, gold_mine, chapel, hand_limit, draft, pass)"),
        ({"kind": "pass", "card": "Hero"}, "small.json, game 1: moves[1].card: unknown field for a 'pass' move"),
        ({"kind": "councillor", "keep": [], "discard": []},
         "small.json, game 1: moves[1]: a councillor move has exactly one of 'keep' and 'discard'"),
        ({"kind": "sell", "goods": ["gold"]},
         "small.json, game 1: moves[1].goods[0]: unknown good 'gold' (goods: indigo, sugar, tobacco, coffee, silver)"),
        ({"kind": "pass", "seat": 2}, "small.json, game 1: moves[1].seat: expected a seat number from 0 to 1, got 2"),
    ],
)
def test_replayer_malformed_move(raw, message):
    with pytest.raises(LogFormatError) as err:
        final_state(small_log([BUILDER, raw]))
    assert str(err.value) == message
