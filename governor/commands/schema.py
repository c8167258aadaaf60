"""``governor schema``: the JSON Schema of a log of any game Governor knows."""

from __future__ import annotations

import argparse
import os
import sys

from governor.commands.common import Subcommands, shown
from replay import exits
from replay.exits import UsageError


def add_parser(commands: Subcommands) -> None:
    """Add ``schema`` to the subcommands."""
    p = commands.add_parser("schema", help="print the JSON Schema of the log format", description=(
        "Print the JSON Schema (draft 2020-12) of a log of any game Governor knows: the shared envelope and "
        "each game's setup, options and moves. It checks a log's shape; `governor validate` checks the rules."))
    p.add_argument("--out", default=None, help="write it to this file instead of standard output")
    p.set_defaults(func=run)


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


def run(args: argparse.Namespace) -> int:
    """Print the schema, or write it to ``args.out``: 0. Raises ``UsageError`` for an output that is a
    folder, holds something else, or cannot be written."""
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
