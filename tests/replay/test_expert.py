"""The expert bots: legal in every position they meet (every move checked by the rules), seeded, and
stronger than today's heuristic bots."""

from __future__ import annotations

import pytest

from governor.arena.round_robin import run_arena
from replay.puerto_rico.expert import ExpertPlayer as PuertoRicoExpert
from replay.registry import engine_for
from replay.san_juan.expert import ExpertPlayer as SanJuanExpert
from replay.simulate import NAMES


@pytest.mark.parametrize(("game", "players"), [("san_juan", 2), ("san_juan", 3), ("san_juan", 4),
                                               ("puerto_rico", 3), ("puerto_rico", 4), ("puerto_rico", 5)])
def test_expert_moves_are_legal_and_seeded(game: str, players: int) -> None:
    engine = engine_for(game)
    expert = SanJuanExpert if game == "san_juan" else PuertoRicoExpert

    def play(seed: int) -> list[str]:
        log = engine.new_random_game(NAMES[:players], seed, {})
        state = engine.simulation_state(log, seed)
        bots = [expert(seed * 10 + s) for s in range(players)]
        moves = []
        while not engine.is_over(state):
            move = bots[engine.current_seat(state)].choose(state)
            state = engine.apply(state, move)  # checked: an illegal move raises
            moves.append(move.text())
        return moves

    for seed in (1, 2):
        first = play(seed)
        assert first == play(seed)


@pytest.mark.parametrize(("game", "least"), [("san_juan", 0.40), ("puerto_rico", 0.60)])
def test_expert_beats_three_heuristic_bots(game: str, least: float) -> None:
    # 40 seat-balanced four-player games (fixed seeds): the measured rates over thousands of games are
    # in docs/benchmarks.md.
    _, board = run_arena(game, 4, ["expert", "heuristic", "heuristic", "heuristic"], games=40, seed=5)
    rows = {row["agent"]: row for row in board.to_json()}
    assert rows["expert"]["games"] == 40
    assert rows["expert"]["win_rate"] >= least


#: The expert's moves in 50 seeded games per game (seeds 0 to 49, player counts in turn, an expert in
#: every seat, at most the simulation's move limit each): a digest of every move's text, made with the
#: pure-Python expert before it was compiled. Compiled (``replay.native``) or not, the moves are these.
#: San Juan's 3-player game of seed 25 never ends (no expert chooses the builder while the others hold
#: cards): it is played to the move limit like a rollout that does not end.
EXPERT_MOVES = {
    "san_juan": ((2, 3, 4), 13638, "b2fac43853d608342789fe2c512d9b2281e630217bd8ca510d988dd685b55784"),
    "puerto_rico": ((3, 4, 5), 12832, "68707323581ffb9fb801511e82aa3b0eab428094d6a6274c7f72cafaafcded50"),
}


@pytest.mark.parametrize("game", list(EXPERT_MOVES))
def test_expert_moves_are_the_same_compiled_or_not(game: str) -> None:
    import hashlib

    from replay.registry import make_bot
    from replay.simulate import MAX_MOVES

    counts, moves, expected = EXPERT_MOVES[game]
    engine = engine_for(game)
    digest = hashlib.sha256()
    total = 0
    for seed in range(50):
        players = counts[seed % len(counts)]
        state = engine.simulation_state(engine.new_random_game(NAMES[:players], seed, {}), seed)
        bots = [make_bot(game, "expert", seed * 10 + s) for s in range(players)]
        play = engine.working(state)
        made = 0
        while not play.is_over() and made < MAX_MOVES:
            move = bots[play.current_seat()].choose_working(play)  # type: ignore[index]
            play.apply(move)
            digest.update(move.text().encode() + b"\n")
            made += 1
        total += made
        digest.update(b"--\n")
    assert (total, digest.hexdigest()) == (moves, expected)
