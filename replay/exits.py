"""Exit statuses of every ``governor`` command, so that a script can tell them apart.

0 all good; 1 something was rejected (a bad game, a refused SQL statement); 2 a usage or environment
error (a path that names nothing, an unreadable folder, a full disk, a locked or read-only database);
3 a bug in governor (with a traceback and a request to report it); 130 interrupted (Ctrl-C). When
several apply, the larger of 1, 2 and 3 is returned.
"""

from __future__ import annotations

OK = 0
REJECTED = 1
ENVIRONMENT = 2
BUG = 3
INTERRUPTED = 130

#: Where bugs are reported (the project's issue tracker).
REPORT_TO = "the Governor issue tracker"

#: The epilog of every ``--help``.
EPILOG = (
    "exit status: 0 all good; 1 something was rejected (a bad game, a refused statement); "
    "2 usage or environment error (a path that names nothing, an unreadable folder, a full disk, "
    "a locked or read-only database); 3 a bug in governor (please report it); 130 interrupted. "
    "When several apply, the largest of 1, 2 and 3."
)


def status(*, rejected: bool = False, environment: bool = False, bug: bool = False) -> int:
    """The exit status of a run that met these outcomes."""
    if bug:
        return BUG
    if environment:
        return ENVIRONMENT
    return REJECTED if rejected else OK


def report_request(what: str) -> str:
    """The line that asks to report a bug."""
    return (
        f"governor: {what}: this is a bug in governor, not a problem with your input; please report it "
        f"to {REPORT_TO} with the command you ran and the file that caused it"
    )
