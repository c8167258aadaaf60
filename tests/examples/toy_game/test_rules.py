"""Climb's rules on small hand-built positions, and invariants of random play (the toy game of
``examples/toy_game``, imported from the checkout)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from toy_game import rules, view
from toy_game.bots import HeuristicPlayer
from toy_game.cards import deck
from toy_game.moves import Climb, Draw, Rest, Stay, parse_move, parse_text
from toy_game.state import Seat, Stage, ToyState

from replay.errors import FieldError, RuleViolation
from replay.protocol import Viewer


def _ordered_deck() -> list[int]:
    """A deck whose first six cards are 9 1 5 | 2 2 8 and the rest in value order."""
    rest = Counter(deck())
    rest.subtract([9, 1, 5, 2, 2, 8])
    return [9, 1, 5, 2, 2, 8] + sorted(rest.elements())


def _state(hands: list[list[int]], ladders: list[list[int]], pile: list[int], **kw: object) -> ToyState:
    players = tuple(Seat(tuple(sorted(h)), tuple(ld)) for h, ld in zip(hands, ladders))
    return ToyState(players=players, pile=tuple(pile), **kw)  # type: ignore[arg-type]


def test_the_setup_deals_three_cards_each_from_the_top() -> None:
    state = rules.new_game(2, {}, {"deck": _ordered_deck()})
    assert [p.hand for p in state.players] == [(1, 5, 9), (2, 2, 8)]
    assert len(state.pile) == 30 and state.pile[0] == 1
    assert (state.round, state.stage, state.current_seat) == (1, Stage.DRAW, 0)


@pytest.mark.parametrize(("players", "options", "setup", "path", "message"), [
    (2, {"fast": True}, {"deck": deck()}, "options.fast", "unknown option (Climb has none)"),
    (5, {}, {"deck": deck()}, "players", "Climb is for 2 to 4 players, not 5"),
    (2, {}, {"deck": deck()[1:] + [9]}, "setup.deck", "the deck must hold the values 1 to 9, four of each, once"),
    (2, {}, {"deck": "123"}, "setup.deck", "expected a list of card values"),
    (2, {}, {"deck": deck(), "seed": 1}, "setup.seed", "unknown field (the setup holds the deck only)"),
])
def test_a_bad_setup_is_named(players: int, options: dict[str, object], setup: dict[str, object], path: str,
                              message: str) -> None:
    with pytest.raises(FieldError) as err:
        rules.new_game(players, options, setup)
    assert (err.value.path, err.value.reason) == (path, message)


def test_a_full_hand_or_an_empty_pile_cannot_draw() -> None:
    full = _state([[1, 2, 3, 4, 5], [6]], [[], []], [7, 8])
    assert rules.legal_moves(full) == [Stay()]
    with pytest.raises(RuleViolation, match=r"\[draw.limit\] a hand of 5 cards cannot draw"):
        rules.apply(full, Draw())
    empty = _state([[1], [6]], [[], []], [])
    assert rules.legal_moves(empty) == [Stay()]
    assert rules.legal_moves(_state([[1], [6]], [[], []], [7])) == [Draw(), Stay()]


def test_a_climb_must_be_higher_than_the_ladders_top() -> None:
    state = _state([[2, 4, 4, 7], [6]], [[4], []], [7], stage=Stage.CLIMB)
    assert rules.legal_moves(state) == [Climb(7), Rest()]
    with pytest.raises(RuleViolation, match=r"\[climb.height\] climb 4: not higher than the ladder's top card 4"):
        rules.apply(state, Climb(4))
    with pytest.raises(RuleViolation, match=r"\[climb.card\] climb 8: no 8 in hand"):
        rules.apply(state, Climb(8))
    with pytest.raises(RuleViolation, match=r"\[turn.order\] draw: the seat must climb or rest now"):
        rules.apply(state, Draw())
    after = rules.apply(state, Climb(7))
    assert after.players[0] == Seat((2, 4, 4), (4, 7))
    assert (after.current_seat, after.stage, after.round) == (1, Stage.DRAW, 1)


def test_drawing_the_last_card_ends_the_game_with_the_round() -> None:
    state = _state([[3], [6]], [[], []], [9], current_seat=1)
    drawn = rules.apply(state, Draw())
    assert (drawn.players[1].hand, drawn.pile, drawn.events) == ((6, 9), (), ("pile_empty",))
    over = rules.apply(drawn, Climb(9))
    assert (over.stage, over.current_seat, over.events) == (Stage.OVER, None, ("over",))
    assert rules.legal_moves(over) == []
    with pytest.raises(RuleViolation, match=r"\[over\] the game is over"):
        rules.apply(over, Rest())


def test_round_eight_is_the_last() -> None:
    state = _state([[3], [6]], [[], []], [1, 2], current_seat=1, stage=Stage.CLIMB, round=8)
    assert rules.apply(state, Rest()).stage is Stage.OVER
    earlier = rules.apply(replace(state, round=7), Rest())
    assert (earlier.round, earlier.current_seat, earlier.stage) == (8, 0, Stage.DRAW)


def test_scores_and_the_tie_break() -> None:
    # 1+2+3 - 0 = 6 with three cards climbed; 6 - 0 = 6 with one; 9 - 3 = 6 with one.
    state = _state([[], [], [3]], [[1, 2, 3], [6], [9]], [], stage=Stage.OVER, current_seat=None)
    assert [s.total for s in rules.scores(state)] == [6, 6, 6]
    assert rules.scores(state)[2].parts == {"ladder": 9, "hand": -3}
    assert rules.winners(state) == [0]
    shared = _state([[], []], [[1, 5], [2, 4]], [], stage=Stage.OVER, current_seat=None)
    assert rules.winners(shared) == [0, 1]


def test_moves_have_a_json_and_a_text_form() -> None:
    for move in (Draw(), Stay(), Climb(7), Rest()):
        assert parse_move(move.to_json(), "moves[0]") == move
        assert parse_text(move.text()) == move
    assert parse_move({"seat": 1, "kind": "climb", "card": 3}, "m") == Climb(3)
    for obj, path, reason in (({"kind": "fly"}, "m.kind", "unknown move kind 'fly' (kinds: draw, stay, climb, rest)"),
                              ({"kind": "climb", "card": 10}, "m.card", "expected a card value 1 to 9, got 10"),
                              ({"kind": "stay", "card": 1}, "m.card", "unknown field for a 'stay' move"),
                              ([], "m", "a move must be an object, got list")):
        with pytest.raises(FieldError) as err:
            parse_move(obj, "m")
        assert (err.value.path, err.value.reason) == (path, reason)


def test_moves_in_words_say_an_eight(installed_toy: object) -> None:
    from replay.registry import engine_for

    engine = engine_for("toy")
    state = _state([[1, 8], [7, 8]], [[], []], [8, 5])
    names = ["Ana", "Bruno"]
    assert [engine.describe_move(state, move, names) for move in (Draw(), Climb(8), Climb(1), Stay(), Rest())] == [
        "Ana draws an 8", "Ana climbs with an 8", "Ana climbs with a 1", "Ana stays", "Ana rests"]
    assert engine.describe_move(replace(state, pile=(7,)), Draw(), names) == "Ana draws a 7"


def test_a_seat_sees_its_own_hand_only_until_the_end(installed_toy: object) -> None:
    state = _state([[1, 2], [7, 8]], [[3], []], [4, 5, 6])
    names = ["Ana", "Bruno"]
    seen = view.view_state(state, Viewer.of_seat(0), names)
    assert [("hand" in p, "score" in p) for p in seen["players"]] == [(True, True), (False, False)]
    assert [p["hand_size"] for p in seen["players"]] == [2, 2]
    public = view.view_state(state, Viewer.public(), names)
    assert not any("hand" in p for p in public["players"]) and "scores" not in public
    over = replace(state, stage=Stage.OVER, current_seat=None)
    assert all("hand" in p for p in view.view_state(over, Viewer.public(), names)["players"])
    assert view.view_seat_row({"hand": [7, 8], "vp": -15, "hand_size": 2}, 1, Viewer.of_seat(0), False) == {"hand_size": 2}
    assert view.view_move_words({"kind": "draw"}, "Bruno draws a 4", "Bruno", 1, Viewer.of_seat(0)) == "Bruno draws a card"
    assert view.view_move_words({"kind": "draw"}, "Bruno draws a 4", "Bruno", 1, Viewer.of_seat(1)) == "Bruno draws a 4"


def test_determinising_deals_again_only_what_the_seat_cannot_see() -> None:
    state = _state([[1, 2], [7, 8], [9]], [[3], [], [5]], [4, 5, 6])
    for seed in range(20):
        dealt = view.determinise(state, 0, random.Random(seed))
        assert dealt.players[0] == state.players[0] and dealt.players[2].ladder == (5,)
        assert [len(p.hand) for p in dealt.players] == [2, 2, 1] and len(dealt.pile) == 3
        unseen = sorted(dealt.pile + dealt.players[1].hand + dealt.players[2].hand)
        assert unseen == [4, 5, 6, 7, 8, 9]


def _cards(state: ToyState) -> Counter[int]:
    return Counter(state.pile) + sum((Counter(p.hand) + Counter(p.ladder) for p in state.players), Counter())


@pytest.mark.parametrize("seed", range(12))
def test_random_play_keeps_every_card_and_ends(seed: int) -> None:
    """Random and heuristic seats, 2 to 4 players: every card stays in the game, ladders rise, hands
    stay within the limit, every listed move applies, and the game ends within eight rounds."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    cards = deck()
    rng.shuffle(cards)
    state = rules.new_game(players, {}, {"deck": cards})
    heuristic = HeuristicPlayer(seed)
    steps = 0
    while state.stage is not Stage.OVER:
        legal = rules.legal_moves(state)
        assert legal and len(set(legal)) == len(legal)
        move = heuristic.choose(state) if state.current_seat == 0 else rng.choice(legal)
        assert move in legal
        state = rules.apply(state, move)
        steps += 1
        assert _cards(state) == Counter(deck())
        assert all(list(p.ladder) == sorted(set(p.ladder)) and len(p.hand) <= 5 for p in state.players)
    assert state.round <= 8 and steps == state.step == 2 * players * state.round
    assert rules.winners(state)


def test_the_heuristic_beats_random_play() -> None:
    wins = 0
    for seed in range(40):
        rng = random.Random(seed)
        cards = deck()
        rng.shuffle(cards)
        state = rules.new_game(2, {}, {"deck": cards})
        bot = HeuristicPlayer(seed)
        while state.stage is not Stage.OVER:
            state = rules.apply(state, bot.choose(state) if state.current_seat == seed % 2
                                else rng.choice(rules.legal_moves(state)))
        wins += rules.winners(state) == [seed % 2]
    assert wins >= 30


def test_the_final_scoring_under_the_board() -> None:
    """From each seat's stored row at the last step as the viewer sees it (a database's rows hold
    arrays): the ladder, the hand counted against the seat, the total and the tie-break; a hand the
    view left out is None, never guessed."""
    import numpy as np

    rows = [{"ladder": np.array([2, 5, 9], dtype=np.int8), "hand": np.array([1, 4], dtype=np.int8), "vp": np.int32(11)},
            {"ladder": np.array([], dtype=np.int8), "hand": [7], "vp": -7},
            {"ladder": [3, 4], "hand_size": 2}]
    assert view.final_scoring(rows) == {"columns": ["ladder", "hand", "total", "tie-break (ladder length)"],
                                        "rows": [[16, -5, 11, 3], [0, -7, -7, 0], [7, None, None, 2]]}
