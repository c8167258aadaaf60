"""Run by tests/replay/test_native.py in a process of its own, once with the compiled engines and once with
``GOVERNOR_PURE=1``: prints, as JSON, which path ran and a digest of everything the engines answered,
section by section, so that the two runs can be compared.

    python tests/replay/native_probe.py [--quick]
"""

from __future__ import annotations

import hashlib
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from replay import native  # noqa: E402
from replay.errors import GovernorError  # noqa: E402
from replay.golden import render_golden  # noqa: E402
from replay.log_reader import read_records  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.registry import engine_for  # noqa: E402
from replay.replayer import final_state, replay  # noqa: E402
from replay.simulate import simulate_game  # noqa: E402
from tests.replay.test_mutations import NAMES, mutate  # noqa: E402


class Digest:
    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.count = 0

    def add(self, *parts: Any) -> None:
        self.hash.update(repr(parts).encode() + b"\n")
        self.count += 1

    def result(self) -> dict[str, Any]:
        return {"items": self.count, "sha256": self.hash.hexdigest()}


def _outcome(log: Any) -> tuple[Any, ...]:
    """What validation says of a log: the error (kind, message, rule, move) or the final scores."""
    try:
        state = final_state(log)
    except GovernorError as err:
        return (type(err).__name__, str(err), getattr(err, "rule", None), getattr(err, "move_number", None))
    engine = engine_for(log.game)
    return ("ok", repr(engine.scores(state)), engine.winners(state))


def main() -> None:
    quick = "--quick" in sys.argv
    out: dict[str, Any] = {"status": native.status}
    samples = sorted((ROOT / "sample_logs").glob("*/*.json*"))
    logs = [record.log for path in samples for record in read_records(path)]

    # Every sample replayed step by step: the moves in words and the scores after each (golden text),
    # the legal moves of every 5th state, and the final state's pickle round trip.
    section = Digest()
    for log in logs:
        section.add(render_golden(log))
        engine = engine_for(log.game)
        for k, step in enumerate(replay(log).steps):
            if k % 5 == 0:
                section.add(k, [move.text() for move in engine.legal_moves(step.state)])
        state = final_state(log)
        section.add(pickle.loads(pickle.dumps(state)) == state)
    out["samples"] = section.result()

    # Games played by every bot, both games, every player count: the bots and the rules together.
    section = Digest()
    for game, counts in (("san_juan", (2, 3, 4)), ("puerto_rico", (3, 4, 5))):
        for players in counts:
            for bot in ("heuristic", "random", "mixed"):
                for seed in range(1 if quick else 3):
                    section.add(json.dumps(simulate_game(game, players, seed, bot), sort_keys=True))
    out["simulated"] = section.result()

    # Bad logs and mutated samples: the same error (kind, message, rule, move number) or the same result.
    section = Digest()
    for path in sorted((ROOT / "tests" / "replay" / "bad_logs" / "logs").iterdir()):
        for record in read_records(path):
            section.add(path.name, str(record.error) if record.error else _outcome(record.log))
    rng = random.Random(5)
    raw = [json.loads(path.read_text(encoding="utf-8")) for path in samples if path.suffix == ".json"]
    for _ in range(150 if quick else 600):
        game = rng.choice(raw)
        how = rng.choice(["drop", "swap", "dup", "field"])
        i, j = rng.randrange(len(game["moves"])), rng.randrange(len(game["moves"]))
        mutated = mutate(game, how, i, j, rng.choice(NAMES))
        try:
            log = parse_game(mutated)
        except GovernorError as err:
            section.add("format", str(err))
            continue
        section.add(_outcome(log))
    out["errors"] = section.result()

    # A short analysis of one game of each: determinisation, rollouts by the bots, the estimates.
    section = Digest()
    for sample in ("san_juan/san_juan-3p-seed2026-0001.json", "puerto_rico/puerto_rico-3p-seed2026-0000.json"):
        path = ROOT / "sample_logs" / sample
        if not path.exists():
            path = sorted((ROOT / "sample_logs" / sample.split("/")[0]).glob("*.json"))[0]
        result = subprocess.run(
            [sys.executable, "-m", "governor.cli", "analyse", str(path), "--steps", "1:12", "--rollouts", "3",
             "--seed", "1", "--workers", "2", "--json"],
            capture_output=True, text=True, cwd=ROOT)
        if result.returncode != 0 or not result.stdout:
            raise SystemExit(f"governor analyse {path.name} failed ({result.returncode}): {result.stderr[-2000:]}")
        section.add(result.stdout)
    out["analysis"] = section.result()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
