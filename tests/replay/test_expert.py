"""The expert bots: legal in every position they meet (every move checked by the rules), seeded, and
stronger than today's heuristic bots; San Juan's values its cards for its own city and sees only what
its seat may see."""

from __future__ import annotations

import random

import pytest

from governor.arena.round_robin import run_arena
from replay.puerto_rico.expert import ExpertPlayer as PuertoRicoExpert
from replay.registry import engine_for
from replay.san_juan.cards import Role
from replay.san_juan.expert import ExpertPlayer as SanJuanExpert
from replay.san_juan.moves import Build, Pass
from replay.san_juan.state import Stage
from replay.san_juan.view import determinise
from replay.simulate import NAMES

from .san_juan.positions import FILL, IP, SM, TS, position, seat


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
#: Every game ends (San Juan's expert builds whatever it can from round 30 on, so that seats that hold
#: out against each other end the game).
EXPERT_MOVES = {
    "san_juan": ((2, 3, 4), 6447, "7f5e921ff3e7068390256372404ba296f0d5d0f141e76fb23ec55102625bb9f5"),
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
        assert play.is_over(), f"game {seed} did not end"
        total += made
        digest.update(b"--\n")
    assert (total, digest.hexdigest()) == (moves, expected)


# -- San Juan's expert: its valuation of cards -------------------------------------------------------

#: Eight violet buildings with no bonus of their own, and five production buildings.
VIOLETS = ("Smithy", "Gold mine", "Archive", "Poor house", "Black market", "Trading post", "Well", "Market stand")
PRODUCTION = (IP, IP, SM, SM, TS)


def _builder(mine, *, hand, others=(IP,), other_chapel=()):
    """Seat 0 (the builder's chooser, one card off) to build with ``hand`` in city ``mine``; seat 1
    holds city ``others`` and two cards."""
    players = [seat(hand=hand, buildings=mine), seat(hand=(FILL, FILL), buildings=others, chapel=other_chapel)]
    return position(players, stage=Stage.PHASE, role=Role.BUILDER, chooser=0, draw=(FILL,) * 20)


@pytest.mark.parametrize(("city", "built"), [((IP, *VIOLETS), "City hall"), ((*PRODUCTION, "Smithy"), "Guild hall")])
def test_san_juan_expert_values_a_six_cost_building_on_its_city(city, built):
    # The city hall scores a point a violet building, the guild hall two a production building: with
    # eight violet buildings the city hall is worth more than the guild hall, with five production
    # buildings the guild hall more. The heuristic bot valued both alike and built the guild hall.
    state = _builder(city, hand=("Guild hall", "City hall", IP, IP, SM, SM, FILL))
    move = SanJuanExpert(0).choose(state)
    assert isinstance(move, Build) and move.building == built


def test_san_juan_expert_ends_the_game_only_when_that_wins_it():
    eleven = (*PRODUCTION, *VIOLETS[:6])
    # A tobacco storage (3 - 1 for the privilege - 1 for its smithy: 1 card), paid with a violet
    # building it owns already (it can build only the tobacco storage).
    hand = (TS, "Smithy", "Archive")
    # Ahead of the other seat: the twelfth building ends the game, and it builds it.
    ahead = _builder(eleven, hand=hand)
    assert SanJuanExpert(0).choose(ahead) == Build(TS, ("Smithy",))
    # Behind (the other seat's city scores more): it builds nothing rather than end the game losing.
    behind = _builder(eleven, hand=hand, others=("Palace", "Hero", "Hero", "Victory column", "Statue"))
    assert SanJuanExpert(0).choose(behind) == Pass()


def test_san_juan_expert_builds_over_a_building_with_its_crane():
    # On a new lot the hero costs 5 - 1 (privilege) = 4 cards, which it does not have; over its statue
    # with the crane, 5 - 1 - 3 (the statue) = 1 card, for 2 points more. The heuristic bot passed.
    city = (IP, IP, SM, SM, "Crane", FILL, *VIOLETS[:5])
    state = _builder(city, hand=("Hero", FILL))
    assert SanJuanExpert(0).choose(state) == Build("Hero", (FILL,), replace=FILL)


def test_san_juan_expert_reads_only_what_its_seat_sees():
    # What the seat cannot see (other hands and chapels, the face-down goods, the piles' order) dealt
    # again changes none of its moves, over a whole game of each player count.
    engine = engine_for("san_juan")
    for players in (2, 3, 4):
        state = engine.simulation_state(engine.new_random_game(NAMES[:players], players, {}), players)
        bots = [SanJuanExpert(s) for s in range(players)]
        rng = random.Random(players)
        for _ in range(2000):
            if engine.is_over(state):
                break
            mover = engine.current_seat(state)
            again = SanJuanExpert(0)
            again.rng.setstate(bots[mover].rng.getstate())
            move = bots[mover].choose(state)
            assert again.choose(determinise(state, mover, rng)) == move
            state = engine.apply(state, move)
