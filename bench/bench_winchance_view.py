"""What the win-chance graph adds to opening a game on the Replay page, per sample game:

    python bench/bench_winchance_view.py [--repeat 5]

For the longest sample game of each game and player count: the model's first load (once per server
process, then cached), the replay of the game's states, and each view's chances (the whole view, one
seat's view), the median of ``--repeat`` runs, in milliseconds. The page computes these once per game
and view and caches them; the whole view is read from the ``win_chance`` table instead when the
database holds it (``governor winchance --db``). The budget is 200 ms added to opening a game."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from analysis.winchance.model import load
from analysis.winchance.series import viewer_series
from replay.log_reader import read_game
from replay.protocol import Viewer
from replay.registry import engine_for
from replay.replayer import iter_replay

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _ms(start: float) -> float:
    return round(1000 * (time.perf_counter() - start), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    longest: dict[tuple[str, int], tuple[int, Path]] = {}
    for path in sorted(SAMPLES.glob("*/*.json")):
        record, _ = read_game(str(path), 1)
        if record is None or record.log is None:
            continue
        key = (record.log.game, len(record.log.players))
        if len(record.log.moves) > longest.get(key, (-1, path))[0]:
            longest[key] = (len(record.log.moves), path)
    for (game, players), (moves, path) in sorted(longest.items()):
        start = time.perf_counter()
        model = load(game, players)
        first_load = _ms(start)
        record, _ = read_game(str(path), 1)
        assert record is not None and record.log is not None
        log = record.log
        engine = engine_for(game)
        replay, whole, seat = [], [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
            replay.append(_ms(start))
            start = time.perf_counter()
            viewer_series(model, engine, states, Viewer.everything())
            whole.append(_ms(start))
            start = time.perf_counter()
            viewer_series(model, engine, states, Viewer.of_seat(0))
            seat.append(_ms(start))
        print(f"{path.name}: {moves} moves; model load {first_load} ms (once); replay {statistics.median(replay)} ms; "
              f"whole view {statistics.median(whole)} ms; seat view {statistics.median(seat)} ms")


if __name__ == "__main__":
    main()
