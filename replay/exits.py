"""Exit statuses of every ``governor`` command, so that a script can tell them apart.

0 all good; 1 something was rejected (a bad game, a refused SQL statement); 2 a usage or environment
error (a bad option, a path that names nothing, an unreadable folder, a full disk, a locked or
read-only database); 3 a bug in governor (with a traceback and a request to report it); 130
interrupted (Ctrl-C, SIGINT); 143 terminated (SIGTERM). When several of 1, 2 and 3 apply, the
largest is returned.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

OK = 0
REJECTED = 1
ENVIRONMENT = 2
BUG = 3
INTERRUPTED = 130
TERMINATED = 143

#: Where bugs are reported (the project's issue tracker).
REPORT_TO = "the Governor issue tracker"

#: The epilog of every ``--help``.
EPILOG = (
    "exit status: 0 all good; 1 something was rejected (a bad game, a refused statement); "
    "2 usage or environment error (a bad option, a path that names nothing, an unreadable folder, a full disk, "
    "a locked or read-only database); 3 a bug in governor (please report it); 130 interrupted (Ctrl-C); "
    "143 terminated (SIGTERM). When several apply, the largest of 1, 2 and 3."
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


class UsageError(Exception):
    """A bad argument (a value out of range, options that do not go together): one line, exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived. A ``KeyboardInterrupt``, so that every place that stops cleanly on Ctrl-C stops
    cleanly on SIGTERM too; ``interruption`` tells the two apart."""


#: Set once SIGTERM arrived: a package that turns the interruption into an error of its own (DuckDB
#: raises ``InterruptException``, which callers turn back into a plain ``KeyboardInterrupt``) loses
#: the ``Terminated`` type, not this.
_terminated = threading.Event()
#: Set once SIGINT arrived, for the same reason: an interruption met inside a package's callback (DuckDB
#: reading an Arrow table while Ctrl-C comes) may come back as that package's error, not as an interrupt.
_interrupted = threading.Event()


def interruption(err: BaseException) -> tuple[str, int]:
    """The word and exit status of an interruption: ("terminated", 143) for SIGTERM, else
    ("interrupted", 130)."""
    if isinstance(err, Terminated) or _terminated.is_set():
        return "terminated", TERMINATED
    return "interrupted", INTERRUPTED


def signalled() -> bool:
    """Whether SIGINT or SIGTERM arrived since ``stop_on_sigterm``: an error met after that is the
    interruption's doing, not a bug."""
    return _terminated.is_set() or _interrupted.is_set()


def raise_if_signalled() -> None:
    """Raise the interruption noted since ``stop_on_sigterm`` (``Terminated`` for SIGTERM, else
    ``KeyboardInterrupt``): a signal whose exception Python swallowed (one that came while a worker was
    forked, inside the interpreter's after-fork hooks) still stops a long loop that calls this between
    its steps."""
    if _terminated.is_set():
        raise Terminated
    if _interrupted.is_set():
        raise KeyboardInterrupt


#: Above 0 while ``signals_deferred`` runs: the handlers below note a signal without raising.
_deferring = 0
#: Set once ``ignore_further_signals`` has run: the command is ending and takes no more signals.
_ignoring = False
#: What CPython says of a signal that came as the command switched to ignoring it (``_quiet``).
_RACE_TEXTS = frozenset(f"Signal {int(sig)} ignored due to race condition" for sig in (signal.SIGINT, signal.SIGTERM))
#: The ``sys.unraisablehook`` that ``stop_on_sigterm`` replaced, put back by ``restore_handlers``.
_hook_before: Any = None


def _raise_interrupted(signum: int, frame: Any) -> None:
    _interrupted.set()
    if not _deferring:
        signal.default_int_handler(signum, frame)


def _raise_terminated(signum: int, frame: Any) -> None:
    _terminated.set()
    if not _deferring:
        raise Terminated


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM raise nothing while the body runs, only noted, and raise once it is done
    (``raise_if_signalled``). For loading a module whose native set-up calls back into Python: an
    interruption raised inside such a call aborts the process (DuckDB: "Critical nanobind error")
    instead of stopping it. Holding the signals (``signals_held``) is not enough there: a thread of a
    package already loaded (a math package's pool) takes the signal, and the main thread still runs
    the handler. Works with the handlers ``stop_on_sigterm`` installs, in the main thread."""
    global _deferring
    before = signalled()
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and not before and signalled():
            raise_if_signalled()


def _quiet(unraisable: Any) -> None:
    """``sys.unraisablehook`` while a command runs. An interruption raised where Python cannot pass it
    on (inside a ``__del__``, a weakref callback, an exit hook) is noted already (``signalled``) and stops
    the command at its next check (``raise_if_signalled``): Python's "Exception ignored in ..." and its
    traceback would only be lines more above the command's one. So is CPython's word on a signal that
    came just as the ending command switched to ignoring it. Anything else goes to the hook before."""
    value = unraisable.exc_value
    if isinstance(value, KeyboardInterrupt) and signalled():
        return
    if isinstance(value, OSError) and _ignoring and str(value) in _RACE_TEXTS:
        return
    (_hook_before or sys.__unraisablehook__)(unraisable)


def stop_on_sigterm() -> None:
    """Make SIGTERM raise ``Terminated`` in the main thread (Python's default for it is to die at once,
    leaving partly written files and temporary folders), and note SIGINT (``signalled``) while it still
    raises ``KeyboardInterrupt``; an interruption Python has to swallow prints nothing (``_quiet``). A
    command's run starts here, with no signal noted yet. Does nothing outside the main thread."""
    global _hook_before
    _terminated.clear()
    _interrupted.clear()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _raise_interrupted)
        if sys.unraisablehook is not _quiet:
            _hook_before, sys.unraisablehook = sys.unraisablehook, _quiet


def current_handlers() -> tuple[Any, Any]:
    """This process's SIGINT and SIGTERM handlers, for ``restore_handlers``."""
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def restore_handlers(saved: tuple[Any, Any]) -> None:
    """Put back the handlers ``current_handlers`` returned (a program that ran a command in its own
    process keeps its own handlers; a process it forks later then stops by SIGTERM as it expects).
    The signals noted during the command are forgotten (the caller goes on). Does nothing outside the
    main thread, nor for a handler not set from Python."""
    if threading.current_thread() is threading.main_thread():
        _terminated.clear()
        _interrupted.clear()
        for sig, handler in zip((signal.SIGINT, signal.SIGTERM), saved):
            if handler is not None:
                signal.signal(sig, handler)
        if sys.unraisablehook is _quiet:
            sys.unraisablehook = _hook_before or sys.__unraisablehook__


def ignore_further_signals() -> None:
    """The process is ending, with its command's status decided (interrupted or not): SIGINT and SIGTERM
    are ignored from here on. Python's exit puts back the default handler of a signal that had one of
    Python's, so Ctrl-C during the exit killed the process (status -2) after it had said what it did; a
    package may also pass an interruption on once more, late (DuckDB trips Python's interrupt flag after
    a statement it stopped, possibly from another thread, handled only when the main thread next checks,
    even during the interpreter's exit). Does nothing outside the main thread."""
    global _deferring, _ignoring
    if threading.current_thread() is threading.main_thread():
        # A signal that came a moment ago is handled as the handlers change (below): only noted, not
        # raised out of this call; one that comes as they change is CPython's "race condition" (_quiet).
        _deferring += 1
        _ignoring = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # CPython takes a KeyboardInterrupt that left code compiled from a string (``exec``, ``eval``: a
        # dataclass or a namedtuple being made while a module loads) for an unhandled one even when the
        # command caught it, and ``python -m governor.cli`` then ends by SIGINT (status -2) after saying
        # "interrupted"; the next such code that runs to its end clears that note.
        exec("None")


#: How long an interrupted command's exit may take before it is cut short (``end_within``), in seconds.
EXIT_GRACE = 5.0


def end_within(seconds: float, status: int) -> None:
    """An interrupted command has said so and is ending: should its exit still be going ``seconds``
    from now, the process ends there with ``status``, its output flushed. Python's exit waits for every
    thread a package left running (a process pool's own thread), and one stuck waiting for a lock
    that will never be free kept the command alive forever after it had said "terminated". The timer
    is a daemon thread: an exit that ends in time is not delayed."""

    def cut_short() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(status)

    timer = threading.Timer(seconds, cut_short)
    timer.daemon = True
    timer.start()


#: The signals that stop a command.
_STOPS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait while the body runs, and come (raise) once it is done. For starting a
    pool of processes: an interruption raised while the pool forks its workers leaves workers that no
    one ends (``multiprocessing.pool.Pool`` cleans up only after an ``Exception``), each holding the
    command's output open, so the command never ends. Threads and processes started in the body inherit
    the held signals: a worker calls ``worker_leaves_stopping_to_driver`` first. Does nothing where
    signals cannot be held (Windows)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def worker_leaves_stopping_to_driver() -> None:
    """In a pool's worker process: Ctrl-C (which reaches the whole process group) is ignored, since the
    driver ends the pool; SIGTERM (which the pool sends to end a worker) ends it at once, whatever
    handler the driver installed (a handler that raises lets a worker stop while holding the task
    queue's lock, and the pool then waits forever); and the signals the driver held while forking
    (``signals_held``) are let through."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def bounded_int(option: str, low: int, high: int) -> Any:
    """An ``argparse`` type for ``option``: an integer from ``low`` to ``high`` (inclusive); anything else
    is refused with the allowed range (``argparse`` names the option, and exits with status 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            shown = text if len(text) <= 40 else text[:39] + "…"
            raise argparse.ArgumentTypeError(
                f"must be an integer from {low} to {high}, not {shown!r}")
        return value

    parse.__name__ = "integer"
    return parse
