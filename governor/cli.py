"""The ``governor`` command: validate, replay, simulate, import, query, export, dashboard, golden, schema,
analyse, arena, play, native."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from governor import __version__
from replay import exits
from replay.errors import printable
from replay.exits import UsageError, bounded_int
from replay.game import GameDeclarationError

DEFAULT_DB = "governor.duckdb"

#: The largest count a command takes where the only bound is what a machine can hold (a game's number
#: in a ``.jsonl`` file, a step): 2**31 - 1.
MAX_COUNT = 2**31 - 1
#: Worker processes of ``import`` and ``analyse``.
MAX_WORKERS = 256


def default_db() -> str:
    """The database file: ``GOVERNOR_DB`` or ``governor.duckdb`` in the current folder."""
    return os.environ.get("GOVERNOR_DB") or DEFAULT_DB


def shown(path: str | Path) -> str:
    """A path as printed: control characters and undecodable bytes escaped (``\\n``, ``\\x1b``, ``\\xff``)."""
    return printable(os.fsdecode(path))


def print_traceback() -> None:
    """The current exception's traceback on standard error, each line escaped: a bug's message may
    quote a log (a card name holding an escape code), which must not reach the terminal raw."""
    for line in traceback.format_exc().splitlines():
        print(printable(line), file=sys.stderr)


# -- outputs never overwrite inputs -------------------------------------------------------------


def _same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode where both exist, else the same real path
    (symbolic links resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies under ``folder`` (real paths)."""
    return os.path.realpath(path).startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep)


def _is_url(target: str) -> bool:
    return "://" in target


def refuse_overwrite(option: str, out: str, *, files: Sequence[tuple[str, str]] = (),
                     folders: Sequence[tuple[str, str]] = (), contained: Sequence[tuple[str, str]] = ()) -> None:
    """Raise ``UsageError`` when the output ``out`` would overwrite an input: it names one of ``files``
    (what, path), is or lies inside one of ``folders``, or is a folder holding one of ``contained``."""
    for what, path in files:
        if _same(out, path):
            raise UsageError(f"{option} {shown(out)} is {what} {shown(path)}: an output never overwrites an input")
    for what, path in folders:
        if _same(out, path) or _inside(out, path):
            raise UsageError(f"{option} {shown(out)} is in {what} {shown(path)}: an output never overwrites an input")
    for what, path in contained:
        if os.path.lexists(path) and _inside(path, out):
            raise UsageError(f"{option} {shown(out)} holds {what} {shown(path)}: an output never overwrites an input")


def _database_inputs(target: str, lake: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The files and folders a database command reads: the database and its write-ahead log, or the lake."""
    if lake:
        return [], ([] if _is_url(target) else [("the lake", target)])
    return [("the database", target), ("the database's write-ahead log", target + ".wal")], []


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
                    print_traceback()
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


def fold_to(log: Any, step: int | None) -> tuple[int, int, Any, Any, Any, Any]:
    """Replay ``log`` keeping only the states the step asked needs (a fold, not a list of every state):
    returns (total moves, the step (negative and None resolved; -1 when out of range), the state before
    it, the state at it, its move, the final state). Raises what ``iter_replay`` raises."""
    from replay.replayer import iter_replay

    # Every state from ``keep`` steps before the end, for a step counted from the end; else the two
    # states around the step asked.
    keep = (-step + 2) if step is not None and step < 0 else 2
    window: deque[tuple[Any, Any]] = deque(maxlen=keep)
    wanted: tuple[Any, Any, Any] | None = None
    previous: Any = None
    total = 0
    for state, item in iter_replay(log, describe=False):
        if item is not None:
            total = item.number
        move = item.move if item is not None else None
        if step is not None and step >= 0 and total == step and wanted is None:
            wanted = (previous, state, move)
        if step is None or step < 0:
            window.append((state, move))
        previous = state
    final = previous
    if step is None or step < 0:
        at = total if step is None else total + 1 + step
        if not 0 <= at <= total:
            return total, -1, None, None, None, final
        states = list(window)
        index = len(states) - 1 - (total - at)
        before = states[index - 1][0] if index > 0 else None
        return total, at, before, states[index][0], states[index][1], final
    if wanted is None:
        return total, -1, None, None, None, final
    return total, step, wanted[0], wanted[1], wanted[2], final


def cmd_replay(args: argparse.Namespace) -> int:
    from replay.errors import GovernorError
    from replay.logfile import read_game
    from replay.registry import engine_for

    try:
        os.stat(args.log)
    except OSError as err:
        print(f"governor replay: {shown(args.log)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    record, count = read_game(args.log, args.game)
    if record is None and count == 0:
        print(f"governor replay: {shown(args.log)}: no game in the file", file=sys.stderr)
        return exits.REJECTED
    if record is None:
        print(f"governor replay: {shown(args.log)} holds {count} game(s); --game {args.game} is out of range",
              file=sys.stderr)
        return exits.ENVIRONMENT
    if record.error is not None:
        print(f"governor replay: {record.error.message}", file=sys.stderr)
        return exits.REJECTED
    assert record.log is not None
    log = record.log
    try:
        total, step, before, state, move, final = fold_to(log, args.step)
    except GovernorError as err:
        print(f"governor replay: {err.message}", file=sys.stderr)
        return exits.REJECTED
    if step < 0:
        print(f"governor replay: --step must be from 0 to {total}, not {args.step}", file=sys.stderr)
        return exits.ENVIRONMENT
    engine = engine_for(log.game)
    names = log.players
    last = engine.describe_move(before, move, names) if step else "(the start of the game)"
    # What the rules did by themselves after that move (forced loads, cards drawn by powers...).
    events = engine.automatic_events(before, move, state, names) if step else []
    if args.json:
        view = engine.to_view(state, names)
        view["moves"] = total
        view["last_move"] = last
        view["last_move_events"] = events
        view["final_scores"] = [s.total for s in engine.scores(final)]
        view["final_winners"] = engine.winners(final)
        print(json.dumps(view, indent=1, ensure_ascii=False))
    else:
        print("\n".join(printable(line) for line in engine.render(state, names).split("\n")))
        print(f"\nLast move ({step}/{total}): {printable(last)}")
        for event in events:
            print(f"  then: {printable(str(event))}")
    return exits.OK


# -- simulate ----------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    from replay.registry import all_engines
    from replay.simulate import SimulationError, stream_simulated

    engines = all_engines()
    if args.game not in engines:
        raise UsageError(f"unknown game {printable(repr(args.game))} (known: {', '.join(engines)})")
    engine = engines[args.game]
    counts = args.players or list(range(engine.min_players, engine.max_players + 1))
    for count in counts:
        if not engine.min_players <= count <= engine.max_players:
            raise UsageError(f"{args.game} is for {engine.min_players} to {engine.max_players} players, not {count}")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {shown(args.out)} is a file, not a folder: an output never overwrites an input")
    options = {"draft_start": True} if args.draft else {}
    files = 0
    try:
        for _ in stream_simulated(Path(args.out), args.game, counts, args.games, args.seed, args.bot,
                                  jsonl=args.jsonl, gzip=args.gzip, options=options):
            files += 1
    except SimulationError as err:
        print(f"governor simulate: {printable(str(err))}", file=sys.stderr)
        return exits.REJECTED
    except KeyboardInterrupt as err:
        word, code = exits.interruption(err)
        kept = "" if args.jsonl else f"; the {files} file(s) written are complete"
        print(f"governor simulate: {word}{kept}", file=sys.stderr)
        return code
    print(f"wrote {args.games} game(s) to {files} file(s) in {shown(args.out)}", file=sys.stderr)
    return exits.OK


# -- golden ------------------------------------------------------------------------------------


def cmd_golden(args: argparse.Namespace) -> int:
    from replay.golden import write_golden

    if os.path.lexists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {shown(args.out)} is a file, not a folder: an output never overwrites an input")
    refuse_overwrite("--out", args.out, files=[("the folder of the logs (--logs)", args.logs)])
    if not os.path.isdir(args.logs):
        raise UsageError(f"--logs {shown(args.logs)}: no such folder")
    problems: list[str] = []
    written = write_golden(Path(args.logs), Path(args.out), problems=problems)
    for problem in problems:
        print(f"bad: {problem}")
    print(f"wrote {len(written)} golden file(s) to {shown(args.out)}", file=sys.stderr)
    return exits.REJECTED if problems else exits.OK


# -- schema ------------------------------------------------------------------------------------


def _holds_a_schema(path: str) -> bool:
    """Whether the file at ``path`` is a regular file that starts as a JSON Schema does (so that writing
    the schema again over it loses nothing): a database, a log or a user's notes are not."""
    try:
        if not os.path.isfile(path) or os.path.islink(path):
            return False
        with open(path, "rb") as handle:
            head = handle.read(200)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and b'"$schema"' in head


def cmd_schema(args: argparse.Namespace) -> int:
    from replay.log_schema import schema_text
    from replay.outputs import write_bytes

    text = schema_text()
    if args.out is None:
        sys.stdout.write(text)
        return exits.OK
    if os.path.isdir(args.out):
        raise UsageError(f"--out {shown(args.out)} is a folder, not a file")
    if os.path.lexists(args.out) and not _holds_a_schema(args.out):
        raise UsageError(f"--out {shown(args.out)} holds something else than a JSON Schema: an output never "
                         "overwrites another file")
    try:
        # A new file renamed over the old one once complete: a failure (a full disk) keeps the old one.
        write_bytes(args.out, text.encode("utf-8"))
    except OSError as err:
        raise UsageError(f"--out {shown(args.out)}: cannot write: {err.strerror or err}") from None
    print(f"wrote the log schema to {shown(args.out)}", file=sys.stderr)
    return exits.OK


# -- database commands (ingest) ----------------------------------------------------------------


def _target(args: argparse.Namespace) -> str:
    """The database file, or the lake folder or URL given with --lake. Raises ``UsageError`` for both."""
    lake = getattr(args, "lake", None)
    if lake and getattr(args, "db", None):
        raise UsageError("give --db or --lake, not both")
    return str(lake or args.db or default_db())


def check_lake(target: str) -> None:
    """Raise ``UsageError`` saying what is wrong with a local ``--lake`` folder: missing, not a folder,
    unreadable, or not a lake. A URL is checked when it is read."""
    from ingest.lake import LAKE_MARK

    if _is_url(target):
        return
    name = f"--lake {shown(target)}"
    try:
        info = os.stat(target)
    except OSError as err:
        reason = "no such folder" if isinstance(err, FileNotFoundError) else f"cannot read it: {err.strerror or err}"
        raise UsageError(f"{name}: {reason}") from None
    import stat

    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{name}: not a folder (a lake is a folder made by governor import --lake)")
    try:
        with os.scandir(target):
            pass
        with open(os.path.join(target, LAKE_MARK), "rb"):
            pass
    except FileNotFoundError:
        raise UsageError(f"{name}: not a Governor lake (no {LAKE_MARK}; make one with governor import --lake)") from None
    except OSError as err:
        raise UsageError(f"{name}: cannot read the lake: {err.strerror or err}") from None


_CLUSTERS = ("local", "dask://", "ray://")


def cmd_import(args: argparse.Namespace) -> int:
    from ingest.cli import run_import

    if args.cluster is not None:
        if not args.lake:
            raise UsageError("--cluster writes a lake: give --lake DIR too")
        if args.cluster != "local" and not args.cluster.startswith(_CLUSTERS[1:]):
            raise UsageError(f"--cluster expects local, dask://ADDR or ray://ADDR, not {printable(repr(args.cluster))}")
    return run_import(args.paths, _target(args), workers=args.workers, progress=args.progress,
                      lake=bool(args.lake), cluster=args.cluster)


def cmd_query(args: argparse.Namespace) -> int:
    # Ctrl-C and SIGTERM wait while DuckDB's module loads (exits.signals_deferred says why).
    with exits.signals_deferred():
        from ingest.query import run_query

    target = _target(args)
    if args.lake:
        check_lake(target)
    if args.out is not None:
        files, folders = _database_inputs(target, bool(args.lake))
        refuse_overwrite("--out", args.out, files=files, folders=folders)
        if os.path.isdir(args.out):
            raise UsageError(f"--out {shown(args.out)} is a folder: name a file")
    return run_query(args.sql, target, args.format, args.out)


def cmd_export(args: argparse.Namespace) -> int:
    from ingest.export import run_export

    target = _target(args)
    if args.lake:
        check_lake(target)
    files, folders = _database_inputs(target, bool(args.lake))
    refuse_overwrite("--parquet", args.parquet, files=files, folders=folders, contained=files)
    if os.path.lexists(args.parquet) and not os.path.isdir(args.parquet):
        raise UsageError(f"--parquet {shown(args.parquet)} is a file, not a folder")
    return run_export(target, Path(args.parquet), games=args.games)


def cmd_dashboard(args: argparse.Namespace) -> int:
    from dashboards.launch import launch

    return launch(_target(args), port=args.port, headless=args.headless)


def cmd_play(args: argparse.Namespace) -> int:
    from governor.play_cli import run

    return run(args, str(args.db or default_db()))


def cmd_native(args: argparse.Namespace) -> int:
    from replay import native

    if args.action == "build":
        native.build()  # a machine that cannot compile runs the pure-Python engines: not an error
        return exits.OK
    print(f"engines: {native.status}")
    return exits.OK


class _Parser(argparse.ArgumentParser):
    """A usage error is one line naming the command, the option and what is allowed, and exit status 2
    (``argparse`` prints the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {printable(message)} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(exits.ENVIRONMENT)


class _Commands:
    """Makes the subcommands' parsers, so that every ``--help`` ends with the exit statuses."""

    def __init__(self, commands: Any) -> None:
        self._commands = commands

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        kwargs.setdefault("epilog", exits.EPILOG)
        return self._commands.add_parser(name, **kwargs)  # type: ignore[no-any-return]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from replay.simulate import MAX_GAMES, MAX_SEED

    parser = _Parser(
        prog="governor",
        description="Replay, check, import and study San Juan and Puerto Rico game logs.",
        epilog=exits.EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"governor {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    sub = _Commands(commands)
    workers = bounded_int("--workers", 1, MAX_WORKERS)

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
    p.add_argument("--step", type=bounded_int("--step", -MAX_COUNT, MAX_COUNT), default=None,
                   help="moves to replay (0 = the start; negative counts from the end)")
    p.add_argument("--game", type=bounded_int("--game", 1, MAX_COUNT), default=1,
                   help="which game of a .jsonl file (1-based, default 1)")
    p.add_argument("--json", action="store_true", help="print the state as JSON, with the final scores")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("simulate", help="generate complete games with bots", description=(
        "Write complete, reproducible games played by bots: the same seed gives the same bytes. Each game "
        "is written as soon as it is played."))
    p.add_argument("--game", required=True, help="san_juan or puerto_rico")
    p.add_argument("--players", type=bounded_int("--players", 1, 99), nargs="+",
                   help="player count(s), cycled (default: every count)")
    p.add_argument("--games", type=bounded_int("--games", 1, MAX_GAMES), default=10,
                   help=f"how many games (default 10, at most {MAX_GAMES:,})")
    p.add_argument("--seed", type=bounded_int("--seed", 0, MAX_SEED), default=1,
                   help=f"random seed, 0 to {MAX_SEED:,} (default 1)")
    p.add_argument("--bot", choices=["heuristic", "random", "mixed"], default="heuristic", help="who plays (default heuristic)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--jsonl", action="store_true", help="write one .jsonl file instead of one .json per game")
    p.add_argument("--gzip", action="store_true", help="gzip the output")
    p.add_argument("--draft", action="store_true", help="San Juan: use the draft-start variant")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("golden", help="regenerate golden files of sample games", description=(
        "Write, for each log under LOGS, a text file with every move in words and the scores after it. "
        "A bad log is one line (exit status 1) and the others are written."))
    p.add_argument("--logs", default="sample_logs", help="folder of logs (default sample_logs)")
    p.add_argument("--out", default="tests/replay/golden", help="output folder (default tests/replay/golden)")
    p.set_defaults(func=cmd_golden)

    p = sub.add_parser("schema", help="print the JSON Schema of the log format", description=(
        "Print the JSON Schema (draft 2020-12) of a log of any game Governor knows: the shared envelope and "
        "each game's setup, options and moves. It checks a log's shape; `governor validate` checks the rules."))
    p.add_argument("--out", default=None, help="write it to this file instead of standard output")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("import", help="import logs into the DuckDB database", description=(
        "Replay and store games from files, folders (recursively) and globs (.json, .jsonl, .gz). Games "
        "already present are skipped; bad games are recorded in the rejections table. Exits 1 if any "
        "game was rejected."))
    p.add_argument("paths", nargs="+", help="files, folders or globs")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--workers", type=workers, default=None,
                   help=f"replay processes, 1 to {MAX_WORKERS} (default: the number of cores)")
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
        "refused; the connection is read-only and cannot reach files. Memory and spill space are bounded "
        "(README, Reading limits)."))
    p.add_argument("sql", help="one SQL statement that reads")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table", help=(
        "output format; JSON writes NaN and infinities as null and BLOBs as base64 strings"))
    p.add_argument("--out", help="write to this file instead of standard output (required for parquet); never an input")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("export", help="export every table as Parquet", description=(
        "Write every table of the database as a Parquet file in DIR (and, with --games, the original "
        "logs as one .jsonl file)."))
    p.add_argument("--parquet", required=True, metavar="DIR", help="output folder (neither the lake nor one holding the database)")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--games", action="store_true", help="also write the original logs to DIR/games.jsonl")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("dashboard", help="open the Streamlit dashboard", description=(
        "Start the dashboard on the database (default: $GOVERNOR_DB or governor.duckdb)."))
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--port", type=bounded_int("--port", 1, 65535), default=8501, help="port, 1 to 65535 (default 8501)")
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

    add_analyse(sub, default_db, workers)

    from governor.arena.cli import add_arguments as add_arena
    from governor.arena.cli import run as run_arena

    p = sub.add_parser("arena", help="agents play each other: every game recorded, then ranked", description=(
        "A seat-balanced round robin of agents (built-in or your own) on the engines; each game written as "
        "a log (and imported with --db), then a leaderboard. See docs/agents.md."))
    add_arena(p)
    p.set_defaults(func=run_arena)

    from governor.play_cli import add_arguments as add_play

    p = sub.add_parser("play", help="play a game against the bots in this terminal", description=(
        "Play San Juan or Puerto Rico against bots (or several people at one screen: --human), one move at a "
        "time: the game's state as your seat sees it, your legal moves numbered; type a number or a move as "
        "listed, undo (take back your last move, against bots) or quit (the game is kept: --resume ID). Every "
        "move is on disk before it is shown; the finished game is stored in the database. Input may come from a "
        "pipe, a line at a time."))
    add_play(p, DEFAULT_DB)
    p.set_defaults(func=cmd_play)
    return parser


#: The subcommands' names (``analyze`` is ``analyse``'s alias).
COMMANDS = frozenset({"validate", "replay", "simulate", "golden", "schema", "import", "query", "export", "dashboard", "native",
                      "analyse", "analyze", "arena", "play"})


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``governor`` command; returns the exit status (see ``replay.exits``)."""
    words = list(sys.argv[1:] if argv is None else argv)
    # Named before parsing: a signal may come while the command's modules load.
    command = f"governor {words[0]}" if words and words[0] in COMMANDS else "governor"
    # A program that runs a command in its own process (a test, a notebook) gets its handlers back.
    saved = exits.current_handlers() if argv is not None else None

    def stopped(err: BaseException) -> int:
        word, code = exits.interruption(err)
        if argv is None:  # the process's own command: it is ending (a caller passing argv keeps its handlers)
            exits.ignore_further_signals()
        print(f"{command}: {word}", file=sys.stderr)
        return code

    try:
        try:
            exits.stop_on_sigterm()
            # Inside the try: Ctrl-C while the subcommands' modules load is an interruption too.
            args = build_parser().parse_args(argv)
            status = int(args.func(args) or 0)
        except UsageError as err:
            print(f"{command}: {printable(str(err))}", file=sys.stderr)
            status = exits.ENVIRONMENT
        except GameDeclarationError as err:
            # The installation is at fault (a game's package, or metadata older than the checkout), not
            # the input: one line naming the entry point and its distribution, or saying to run the setup.
            print(f"{command}: {printable(str(err))}", file=sys.stderr)
            status = exits.ENVIRONMENT
        except SystemExit as err:
            if isinstance(err.code, str):  # a usage error a lower layer could only stop on
                print(printable(err.code), file=sys.stderr)
                status = exits.ENVIRONMENT
            else:
                status = int(err.code or 0)
        except BrokenPipeError:
            # The reader of our output went away (``| head``): nothing more to say, and no one to say it to.
            sys.stderr.close()
            status = exits.OK
        except OSError as err:
            # The environment refused: a folder that cannot be written, a full disk.
            name = f"{os.fsdecode(err.filename)}: " if err.filename else ""
            print(f"{command}: {printable(name + (err.strerror or str(err)))}", file=sys.stderr)
            status = exits.ENVIRONMENT
        except Exception as err:
            if exits.signalled():
                # A library turned the interruption into an error of its own (DuckDB, inside an Arrow scan).
                return stopped(err)
            print_traceback()
            print(exits.report_request("the command stopped"), file=sys.stderr)
            status = exits.BUG
        if argv is None:
            # The status is decided: Ctrl-C or SIGTERM from here on, as the interpreter exits, changes
            # nothing. One a moment before is an interruption, caught below like any other.
            exits.ignore_further_signals()
        return status
    except KeyboardInterrupt as err:
        # Also one that came while an outcome above was being reported.
        return stopped(err)
    finally:
        if saved is not None:
            exits.restore_handlers(saved)


if __name__ == "__main__":
    sys.exit(main())
