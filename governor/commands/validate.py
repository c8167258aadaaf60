"""``governor validate``: replay every game of some files and folders, one line per bad game."""

from __future__ import annotations

import argparse
import sys

from governor.commands.common import Subcommands, print_traceback
from replay import exits


def add_parser(commands: Subcommands) -> None:
    """Add ``validate`` to the subcommands."""
    p = commands.add_parser("validate", help="check logs against the rules", description=(
        "Replay every game of the given files and folders (.json, .jsonl, .gz) and print one line per bad "
        "game: file, game, move number, player and reason. Exits 1 if any game is bad."))
    p.add_argument("paths", nargs="+", help="files, folders (searched recursively) or globs")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the good games")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate the games of ``args.paths``: 0 when every game is good, 1 when one is bad, 2 when a path
    cannot be read, 3 when a game met a bug (the others are checked all the same)."""
    from ingest.sources import find_logs
    from replay.errors import GovernorError, InternalError
    from replay.log_reader import read_records
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
