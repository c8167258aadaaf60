"""The ``governor`` command: its parser, put together from one module per subcommand
(``governor.commands``), and ``main``, which runs the subcommand and turns whatever ends it into one
line and an exit status (``replay.exits``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from governor import __version__
from governor.commands.common import Subcommands, listed, print_traceback
from replay import exits
from replay.errors import printable
from replay.exits import UsageError
from replay.game import GameDeclarationError, declarations


class _Parser(argparse.ArgumentParser):
    """A usage error is one line naming the command, the option and what is allowed, and exit status 2
    (``argparse`` prints the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {printable(message)} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(exits.ENVIRONMENT)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand, in the order ``governor --help`` lists them. Raises
    ``GameDeclarationError`` when the games cannot be found (their names and options are in the help)."""
    # Each module loads what its subcommand runs only when it runs.
    from governor.commands import (
        analyse,
        arena,
        dashboard,
        export,
        golden,
        import_,
        native,
        play,
        query,
        replay,
        schema,
        simulate,
        train,
        validate,
        winchance,
    )

    titles = listed((game.title for game in declarations().values()), "and")
    parser = _Parser(
        prog="governor",
        description=f"Replay, check, import and study {titles} game logs.",
        epilog=exits.EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"governor {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    sub = Subcommands(commands)
    for command in (validate, replay, simulate, golden, schema, import_, query, export, dashboard, native, analyse,
                    arena, play, train, winchance):
        command.add_parser(sub)
    return parser


#: The subcommands' names (``analyze`` is ``analyse``'s alias), known before the parser is built.
COMMANDS = frozenset({"validate", "replay", "simulate", "golden", "schema", "import", "query", "export", "dashboard", "native",
                      "analyse", "analyze", "arena", "play", "train", "winchance"})


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
            exits.end_within(exits.EXIT_GRACE, code)
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
                # A package turned the interruption into an error of its own (DuckDB, inside an Arrow scan).
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
