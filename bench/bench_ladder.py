"""The ladder, measured: random < heuristic < expert < search in every game and player count.

Each step of the ladder is one arena (``governor arena``'s round robin, one worker): one agent of the
stronger kind against ``players - 1`` of the weaker kind, seat-balanced (the arena's schedule puts
every agent in every seat equally often; the number of games is rounded up to a whole number of
cycles), reproducible from ``--seed`` (game ``k`` of an arena has the seed ``seed * 1_000_003 + k``
whatever part of a run plays it). Steps: heuristic against random, expert against heuristic, search
against expert, in every player count every registered game allows; ``search`` against three
experts at 4 players is the headline (par 25 %).

It takes hours on two cores, so it is **resumable and incremental**: games are played in batches,
each finished batch is appended to the results file (``bench/results_ladder.json``, replaced
atomically through ``replay.outputs``: an interruption loses at most the batch in progress), and a
rerun continues every arena where it stopped. The arena with the smallest share of its games played
goes next, the 4-player search arenas first among equals, so that a partial run covers every step.
Each game is stored with its seats, scores, ranks, win shares, time and decisions per seat and the
SHA-256 of its log: the leaderboard (win share, Wilson 95 % interval, OpenSkill rating, time per
decision) is rebuilt from them in game order, exactly as one ``governor arena`` run of all the games
would rank them::

    nice -n 19 python bench/bench_ladder.py                  # play (or continue) the whole ladder
    python bench/bench_ladder.py --max-batches 3             # three batches, then stop (rerun to go on)
    python bench/bench_ladder.py --only "4p search" --games 400
    python bench/bench_ladder.py --table                     # the table so far, as markdown
    python bench/bench_ladder.py --docs docs/ladder.md       # write it between the file's markers

A ``search`` changed since a results file was started (``play.agents.SEARCH_VERSION``, its prior, its
rollouts or its rollout bots) leaves the other steps valid: ``--new-search`` keeps them and plays the
search arenas again (the old ones are kept in the file's ``history``).

Exit status: 0 done (or the table printed); 2 a results file that cannot be read or continued (another
seed, another ``search`` without ``--new-search``), a results path or docs file that cannot be written, an ``--only`` that
names no arena; 130/143 interrupted (the batches finished so far are kept).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from governor.arena.leaderboard import Leaderboard, wilson  # noqa: E402
from governor.arena.play import GameRecord  # noqa: E402
from governor.arena.round_robin import ArenaError, run_arena  # noqa: E402
from play.agents import SEARCH_PRIOR, SEARCH_ROLLOUTS, SEARCH_VERSION, search_rollout_bot  # noqa: E402
from replay import exits  # noqa: E402
from replay.errors import printable  # noqa: E402
from replay.game import declarations  # noqa: E402
from replay.logfile import dumps_game  # noqa: E402
from replay.outputs import check_writable, write_bytes  # noqa: E402

RESULTS = ROOT / "bench" / "results_ladder.json"
#: The steps of the ladder: (stronger, weaker).
STEPS = (("heuristic", "random"), ("expert", "heuristic"), ("search", "expert"))
#: The headline arenas go first among equals: search against three experts.
HEADLINE_PLAYERS = 4
#: The markers in a docs file between which ``--docs`` writes the table.
BEGIN, END = "<!-- ladder-table:begin -->", "<!-- ladder-table:end -->"
FORMAT = 1


class LadderError(Exception):
    """The results file cannot be read or continued, or an option names nothing."""


@dataclass(frozen=True)
class Arena:
    """One step of the ladder at one player count."""

    game: str
    players: int
    strong: str
    weak: str

    @property
    def key(self) -> str:
        return f"{self.game} {self.players}p {self.strong} vs {self.weak}"

    @property
    def agents(self) -> list[str]:
        return [self.strong] + [self.weak] * (self.players - 1)

    def target(self, games: int) -> int:
        """``games`` rounded up to whole cycles of the schedule (one agent and copies of another:
        ``players`` seatings), so that every agent sits in every seat equally often."""
        return math.ceil(games / self.players) * self.players


def ladder(only: Sequence[str] = ()) -> list[Arena]:
    """Every arena of the ladder, in the order they are listed (game by game, player count, step),
    those whose key contains one of ``only`` when given. Raises ``LadderError`` when ``only`` keeps
    none."""
    arenas = [Arena(game.name, players, strong, weak)
              for game in sorted(declarations().values(), key=lambda g: (g.order, g.name))
              for players in range(game.min_players, game.max_players + 1)
              for strong, weak in STEPS]
    if only:
        arenas = [a for a in arenas if any(word in a.key for word in only)]
        if not arenas:
            raise LadderError(f"--only {' '.join(map(repr, only))}: no arena of the ladder matches")
    return arenas


def search_definition() -> dict[str, Any]:
    """What ``search`` is in this checkout: a results file continues only with the same."""
    return {"version": SEARCH_VERSION, "prior": SEARCH_PRIOR, "rollouts": SEARCH_ROLLOUTS,
            "rollout_bots": {name: search_rollout_bot(name) for name in sorted(declarations())}}


def new_results(seed: int) -> dict[str, Any]:
    return {"format": FORMAT, "benchmark": "ladder", "seed": seed, "search": search_definition(),
            "sessions": [], "runs": {}}


def load_results(path: Path, seed: int | None, new_search: bool = False) -> dict[str, Any]:
    """The results so far (a new, empty set when ``path`` does not exist). Raises ``LadderError``
    when the file cannot be read, is not a ladder's results, or was played with another seed or
    another ``search`` than this checkout's (continuing would mix two ladders), unless ``new_search``
    (``adopt_search``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return new_results(1 if seed is None else seed)
    except (OSError, UnicodeDecodeError) as err:
        raise LadderError(f"{printable(str(path))}: cannot read the results: {printable(str(err))}") from None
    try:
        results = json.loads(text)
    except ValueError as err:
        raise LadderError(f"{printable(str(path))}: not JSON ({printable(str(err))})") from None
    if not isinstance(results, dict) or results.get("benchmark") != "ladder" or results.get("format") != FORMAT \
            or not isinstance(results.get("runs"), dict) or not isinstance(results.get("seed"), int):
        raise LadderError(f"{printable(str(path))}: not the results of this ladder benchmark "
                          "(give another --results to start one)")
    if seed is not None and seed != results["seed"]:
        raise LadderError(f"{printable(str(path))}: played with --seed {results['seed']}, not {seed} "
                          "(give another --results to start a ladder of another seed)")
    if results.get("search") != search_definition():
        if not new_search:
            raise LadderError(f"{printable(str(path))}: its search was {json.dumps(results.get('search'))}, this "
                              f"checkout's is {json.dumps(search_definition())} (give another --results, or "
                              "--new-search to keep its arenas without search and play the search arenas again)")
        adopt_search(results)
    for key, run in results["runs"].items():
        indices = [g["index"] for g in run.get("games", [])] + list(run.get("unfinished", []))
        if sorted(indices) != list(range(len(indices))):
            raise LadderError(f"{printable(str(path))}: the games of {printable(key)!r} are not 0 to "
                              f"{len(indices) - 1} (a damaged file: give another --results)")
    return results


def adopt_search(results: dict[str, Any]) -> None:
    """Continue ``results`` with this checkout's ``search``: the arenas without it (random, heuristic and
    expert bots only) stay, as their games do not depend on it; the search arenas move to
    ``history`` with the search they were played with, to be played again."""
    moved = {key: run for key, run in results["runs"].items() if run.get("strong") == "search"}
    results.setdefault("history", []).append({
        "search": results.get("search"),
        "until": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "runs": moved})
    results["runs"] = {key: run for key, run in results["runs"].items() if key not in moved}
    results["search"] = search_definition()


def played(results: dict[str, Any], arena: Arena) -> int:
    """Games of ``arena`` played so far (finished or not)."""
    run = results["runs"].get(arena.key)
    return len(run["games"]) + len(run["unfinished"]) if run else 0


def next_arena(results: dict[str, Any], arenas: Sequence[Arena], games: int) -> Arena | None:
    """The arena to play a batch of next: the smallest share of its games played, headline first
    among equals, then in ladder order; None when every one is complete."""
    open_ = [a for a in arenas if played(results, a) < a.target(games)]
    if not open_:
        return None
    return min(open_, key=lambda a: (played(results, a) / a.target(games),
                                     not (a.strong == "search" and a.players == HEADLINE_PLAYERS),
                                     arenas.index(a)))


def game_row(index: int, record: GameRecord) -> dict[str, Any]:
    """What the results keep of one game: enough to rank it again, and its log's digest."""
    return {"index": index, "seated": [a["name"] for a in record.log["meta"]["agents"]],
            "scores": record.scores, "ranks": record.ranks, "shares": record.shares,
            "seconds": [round(s, 6) for s in record.seconds], "decisions": record.decisions,
            "faults": [[f.seat, f.kind] for f in record.faults],
            "log_sha256": hashlib.sha256(dumps_game(record.log).encode("utf-8")).hexdigest()}


def play_batch(results: dict[str, Any], arena: Arena, count: int) -> dict[str, Any]:
    """Play the next ``count`` games of ``arena`` (one worker) and add them to ``results``; what the
    batch took. Raises ``ArenaError`` as ``run_arena``."""
    seed = results["seed"]
    first = played(results, arena)
    rows: list[dict[str, Any]] = []
    unfinished: list[int] = []
    wall, cpu = time.perf_counter(), time.process_time()
    entries, _ = run_arena(arena.game, arena.players, arena.agents, count, seed, workers=1, first=first,
                           on_game=lambda index, record: rows.append(game_row(index, record)),
                           on_unfinished=lambda index, seated: unfinished.append(index))
    run = results["runs"].setdefault(arena.key, {
        "game": arena.game, "players": arena.players, "strong": arena.strong, "weak": arena.weak,
        "agents": arena.agents, "entries": [[e.name, e.spec, e.version] for e in entries],
        "command": (f"governor arena --game {arena.game} --players {arena.players} --agents "
                    f"{' '.join(arena.agents)} --games N --seed {seed} --workers 1"),
        "games": [], "unfinished": [], "batches": []})
    run["games"].extend(rows)
    run["unfinished"].extend(unfinished)
    batch = {"first": first, "games": count, "seconds": round(time.perf_counter() - wall, 1),
             "cpu_seconds": round(time.process_time() - cpu, 1),
             "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    run["batches"].append(batch)
    return batch


def save(path: Path, results: dict[str, Any]) -> None:
    """Replace the results file atomically (``replay.outputs``). Raises ``OSError``."""
    write_bytes(path, (json.dumps(results, indent=1) + "\n").encode("utf-8"))


def cpu_share(run: dict[str, Any], index: int) -> float:
    """The batch holding game ``index``: its CPU time over the wall-clock time its agents took to
    decide, at most 1. The arena plays on one worker, one thread: the rest is time spent waiting for a
    core that another program held, which is not the agents' doing. (The CPU time also counts the
    arena's own work between the decisions, so the share is if anything too high, never too low.)"""
    for batch in run["batches"]:
        if batch["first"] <= index < batch["first"] + batch["games"]:
            games = [g for g in run["games"] if batch["first"] <= g["index"] < batch["first"] + batch["games"]]
            deciding = sum(sum(g["seconds"]) for g in games)
            return min(1.0, batch["cpu_seconds"] / deciding) if deciding > 0 else 1.0
    return 1.0


def board_of(run: dict[str, Any]) -> Leaderboard:
    """The leaderboard of a run's games, rebuilt in game order (the ratings depend on the order). Each
    game's times are its agents' CPU time: the wall-clock time the arena measures, times its batch's
    ``cpu_share``."""
    board = Leaderboard([tuple(e) for e in run["entries"]], run["players"])  # type: ignore[misc]
    # A game that did not end is neither scored nor rated: only the finished ones, in game order.
    for game in sorted(run["games"], key=lambda g: g["index"]):
        share = cpu_share(run, game["index"])
        board.add(game["seated"], game["scores"], game["ranks"], game["shares"],
                  [tuple(f) for f in game["faults"]], [s * share for s in game["seconds"]],  # type: ignore[misc]
                  game["decisions"])
    board.unfinished_total = len(run["unfinished"])
    return board


def summary(run: dict[str, Any]) -> dict[str, Any]:
    """The stronger agent's win share, interval and rating against the weaker kind's, and each one's
    time per decision."""
    board = board_of(run)
    strong = board.standings[run["entries"][0][0]]
    weak = [s for name, s in board.standings.items() if name != strong.name]
    low, high = wilson(strong.wins, strong.games)
    seconds, decisions = sum(s.seconds for s in weak), sum(s.decisions for s in weak)
    return {"games": strong.games, "win_rate": strong.win_rate, "low": low, "high": high,
            "par": 1 / run["players"], "above_par": strong.games > 0 and low > 1 / run["players"],
            "ms_strong": strong.ms_per_decision, "ms_weak": 1000 * seconds / decisions if decisions else 0.0,
            "mu_strong": strong.mu, "sigma_strong": strong.sigma, "mu_weak": weak[0].mu, "sigma_weak": weak[0].sigma,
            "unfinished": len(run["unfinished"])}


def table(results: dict[str, Any], games: int) -> str:
    """The ladder as a markdown table, in ladder order (the arenas not started yet included)."""
    titles = {name: game.title for name, game in declarations().items()}
    search = results["search"]
    version = f" (version {search['version']})" if "version" in search else ""
    lines = [f"Seed {results['seed']}; `search`{version}: the {search['prior']}'s move unless the analysis' race "
             f"(at most {search['rollouts']} rollouts a candidate; rollouts by "
             + ", ".join(f"{titles.get(k, k)}'s {v} bot" for k, v in search["rollout_bots"].items())
             + ") finds one that beats it beyond chance.",
             "",
             "| Game | Players | Step | Games | Win share [Wilson 95 %] | Par | Above par | CPU ms / decision (stronger / weaker) "
             "| OpenSkill μ ± σ (stronger / weaker) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for arena in ladder():
        run = results["runs"].get(arena.key)
        step = f"{arena.strong} vs {arena.players - 1} {arena.weak}"
        title = titles.get(arena.game, arena.game)
        if not run or not run["games"]:
            lines.append(f"| {title} | {arena.players} | {step} | 0 of {arena.target(games)} | - | "
                         f"{1 / arena.players:.1%} | - | - | - |")
            continue
        s = summary(run)
        done = s["games"] + s["unfinished"]
        count = f"{done}" if done >= arena.target(games) else f"{done} of {arena.target(games)}"
        lines.append(
            f"| {title} | {arena.players} | {step} | {count} | {s['win_rate']:.1%} [{s['low']:.1%}, {s['high']:.1%}] | "
            f"{s['par']:.1%} | {'yes' if s['above_par'] else 'no'} | {s['ms_strong']:.2f} / {s['ms_weak']:.3f} | "
            f"{s['mu_strong']:.1f} ± {s['sigma_strong']:.1f} / {s['mu_weak']:.1f} ± {s['sigma_weak']:.1f} |")
    return "\n".join(lines)


def write_docs(path: Path, text: str) -> None:
    """Put ``text`` between the ``BEGIN`` and ``END`` markers of ``path``, atomically. Raises
    ``LadderError`` when the file cannot be read or lacks the markers, ``OSError`` when it cannot be
    written."""
    try:
        doc = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise LadderError(f"--docs {printable(str(path))}: cannot read it: {printable(str(err))}") from None
    start, stop = doc.find(BEGIN), doc.find(END)
    if start < 0 or stop < start:
        raise LadderError(f"--docs {printable(str(path))}: no {BEGIN} ... {END} markers to write between")
    write_bytes(path, (doc[: start + len(BEGIN)] + "\n" + text + "\n" + doc[stop:]).encode("utf-8"))


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--results", default=str(RESULTS), help="the results file, continued when it exists")
    parser.add_argument("--seed", type=exits.bounded_int("--seed", 0, 2**31), default=None,
                        help="the arenas' seed (default 1; an existing results file keeps its own)")
    parser.add_argument("--games", type=exits.bounded_int("--games", 1, 1_000_000), default=200,
                        help="games per arena at least (rounded up to whole seat cycles)")
    parser.add_argument("--batch", type=exits.bounded_int("--batch", 1, 100_000), default=20,
                        help="games per batch saved (rounded up to whole seat cycles)")
    parser.add_argument("--only", nargs="+", default=(), metavar="TEXT",
                        help="only the arenas whose name contains one of these (e.g. '4p search')")
    parser.add_argument("--max-batches", type=exits.bounded_int("--max-batches", 1, 1_000_000), default=None,
                        help="stop after this many batches (rerun to continue)")
    parser.add_argument("--new-search", action="store_true",
                        help="continue a results file of another search: keep its arenas without search, "
                             "move its search arenas to its history and play them again")
    parser.add_argument("--table", action="store_true", help="print the table of the results so far and stop")
    parser.add_argument("--docs", metavar="FILE", help="write the table between the file's ladder markers and stop")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Play (or continue) the ladder, or print its table. The exit status."""
    args = parse(argv)
    saved = exits.current_handlers()
    exits.stop_on_sigterm()
    try:
        return run(args)
    finally:
        # A caller running this in its own process (the tests) keeps its own handlers.
        exits.restore_handlers(saved)


def run(args: argparse.Namespace) -> int:
    """``main`` once the options are read and SIGTERM stops it. The exit status."""
    path = Path(args.results)
    try:
        arenas = ladder(args.only)
        results = load_results(path, None if args.table or args.docs else args.seed,
                               args.new_search and not (args.table or args.docs))
        if args.table or args.docs:
            text = table(results, args.games)
            if args.docs:
                write_docs(Path(args.docs), text)
            else:
                print(text)
            return exits.OK
        problem = check_writable(path)
        if problem is not None:
            raise LadderError(f"--results {printable(str(path))}: {problem}")
        results["sessions"].append({"started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                                    "machine": _machine()})
        batches = 0
        while args.max_batches is None or batches < args.max_batches:
            arena = next_arena(results, arenas, args.games)
            if arena is None:
                break
            first = played(results, arena)
            count = min(arena.target(args.batch), arena.target(args.games) - first)
            batch = play_batch(results, arena, count)
            save(path, results)
            batches += 1
            s = summary(results["runs"][arena.key])
            print(f"{arena.key}: games {first}-{first + count - 1} in {batch['seconds']} s; "
                  f"{s['games']} played, {arena.strong} {s['win_rate']:.1%} [{s['low']:.1%}, {s['high']:.1%}] "
                  f"(par {s['par']:.0%}), {s['ms_strong']:.2f} ms a decision", flush=True)
        print("the ladder is complete" if next_arena(results, arenas, args.games) is None else
              f"stopped after {batches} batch(es): rerun to continue", flush=True)
        return exits.OK
    except LadderError as err:
        print(f"bench_ladder: {err}", file=sys.stderr)
        return exits.ENVIRONMENT
    except ArenaError as err:
        print(f"bench_ladder: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except OSError as err:
        print(f"bench_ladder: {printable(str(path))}: cannot write the results: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except KeyboardInterrupt as err:
        word, status = exits.interruption(err)
        print(f"bench_ladder: {word}: the batch in progress is not saved; rerun to continue", file=sys.stderr)
        return status


def _machine() -> dict[str, Any]:
    """The machine and engines of this session (``bench.common``)."""
    from bench.common import machine

    return machine()


if __name__ == "__main__":
    sys.exit(main())
