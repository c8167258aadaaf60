"""The validation fast path (``final_state``, which makes the moves in place on ``Engine.working``) must
give exactly what the snapshot path (``iter_replay``, through the pure ``apply``) gives: the same final
state for every good log, the same error (kind, message, rule, move number) for every bad one, and, move
by move, working snapshots equal to the pure states."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from replay.engine_base import SnapshotWorking
from replay.errors import GovernorError
from replay.log_reader import read_records
from replay.logfile import GameLog, parse_game
from replay.registry import all_engines, engine_for
from replay.replayer import _fold, final_state, iter_replay
from replay.simulate import simulate_game
from tests.replay.test_mutations import mutate

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_logs").glob("*/*.json*"))
#: The bad logs that reach the replay (the others are refused when read).
BAD_LOGS = [
    path for path in sorted((ROOT / "tests" / "replay" / "bad_logs" / "logs").iterdir())
    if all(record.error is None for record in read_records(path))
]
#: Simulated games: random bots reach what heuristic ones avoid (cranes over anything, archives,
#: declined privileges and powers, empty piles), the draft start has its own stage.
def simulated_cases(bots: tuple[tuple[str, range], ...]) -> list[tuple[str, int, int, str, dict[str, bool]]]:
    """(game, players, seed, bot, options) for every game, player count and start, and each bot's seeds."""
    return [
        (game, players, seed, bot, options)
        for game, options_list in (("san_juan", ({}, {"draft_start": True})), ("puerto_rico", ({},)))
        if game in all_engines()
        for options in options_list
        for players in range(engine_for(game).min_players, engine_for(game).max_players + 1)
        for bot, seeds in bots
        for seed in seeds
    ]


SIMULATED = simulated_cases((("random", range(3)), ("mixed", range(3, 5))))


def _log(obj: dict[str, Any], file: str = "game.json") -> GameLog:
    return parse_game(obj, file=file, index=0)


def _logs(path: Path) -> list[GameLog]:
    out = []
    for record in read_records(path):
        assert record.error is None, record.error
        assert record.log is not None
        out.append(record.log)
    return out


def _outcome(run: Any) -> tuple[str, Any]:
    """What a replay gives: ``("state", final state)`` or ``("error", the error's record and type)``."""
    try:
        return "state", run()
    except GovernorError as err:
        return "error", (type(err).__name__, err.as_record(), str(err))


def _snapshot_path(log: GameLog) -> Any:
    *_, (state, _) = iter_replay(log, describe=False, steps=False)
    return state


def _both(log: GameLog) -> tuple[tuple[str, Any], tuple[str, Any]]:
    return _outcome(lambda: final_state(log)), _outcome(lambda: _snapshot_path(log))


class Tandem:
    """A working game and the pure ``apply`` side by side: every call goes to both, which must answer
    alike, raise alike, and whose states must be equal after every move and default."""

    def __init__(self, engine: Any, state: Any) -> None:
        self.engine = engine
        self.work = engine.working(state)
        self.pure = SnapshotWorking(engine, state)
        self.moves = 0

    def _both(self, name: str, *args: Any) -> Any:
        try:
            expected = getattr(self.pure, name)(*args)
        except Exception as err:
            with pytest.raises(type(err)) as raised:
                getattr(self.work, name)(*args)
            assert str(raised.value) == str(err)
            raise
        assert getattr(self.work, name)(*args) == expected, name
        return expected

    def current_seat(self) -> int | None:
        return self._both("current_seat")  # type: ignore[no-any-return]

    def is_over(self) -> bool:
        return self._both("is_over")  # type: ignore[no-any-return]

    def default_move(self) -> Any:
        return self._both("default_move")

    def apply(self, move: Any) -> None:
        self._both("apply", move)
        self.moves += 1
        assert self.work.snapshot() == self.pure.state, f"move {self.moves}: {move.text()}"

    def apply_default(self) -> None:
        self._both("apply_default")
        assert self.work.snapshot() == self.pure.state, f"default after move {self.moves}"


def _check_moves_one_by_one(log: GameLog) -> int:
    """Fold the log over a ``Tandem``. Returns the number of moves made."""
    engine = engine_for(log.game)
    tandem = Tandem(engine, engine.new_game(log))
    for _ in _fold(log, engine, tandem, True):
        pass
    return tandem.moves


def test_the_corpora_are_there() -> None:
    assert len(SAMPLES) >= 30 and len(BAD_LOGS) >= 60, (len(SAMPLES), len(BAD_LOGS))
    assert {log.game for path in SAMPLES for log in _logs(path)} == set(all_engines())


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_logs_same_final_state_and_same_snapshots(path: Path) -> None:
    for log in _logs(path):
        fast, slow = _both(log)
        assert fast[0] == "state", fast
        assert fast == slow
        assert _check_moves_one_by_one(log) == len(log.moves)


@pytest.mark.parametrize("game, players, seed, bot, options", SIMULATED)
def test_simulated_games_same_final_state_and_same_snapshots(
    game: str, players: int, seed: int, bot: str, options: dict[str, Any]
) -> None:
    log = _log(simulate_game(game, players, seed, bot, options))
    fast, slow = _both(log)
    assert fast[0] == "state", fast
    assert fast == slow
    _check_moves_one_by_one(log)


@pytest.mark.parametrize("path", BAD_LOGS, ids=lambda p: p.name)
def test_bad_logs_same_error(path: Path) -> None:
    (log,) = _logs(path)
    fast, slow = _both(log)
    assert fast[0] == "error"
    assert fast == slow


def _mutations(count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Sample games with one move dropped, duplicated, swapped or changed: mostly illegal, at every
    point of a game, so each rule's error is compared between the two paths."""
    rng = random.Random(seed)
    games = [(p.name, obj) for p in SAMPLES for obj in [_raw(p)]]
    values = ["Indigo plant", "Smithy", "Palace", "Crane", "Archive", "coffee", "silver", "builder", "councillor",
              "prospector", "trader", "mayor", "captain", 0, 1, 3, True, False, None, []]
    out = []
    for k in range(count):
        name, game = rng.choice(games)
        i, j = rng.randrange(len(game["moves"])), rng.randrange(len(game["moves"]))
        how = rng.choice(["drop", "duplicate", "swap", "alter", "alter", "seat"])
        if how == "seat":
            obj = copy.deepcopy(game)
            obj["moves"][i]["seat"] = rng.randrange(len(obj["players"]))
        else:
            obj = mutate(game, how, i, j, rng.choice(values))
        out.append((f"{name}-{how}-{k}", obj))
    return out


def _raw(path: Path) -> dict[str, Any]:
    import json

    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_logs_same_outcome(chunk: int) -> None:
    seen = {"state": 0, "error": 0}
    for name, obj in _mutations(150, seed=chunk):
        try:
            log = _log(obj, file=f"{name}.json")
        except GovernorError:
            continue
        fast, slow = _both(log)
        assert fast == slow, name
        seen[fast[0]] += 1
    # Most mutations break a rule; both paths must have been compared on errors.
    assert seen["error"] >= 50, seen


def test_final_state_without_a_working_hook_replays_through_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine without ``working`` (an older engine) is folded through its pure ``apply``."""
    log = _logs(SAMPLES[0])[0]
    engine = engine_for(log.game)
    expected = _snapshot_path(log)
    calls = []
    original = type(engine).apply

    def counting_apply(self: Any, state: Any, move: Any) -> Any:
        calls.append(move)
        return original(self, state, move)

    monkeypatch.setattr(type(engine), "working", property(lambda self: None))
    monkeypatch.setattr(type(engine), "apply", counting_apply)
    assert final_state(log) == expected
    assert len(calls) == len(log.moves)
