"""``governor golden``: the golden files of sample games, every move in words with the scores after it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from governor.commands.common import Subcommands, refuse_overwrite, shown
from replay import exits
from replay.exits import UsageError


def add_parser(commands: Subcommands) -> None:
    """Add ``golden`` to the subcommands."""
    p = commands.add_parser("golden", help="regenerate golden files of sample games", description=(
        "Write, for each log under LOGS, a text file with every move in words and the scores after it. "
        "A bad log is one line (exit status 1) and the others are written."))
    p.add_argument("--logs", default="sample_logs", help="folder of logs (default sample_logs)")
    p.add_argument("--out", default="tests/replay/golden", help="output folder (default tests/replay/golden)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the golden files of ``args.logs`` into ``args.out``: 0, or 1 when a log is bad (the others
    are written). Raises ``UsageError`` for an output that is a file or the logs' folder, or no logs."""
    from ingest.sources import expand_paths
    from replay.golden import write_golden

    if os.path.lexists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {shown(args.out)} is a file, not a folder: an output never overwrites an input")
    refuse_overwrite("--out", args.out, files=[("the folder of the logs (--logs)", args.logs)])
    if not os.path.isdir(args.logs):
        raise UsageError(f"--logs {shown(args.logs)}: no such folder")
    problems: list[str] = []
    logs = Path(args.logs)
    written = write_golden(logs, expand_paths([logs]), Path(args.out), problems=problems)
    for problem in problems:
        print(f"bad: {problem}")
    print(f"wrote {len(written)} golden file(s) to {shown(args.out)}", file=sys.stderr)
    return exits.REJECTED if problems else exits.OK
