"""The engine's shortcuts against the plain way: ``apply`` going on with the working table of the
snapshot it returned last (``rules._table``) must give exactly the states, shared seats and errors of
a table thawed afresh for every move; the cached mayor and storage answers must be what is counted
and enumerated directly."""

from __future__ import annotations

import copy
import json
import random
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from replay.errors import GovernorError, RuleViolation
from replay.logfile import parse_game
from replay.puerto_rico import rules
from replay.puerto_rico.arrangements import Arrangements
from replay.puerto_rico.catalogue import CATALOGUE, GOODS
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import Build, ChooseRole, ExtraGood, Load, Mayor, Pass, Produce, Sell, Settle, Store
from replay.puerto_rico.state import Table
from replay.replayer import iter_replay
from replay.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = [json.loads(p.read_text()) for p in sorted((ROOT / "sample_logs" / "puerto_rico").glob("*.json"))]
SIMULATED = [simulate_game("puerto_rico", 3 + k % 3, 900 + k, ("heuristic", "random", "mixed")[k % 3]) for k in range(9)]


def _states(obj: dict[str, Any]) -> list[Any]:
    return [state for state, _ in iter_replay(parse_game(obj))]


def _shared(states: list[Any]) -> list[list[bool]]:
    """For every move, which seats kept the very same snapshot object."""
    return [[a is b for a, b in zip(s.players, t.players)] for s, t in zip(states, states[1:])]


def _outcome(obj: dict[str, Any]) -> str:
    try:
        *_, (state, _) = iter_replay(parse_game(obj, file="m.json", index=0))
    except GovernorError as err:
        return f"{type(err).__name__}: {err} {sorted((k, repr(v)) for k, v in vars(err).items())}"
    return repr(state)


@pytest.mark.parametrize("obj", SAMPLES + SIMULATED, ids=lambda o: o.get("source_id") or o["meta"].get("seed"))
def test_warm_table_gives_the_states_of_fresh_tables(obj: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    warm = _states(obj)
    with monkeypatch.context() as m:
        m.setattr(rules, "_table", Table)
        cold = _states(obj)
    assert len(warm) == len(obj["moves"]) + 1
    assert warm == cold
    assert [s.events for s in warm] == [s.events for s in cold]
    assert _shared(warm) == _shared(cold)
    # Untouched seats are shared at all (the importer relies on it), not copied afresh.
    assert any(all(row) for row in _shared(warm)) and any(not all(row) for row in _shared(warm))


def test_warm_table_gives_the_errors_of_fresh_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(13)
    games = SAMPLES[:6] + SIMULATED[:3]
    illegal = 0
    for _ in range(60):
        obj = copy.deepcopy(rng.choice(games))
        moves = obj["moves"]
        i, j = rng.randrange(len(moves)), rng.randrange(len(moves))
        if rng.random() < 0.5:
            moves[i], moves[j] = moves[j], moves[i]
        else:
            del moves[i]
        warm = _outcome(obj)
        with monkeypatch.context() as m:
            m.setattr(rules, "_table", Table)
            cold = _outcome(obj)
        assert warm == cold
        illegal += warm.startswith("IllegalMoveError: ")
    assert illegal > 30


def test_apply_after_an_error_or_from_an_older_state_starts_afresh() -> None:
    """A rejected move leaves nothing behind, and applying to a state other than the last result
    (a bot trying moves, a rollout) never sees another state's table."""
    states = _states(SIMULATED[0])
    role_state = next(s for s in states if s.stage.value == "role")
    first = rules.legal_moves(role_state)[0]
    after = rules.apply(role_state, first)
    with pytest.raises(RuleViolation, match=r"^\[turn.kind\] seat 0 must take a plantation"):
        rules.apply(after, first)  # a role move where the phase wants another decision
    again = rules.apply(role_state, first)
    assert again == after and again is not after
    for move in rules.legal_moves(role_state):
        assert rules.apply(role_state, move) == rules.apply(Table(role_state).freeze(), move)


@pytest.mark.parametrize(
    ("caps", "count"), [((1,), 1), ((3, 1, 1), 2), ((1, 1, 2, 3, 1), 4), ((2, 2, 2), 6), ((1,) * 8 + (3, 2), 7), ((3,), 0)]
)
def test_arrangements_count_and_order_match_enumeration(caps: tuple[int, ...], count: int) -> None:
    names = [b.name for b in CATALOGUE[: len(caps)]]
    bins = [(name, cap, False) for name, cap in zip(names, caps)]
    # Earlier places filled first: each bin's count from its most down to 0, in product order.
    expected = [c for c in product(*(range(cap, -1, -1) for cap in caps)) if sum(c) == count]
    ways = Arrangements(bins, count)
    assert len(ways) == len(expected)
    assert list(ways) == [Mayor.of({}, dict(zip(names, c))) for c in expected]


@pytest.mark.parametrize("slots", [0, 1, 2, 3])
def test_storage_answers_are_every_distinct_outcome(slots: int) -> None:
    rng = random.Random(slots)
    for _ in range(40):
        goods = tuple(rng.choice((0, 0, 1, 2, 5)) for _ in GOODS)
        moves, default = rules._storage(goods, slots)
        outcomes = [rules._store_outcome(goods, m.warehouse, m.keep) for m in moves]
        assert len(set(outcomes)) == len(outcomes)
        held = [g for i, g in enumerate(GOODS) if goods[i]]
        every, best = set(), set()
        whole = min(slots, len(held))
        for mask in range(1 << len(held)):
            kept = tuple(g for k, g in enumerate(held) if mask >> k & 1)
            if len(kept) <= slots:
                rest = [g for g in held if g not in kept]
                for keep in [*rest, None]:
                    every.add(rules._store_outcome(goods, kept, keep))
                    # Keeping the most: as many kinds whole as fit, and a barrel on the windrose if any is left.
                    if len(kept) == whole and (keep is not None or not rest):
                        best.add(rules._store_outcome(goods, kept, keep))
        assert set(outcomes) == every
        assert set(outcomes[: len(best)]) == best
        if len(best) == 1:
            assert isinstance(default, Store)
            assert rules._store_outcome(goods, default.warehouse, default.keep) in best
        else:
            assert default is None


def _working_fold(obj: dict[str, Any]) -> list[Any]:
    """The states after every move made in place on one ``rules.Working`` game, with the defaults the
    log leaves out taken as ``replay.replayer`` takes them (a snapshot asked for after every move)."""
    log = parse_game(obj)
    work = rules.working(ENGINE.new_game(log))
    out = [work.snapshot()]
    moves = [(ENGINE.parse_move(raw, f"moves[{i}]"), raw.get("seat")) for i, raw in enumerate(log.moves)]
    for i, (move, _) in enumerate(moves):
        assert not work.is_over()
        work.apply(move)
        upcoming, claimed = moves[i + 1] if i + 1 < len(moves) else (None, None)
        while (default := work.default_move()) is not None:
            if upcoming is not None and type(upcoming) is type(default) and claimed in (None, work.current_seat()):
                break
            work.apply_default()
        out.append(work.snapshot())
    assert work.is_over() and work.current_seat() is None
    return out


@pytest.mark.parametrize("obj", SAMPLES[::3] + SIMULATED, ids=lambda o: o.get("source_id") or o["meta"].get("seed"))
def test_working_game_reaches_the_states_of_apply(obj: dict[str, Any]) -> None:
    assert _working_fold(obj) == _states(obj)


def test_working_game_refuses_as_apply() -> None:
    states = _states(SIMULATED[1])
    for state in states[:40]:
        for move in [*rules.legal_moves(state)[:3], *candidates_of(state)]:
            try:
                expected: Any = rules.apply(state, move)
            except RuleViolation as err:
                expected = (err.rule, err.reason)
            work = rules.working(state)
            try:
                work.apply(move)
                got: Any = work.snapshot()
            except RuleViolation as err:
                got = (err.rule, err.reason)
            assert got == expected


def candidates_of(state: Any) -> list[Any]:
    """A few moves of every kind, most of them illegal at ``state``."""
    return [ChooseRole("mayor"), ChooseRole("captain", privilege=False), Settle("quarry"), Build("Wharf"),
            Sell(GOODS[4]), Load(GOODS[0], 2), Pass(), Produce(False), Store((), None), ExtraGood(GOODS[1])]
