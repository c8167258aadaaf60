"""Random and heuristic play over many seeds: invariants after every move, JSON round trips, legal
moves agreeing with ``apply``, and replay of the written log reaching the same final state."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pyarrow as pa
import pytest

from replay.errors import RuleViolation
from replay.logfile import parse_game
from replay.puerto_rico import rules
from replay.puerto_rico.bots import HeuristicPlayer
from replay.puerto_rico.catalogue import (
    BUILDINGS,
    CATALOGUE,
    DOUBLOONS_IN_GAME,
    GOODS,
    GOODS_SUPPLY,
    PLANTATION_TILES,
    QUARRIES,
    SETUPS,
    TILE_KINDS,
)
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import (
    WHARF,
    Build,
    ChooseRole,
    ExtraGood,
    Hacienda,
    Load,
    Pass,
    Produce,
    PuertoRicoMove,
    Sell,
    Settle,
    Store,
)
from replay.puerto_rico.state import PuertoRicoState, Stage
from replay.replayer import final_state
from replay.san_juan.bots import RandomPlayer

from .positions import C, I, S, seat

NAMES = ("Ana", "Bruno", "Carla", "Diego", "Elena")


def check_invariants(s: PuertoRicoState) -> None:
    n = s.num_players
    conf = SETUPS[n]
    for i, g in enumerate(GOODS):
        held = sum(p.goods[i] for p in s.players)
        shipped = sum(load for good, load in zip(s.ship_good, s.ship_load) if good is g)
        traded = sum(1 for x in s.trading_house if x is g)
        assert s.goods_supply[i] + held + shipped + traded == GOODS_SUPPLY[g], g
        assert s.goods_supply[i] >= 0
    colonists = s.colonist_supply + s.colonist_ship + sum(p.colonists for p in s.players)
    assert colonists == conf.colonist_supply + conf.colonist_ship
    doubloons = s.bank + sum(p.doubloons for p in s.players) + sum(s.role_doubloons)
    assert doubloons == DOUBLOONS_IN_GAME
    assert s.vp_chips_left + sum(p.vp_chips for p in s.players) == conf.vp_chips
    tiles = Counter(s.plantation_stack) + Counter(s.face_up) + Counter(s.plantation_discard)
    for p in s.players:
        tiles += Counter(p.island)
    assert tiles[("quarry")] + s.quarries == QUARRIES
    for g in GOODS:
        assert tiles[g.value] == PLANTATION_TILES[g], g
    for b, left in zip(CATALOGUE, s.building_supply):
        assert left + sum(1 for p in s.players if b.name in p.city) == b.copies
        assert left >= 0
    for p in s.players:
        assert p.doubloons >= 0 and p.san_juan >= 0 and min(p.goods) >= 0 and p.vp_chips >= 0
        assert len(p.island) <= 12 and p.city_spaces <= 12
        assert len(set(p.city)) == len(p.city)
        assert all(w in (0, 1) for w in p.island_workers)
        assert all(0 <= w <= BUILDINGS[b].circles for b, w in zip(p.city, p.city_workers))
    for cap, good, load in zip(s.ship_capacity, s.ship_good, s.ship_load):
        assert 0 <= load <= cap and (good is None) == (load == 0)
    kinds = [g for g in s.ship_good if g is not None]
    assert len(kinds) == len(set(kinds))
    assert len(s.trading_house) <= 4
    assert len(s.face_up) <= n + 1
    assert s.colonist_ship >= 0 and s.colonist_supply >= 0 and s.quarries >= 0


def candidates(s: PuertoRicoState) -> list:
    """Every move of the current stage's kinds (legal or not, each power used and declined), for the
    legal-iff-accepted check."""
    out: list = [Pass(), Hacienda()]
    cards = ("settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector", "prospector_2")
    out += [ChooseRole(c, privilege) for c in cards for privilege in (True, False)]
    out += [Settle(k, hospice) for k in TILE_KINDS for hospice in (True, False)]
    out += [Build(b.name, university) for b in CATALOGUE for university in (True, False)]
    out += [Produce(), Produce(take=False)]
    out += [ExtraGood(g) for g in GOODS] + [Sell(g) for g in GOODS]
    out += [Load(g, ship) for g in GOODS for ship in (0, 1, 2, WHARF)]
    return out


def check_legal_iff_accepted(s: PuertoRicoState) -> None:
    legal = rules.legal_moves(s)
    if s.stage is Stage.MAYOR:
        assert len(legal) >= 2
        picks = {0, len(legal) - 1, len(legal) // 2}
        for i in picks:
            assert legal[i] in legal
            rules.apply(s, legal[i])
        return
    if s.stage is Stage.STORAGE:
        assert len(legal) >= 2
        for move in legal:
            rules.apply(s, move)
        return
    legal_set = set(legal)
    assert len(legal_set) == len(legal)
    for move in candidates(s):
        try:
            rules.apply(s, move)
            accepted = True
        except RuleViolation:
            accepted = False
        assert accepted == (move in legal_set), (move, s.stage, legal)


def _declines(state: PuertoRicoState, move: PuertoRicoMove) -> list[str]:
    """What ``move`` declines: a colonist power, or (storage) keeping the most when a log saying nothing
    would keep it."""
    if isinstance(move, ChooseRole) and not move.privilege:
        return ["privilege"]
    if isinstance(move, Settle) and not move.hospice:
        return ["hospice"]
    if isinstance(move, Build) and not move.university:
        return ["university"]
    if isinstance(move, Produce) and not move.take:
        return ["production"]
    default = rules.default_move(state)
    if isinstance(move, Store) and default is not None and move != default:
        return ["keeps less"]
    return []


def play_game(
    players: int, seed: int, kind: str, deep: bool, declined: Counter[str] | None = None
) -> tuple[dict, PuertoRicoState]:
    log = ENGINE.new_random_game(NAMES[:players], seed, {})
    state = ENGINE.simulation_state(log, seed)
    rng = random.Random(seed)
    bots = [
        RandomPlayer(ENGINE, rng.randrange(2**31)) if kind == "random" or (kind == "mixed" and i % 2)
        else HeuristicPlayer(rng.randrange(2**31))
        for i in range(players)
    ]
    moves = []
    check_invariants(state)
    while not ENGINE.is_over(state):
        seat = ENGINE.current_seat(state)
        assert seat is not None
        if deep and state.step % 3 == 0:
            check_legal_iff_accepted(state)
        move: PuertoRicoMove = bots[seat].choose(state)  # type: ignore[assignment]
        legal = rules.legal_moves(state)
        assert move in legal
        obj = move.to_json()
        assert ENGINE.parse_move(json.loads(json.dumps(obj)), "m") == move
        assert ENGINE.describe_move(state, move, NAMES)
        if declined is not None:
            declined.update(_declines(state, move))
        state = ENGINE.apply(state, move)
        check_invariants(state)
        moves.append({"seat": seat, **obj})
        assert len(moves) < 3000
    return ENGINE.finish_log(log, state, moves), state


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("kind", ["random", "heuristic", "mixed"])
def test_random_play_invariants_and_replay(players: int, kind: str) -> None:
    declined: Counter[str] = Counter()
    for seed in range(6 if kind != "heuristic" else 4):
        obj, final = play_game(players, 1000 * players + seed, kind, deep=seed < 2, declined=declined)
        log = parse_game(json.loads(json.dumps(obj)))
        replayed = final_state(log)
        # The replay reads the reshuffles from the log; the simulation drew them from its seed.
        assert replace(replayed, reshuffles=(), shuffle_seed=None) == replace(final, reshuffles=(), shuffle_seed=None)
        assert replayed.reshuffles_used == final.reshuffles_used
        assert [s.total for s in ENGINE.scores(replayed)] == obj["result"]["scores"]
        assert final.end
        pa.Table.from_pylist([ENGINE.global_row(final)], schema=ENGINE.global_schema)
        pa.Table.from_pylist(ENGINE.player_rows(final), schema=ENGINE.player_schema)
        json.dumps(ENGINE.to_view(final, NAMES))
        assert "Game over" in ENGINE.render(final, NAMES)
    if kind == "heuristic":
        # The heuristic players use every power and keep the most they can.
        assert not declined
    elif kind == "random":
        # Random players decline now and then, so the invariants above cover every declined power.
        assert set(declined) == {"privilege", "hospice", "university", "production", "keeps less"}, declined
    else:
        assert declined["privilege"] > 0 and declined["keeps less"] > 0, declined


def test_rows_match_schema_mid_game() -> None:
    obj, _ = play_game(4, 7, "heuristic", deep=False)
    log = parse_game(obj)
    from replay.replayer import replay

    game = replay(log)
    for step in game.steps[::17]:
        pa.Table.from_pylist([ENGINE.global_row(step.state)], schema=ENGINE.global_schema)
        pa.Table.from_pylist(ENGINE.player_rows(step.state), schema=ENGINE.player_schema)


def test_store_moves_are_distinct_outcomes() -> None:
    p = seat(goods={C: 1, I: 1, S: 2}, city=["Small warehouse"])
    moves = rules._store_moves(p)
    # (indigo in the warehouse, keep corn) leaves the same goods as (corn, keep indigo): listed once;
    # so do (corn in the warehouse, keep nothing) and (nothing in it, keep corn). The outcomes keeping
    # the most come first, then each smaller one.
    assert moves == [
        Store((C,), I), Store((C,), S), Store((I,), S), Store((S,), C), Store((S,), I),
        Store((C,), None), Store((I,), None), Store((S,), None), Store((), S), Store(),
    ]
