"""The ``governor`` command: validate, replay, simulate, import, query, export, dashboard, golden, analyse."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from governor import __version__
from replay import exits

DEFAULT_DB = "governor.duckdb"


def default_db() -> str:
    """The database file: ``GOVERNOR_DB`` or ``governor.duckdb`` in the current folder."""
    return os.environ.get("GOVERNOR_DB") or DEFAULT_DB


# -- validate ----------------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    from replay.errors import GovernorError, InternalError
    from replay.logfile import find_logs, read_records
    from replay.replayer import final_state

    found = find_logs(args.paths)
    for problem in found.problems:
        print(f"governor validate: {problem}", file=sys.stderr)
    if found.problems and not found.files:
        return exits.ENVIRONMENT
    good = bad = bugs = 0
    for file in found.files:
        for record in read_records(file):
            error: GovernorError | None = record.error
            if error is None:
                assert record.log is not None
                try:
                    final_state(record.log)
                except GovernorError as err:
                    error = err
                except Exception as err:  # a bug: say so, and go on with the other games
                    traceback.print_exc()
                    error = InternalError(err, file=record.file, game_index=record.index)
            if isinstance(error, InternalError):
                bugs += 1
            if error is None:
                good += 1
                if args.verbose:
                    print(f"ok: {record.file}, game {record.index + 1}")
            else:
                bad += 1
                print(f"bad: {error.message}")
    print(f"{good} good, {bad} bad game(s) in {len(found.files)} file(s)", file=sys.stderr)
    if bugs:
        print(exits.report_request(f"{bugs} game(s) met a bug in governor"), file=sys.stderr)
    return exits.status(rejected=bool(bad), environment=bool(found.problems), bug=bool(bugs))


# -- replay ------------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    from replay.errors import GovernorError, printable
    from replay.logfile import display_name, read_records
    from replay.replayer import replay

    try:
        os.stat(args.log)
    except OSError as err:
        print(f"governor replay: {display_name(args.log)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    records = list(read_records(args.log))
    if not records:
        print(f"governor replay: {display_name(args.log)}: no game in the file", file=sys.stderr)
        return exits.REJECTED
    if not 1 <= args.game <= len(records):
        print(
            f"governor replay: {display_name(args.log)} holds {len(records)} game(s); --game {args.game} is out of range",
            file=sys.stderr,
        )
        return exits.ENVIRONMENT
    record = records[args.game - 1]
    if record.error is not None:
        print(f"governor replay: {record.error.message}", file=sys.stderr)
        return exits.REJECTED
    assert record.log is not None
    try:
        game = replay(record.log)
    except GovernorError as err:
        print(f"governor replay: {err.message}", file=sys.stderr)
        return exits.REJECTED
    total = len(game.steps)
    step = total if args.step is None else args.step
    if step < 0:
        step = total + 1 + step
    if not 0 <= step <= total:
        print(f"governor replay: --step must be from 0 to {total}, not {args.step}", file=sys.stderr)
        return exits.ENVIRONMENT
    state = game.state_at(step)
    names = record.log.players
    last = game.steps[step - 1].words if step else "(the start of the game)"
    # What the rules did by themselves after that move (forced loads, cards drawn by powers...).
    events = (
        game.engine.automatic_events(game.state_at(step - 1), game.steps[step - 1].move, state, names) if step else []
    )
    if args.json:
        view = game.engine.to_view(state, names)
        view["moves"] = total
        view["last_move"] = last
        view["last_move_events"] = events
        view["final_scores"] = [s.total for s in game.engine.scores(game.final)]
        view["final_winners"] = game.engine.winners(game.final)
        print(json.dumps(view, indent=1, ensure_ascii=False))
    else:
        print("\n".join(printable(line) for line in game.engine.render(state, names).split("\n")))
        print(f"\nLast move ({step}/{total}): {printable(last)}")
        for event in events:
            print(f"  then: {printable(str(event))}")
    return exits.OK


# -- simulate ----------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    from replay.registry import all_engines
    from replay.simulate import SimulationError, write_simulated

    engines = all_engines()
    if args.game not in engines:
        print(f"governor simulate: unknown game '{args.game}' (known: {', '.join(engines)})", file=sys.stderr)
        return 2
    engine = engines[args.game]
    counts = args.players or list(range(engine.min_players, engine.max_players + 1))
    for count in counts:
        if not engine.min_players <= count <= engine.max_players:
            print(
                f"governor simulate: {args.game} is for {engine.min_players} to {engine.max_players} players, not {count}",
                file=sys.stderr,
            )
            return 2
    options = {"draft_start": True} if args.draft else {}
    try:
        paths = write_simulated(
            Path(args.out), args.game, counts, args.games, args.seed, args.bot, jsonl=args.jsonl, gzip=args.gzip,
            options=options,
        )
    except SimulationError as err:
        print(f"governor simulate: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.games} game(s) to {len(paths)} file(s) in {args.out}", file=sys.stderr)
    return 0


# -- golden ------------------------------------------------------------------------------------


def cmd_golden(args: argparse.Namespace) -> int:
    from replay.golden import write_golden

    written = write_golden(Path(args.logs), Path(args.out))
    print(f"wrote {len(written)} golden file(s) to {args.out}", file=sys.stderr)
    return 0


# -- database commands (ingest) ----------------------------------------------------------------


def _target(args: argparse.Namespace) -> str:
    """The database file, or the lake folder or URL given with --lake."""
    lake = getattr(args, "lake", None)
    if lake and getattr(args, "db", None):
        raise SystemExit(f"governor {args.command}: give --db or --lake, not both")
    return lake or args.db or default_db()


def cmd_import(args: argparse.Namespace) -> int:
    from ingest.cli import run_import

    if args.cluster and not args.lake:
        raise SystemExit("governor import: --cluster writes a lake: give --lake DIR too")
    return run_import(args.paths, _target(args), workers=args.workers, progress=args.progress,
                      lake=bool(args.lake), cluster=args.cluster)


def cmd_query(args: argparse.Namespace) -> int:
    from ingest.query import run_query

    return run_query(args.sql, _target(args), args.format, args.out)


def cmd_export(args: argparse.Namespace) -> int:
    from ingest.export import run_export

    return run_export(_target(args), Path(args.parquet), games=args.games)


def cmd_dashboard(args: argparse.Namespace) -> int:
    from dashboards.launch import launch

    return launch(_target(args), port=args.port, headless=args.headless)


def cmd_native(args: argparse.Namespace) -> int:
    from replay import native

    if args.action == "build":
        native.build()  # a machine that cannot compile runs the pure-Python engines: not an error
        return exits.OK
    print(f"engines: {native.status}")
    return exits.OK


class _Commands:
    """Makes the subcommands' parsers, so that every ``--help`` ends with the exit statuses."""

    def __init__(self, commands: Any) -> None:
        self._commands = commands

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        kwargs.setdefault("epilog", exits.EPILOG)
        return self._commands.add_parser(name, **kwargs)  # type: ignore[no-any-return]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="governor",
        description="Replay, check, import and study San Juan and Puerto Rico game logs.",
        epilog=exits.EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"governor {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub = _Commands(commands)

    p = sub.add_parser("validate", help="check logs against the rules", description=(
        "Replay every game of the given files and folders (.json, .jsonl, .gz) and print one line per bad "
        "game: file, game, move number, player and reason. Exits 1 if any game is bad."))
    p.add_argument("paths", nargs="+", help="files, folders (searched recursively) or globs")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the good games")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("replay", help="show the state of a game after a step", description=(
        "Replay one game and show the state after step N (default: the end): each player's buildings, "
        "goods, hand, chapel and VP so far, the piles, the round, governor and roles taken, the last move."))
    p.add_argument("log", help="a log file (.json, .jsonl, .gz)")
    p.add_argument("--step", type=int, default=None, help="moves to replay (0 = the start; negative counts from the end)")
    p.add_argument("--game", type=int, default=1, help="which game of a .jsonl file (1-based, default 1)")
    p.add_argument("--json", action="store_true", help="print the state as JSON, with the final scores")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("simulate", help="generate complete games with bots", description=(
        "Write complete, reproducible games played by bots: the same seed gives the same bytes."))
    p.add_argument("--game", required=True, help="san_juan or puerto_rico")
    p.add_argument("--players", type=int, nargs="+", help="player count(s), cycled (default: every count)")
    p.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--bot", choices=["heuristic", "random", "mixed"], default="heuristic", help="who plays (default heuristic)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--jsonl", action="store_true", help="write one .jsonl file instead of one .json per game")
    p.add_argument("--gzip", action="store_true", help="gzip the output")
    p.add_argument("--draft", action="store_true", help="San Juan: use the draft-start variant")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("golden", help="regenerate golden files of sample games", description=(
        "Write, for each log under LOGS, a text file with every move in words and the scores after it."))
    p.add_argument("--logs", default="sample_logs", help="folder of logs (default sample_logs)")
    p.add_argument("--out", default="tests/golden", help="output folder (default tests/golden)")
    p.set_defaults(func=cmd_golden)

    p = sub.add_parser("import", help="import logs into the DuckDB database", description=(
        "Replay and store games from files, folders (recursively) and globs (.json, .jsonl, .gz). Games "
        "already present are skipped; bad games are recorded in the rejections table. Exits 1 if any "
        "game was rejected."))
    p.add_argument("paths", nargs="+", help="files, folders or globs")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--workers", type=int, default=None, help="replay processes (default: the number of cores)")
    p.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                   help="progress bar (default: when writing to a terminal)")
    p.add_argument("--lake", metavar="DIR", help="write Parquet files into a lake folder or URL instead of a database file")
    p.add_argument("--cluster", metavar="ENGINE", help=(
        "with --lake: run on a cluster: local (a local Dask cluster of --workers processes), dask://ADDR or "
        "ray://ADDR (an existing cluster; needs pip install 'governor[cluster]')"))
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("query", help="run SQL against the database", description=(
        "Run one SQL statement that reads (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE) and print the "
        "result, or write it to a file. Anything else (COPY, EXPORT, ATTACH, SET, several statements) is "
        "refused; the connection is read-only and cannot reach files."))
    p.add_argument("sql", help="one SQL statement that reads")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table", help="output format")
    p.add_argument("--out", help="write to this file instead of standard output (required for parquet)")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("export", help="export every table as Parquet", description=(
        "Write every table of the database as a Parquet file in DIR (and, with --games, the original "
        "logs as one .jsonl file)."))
    p.add_argument("--parquet", required=True, metavar="DIR", help="output folder")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--games", action="store_true", help="also write the original logs to DIR/games.jsonl")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("dashboard", help="open the Streamlit dashboard", description=(
        "Start the dashboard on the database (default: $GOVERNOR_DB or governor.duckdb)."))
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.add_argument("--headless", action="store_true", help="do not open a browser")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=cmd_dashboard)

    p = sub.add_parser("native", help="the compiled engines: which are used, or build them", description=(
        "Say whether the rules engines run compiled (mypyc) or as pure Python, and why; with 'build', compile "
        "them (setup does). They are used automatically while they match the sources; GOVERNOR_PURE=1 turns "
        "them off."))
    p.add_argument("action", nargs="?", choices=["status", "build"], default="status")
    p.set_defaults(func=cmd_native)

    from analysis.cli import add_parser as add_analyse

    add_analyse(sub, default_db)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``governor`` command; returns the exit status (see ``replay.exits``)."""
    try:
        # Inside the try: Ctrl-C while the subcommands' modules load is an interruption too.
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("governor: interrupted", file=sys.stderr)
        return exits.INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (``| head``): nothing more to say, and no one to say it to.
        sys.stderr.close()
        return exits.OK
    except OSError as err:
        # The environment refused: a folder that cannot be written, a full disk.
        name = f"{err.filename}: " if err.filename else ""
        from replay.errors import printable

        print(f"governor: {printable(name + (err.strerror or str(err)))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except Exception:
        traceback.print_exc()
        print(exits.report_request("the command stopped"), file=sys.stderr)
        return exits.BUG


if __name__ == "__main__":
    sys.exit(main())
