"""The arena's side of an agent host: a user's agent runs in a process of its own
(``play.host``), and ``HostedAgent`` plays it in the arena's games.

The arena keeps the time itself: a host that does not answer within the agent's time and a grace
(``HARD_GRACE``) is killed, as is one that breaks the protocol; a host that ends (``sys.exit`` at the
wrong place, ``os._exit``, a crash, a signal) is noticed at once. Each is that agent's fault: its seat
plays random legal moves for the rest of the game, and a new host is started for its next game.

Answers are read as JSON, never unpickled, and a move is taken only as an index into the arena's own
list of legal moves or as a move the arena parses itself and finds in that list.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from play.host import DETAIL_CHARS, described
from play.wire import HEADER, MAX_ANSWER, frame
from replay import exits

#: Seconds a host may take to start and load its agent (import, constructor, name and version).
LOAD_SECONDS = 60.0
#: Seconds past an agent's own time limit (when its host's alarm should have stopped it) before the
#: arena kills the host: an agent that swallows the alarm, or sits in C code.
HARD_GRACE = 1.0
#: Seconds a host is given to end by itself when the arena is done with it.
QUIT_SECONDS = 1.0
#: Where the ``play`` package is, for the host's first import.
_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOT = f"import sys; sys.path.insert(0, {_ROOT!r}); from play.host import main; main()"

#: Every host this process started and has not ended, for ``kill_all``.
_LIVE: set[Host] = set()


class HostError(Exception):
    """A host could not be started or could not load its agent (one line, naming the spec)."""


class HostGone(Exception):
    """The host ended, or broke the protocol, or was killed: what happened, in words."""


class HostLate(Exception):
    """The host did not answer before the deadline."""


def clean(text: str, limit: int = DETAIL_CHARS) -> str:
    """A string from a host, safe to write into a log (no lone surrogate) and bounded."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _ended(code: int | None) -> str:
    if code is None:
        return "its process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its process was killed by {name}"
    return f"its process ended (exit status {code})"


class Host:
    """One agent host process and its two pipes."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.process: subprocess.Popen[bytes] | None = None
        #: The process's id while it may run (kept apart from ``process`` for ``kill_now``).
        self.pid = 0
        self.to_host = -1
        self.from_host = -1
        self.pidfd: int | None = None
        self.buffer = bytearray()
        self.ident = 0

    def start(self) -> None:
        """Start the process (its standard output is the arena's standard error; a session of its
        own, so that a Ctrl-C at the terminal reaches the arena, which ends it). Raises ``OSError``."""
        to_read, to_write = os.pipe()
        from_read, from_write = os.pipe()
        try:
            # Held signals: an interruption now would leave a process no one ends.
            with exits.signals_held():
                self.process = subprocess.Popen(
                    [sys.executable, "-c", _BOOT, str(to_read), str(from_write), str(os.getpid())],
                    stdin=subprocess.DEVNULL, stdout=2, close_fds=True, pass_fds=(to_read, from_write),
                    start_new_session=True)
                self.pid = self.process.pid
                _LIVE.add(self)
        except BaseException:
            for fd in (to_read, to_write, from_read, from_write):
                os.close(fd)
            raise
        os.close(to_read)
        os.close(from_write)
        self.to_host, self.from_host = to_write, from_read
        os.set_blocking(self.to_host, False)
        try:
            self.pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):  # not Linux 5.3+: the process is polled instead
            self.pidfd = None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _gone(self) -> HostGone:
        assert self.process is not None
        try:
            code = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        return HostGone(_ended(code))

    def _wait(self, readable: bool, deadline: float | None) -> bool:
        """Wait until the pipe is ready (True) or the host ended (raises ``HostGone``); raises
        ``HostLate`` past ``deadline``."""
        assert self.process is not None
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise HostLate
            watch = [self.pidfd] if self.pidfd is not None else []
            step = left if self.pidfd is not None else min(left if left is not None else 0.05, 0.05)
            reads = ([self.from_host] if readable else []) + watch
            writes = [] if readable else [self.to_host]
            ready_r, ready_w, _ = select.select(reads, writes, [], step)
            if (readable and self.from_host in ready_r) or (not readable and ready_w):
                return True
            # With a pidfd the kernel says when the host ends; else it is polled between waits.
            if self.pidfd in ready_r if self.pidfd is not None else self.process.poll() is not None:
                raise self._gone()

    def _send(self, data: bytes, deadline: float | None) -> None:
        view = memoryview(frame(data))
        while view:
            try:
                view = view[os.write(self.to_host, view):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise self._gone() from None
            self._wait(False, deadline)

    def _receive(self, deadline: float | None) -> bytes:
        while True:
            if len(self.buffer) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.buffer)
                if size > MAX_ANSWER:
                    raise HostGone(f"its process sent an answer of {size} bytes")
                if len(self.buffer) >= HEADER.size + size:
                    data = bytes(self.buffer[HEADER.size: HEADER.size + size])
                    del self.buffer[: HEADER.size + size]
                    return data
            self._wait(True, deadline)
            chunk = os.read(self.from_host, 1 << 16)
            if not chunk:
                raise self._gone()
            self.buffer += chunk

    def request(self, kind: str, *args: Any, seconds: float | None) -> dict[str, Any]:
        """Send a request and return the host's answer (a JSON object with the request's ``id``).
        ``seconds`` (None: no limit) bounds the whole exchange. Raises ``HostGone`` (ended, killed
        or an unreadable answer) and ``HostLate``."""
        self.ident += 1
        deadline = None if seconds is None else time.monotonic() + seconds
        self._send(pickle.dumps((kind, self.ident, *args), protocol=pickle.HIGHEST_PROTOCOL), deadline)
        data = self._receive(deadline)
        try:
            answer = json.loads(data)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict) or answer.get("id") != self.ident:
            raise HostGone("its process answered something unreadable")
        return answer

    def kill_now(self) -> None:
        """Send SIGKILL to the host and its session's group, and nothing else: no wait, no lock (for a
        signal handler, which may have interrupted this very host's ``poll``)."""
        if self.pid:
            for send in (os.killpg, os.kill):
                try:
                    send(self.pid, signal.SIGKILL)
                except OSError:  # gone already, or it left its group
                    pass

    def kill(self) -> None:
        """End the host and every process it started in its session, at once."""
        self.kill_now()
        if self.process is not None:
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # killed, but not reaped yet: the kernel's business
                pass
        self._release()

    def close(self) -> None:
        """Ask the host to end (the agent's ``atexit`` runs), and kill it if it does not."""
        if self.alive():
            try:
                self._send(pickle.dumps(("quit", 0)), time.monotonic() + 0.2)
                assert self.process is not None
                self.process.wait(timeout=QUIT_SECONDS)
            except (HostGone, HostLate, OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _release(self) -> None:
        for fd in (self.to_host, self.from_host, self.pidfd):
            if fd is not None and fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.to_host = self.from_host = -1
        self.pidfd = None
        self.process = None
        self.pid = 0
        _LIVE.discard(self)


def kill_all() -> None:
    """Kill every host this process started (the arena is stopping)."""
    for host in list(_LIVE):
        host.kill()


def kill_all_now() -> None:
    """``Host.kill_now`` for every host this process started: for a signal handler."""
    for host in list(_LIVE):
        host.kill_now()


def start_host(spec: str, game: str) -> tuple[Host, dict[str, Any]]:
    """A host with the agent of ``spec`` loaded, and what it says of the agent: ``name`` (None: use
    ``class``, its class's name) and ``version``, plain strings not yet checked.

    Raises ``HostError`` (one line naming the spec) when the agent cannot be loaded: the spec names
    nothing usable, its code raised or exited while loading, its name or version is not a string."""
    host = Host(spec)
    try:
        host.start()
    except OSError as err:
        raise HostError(f"{spec}: cannot start a process for it: {err.strerror or err}") from None
    try:
        answer = host.request("load", spec, game, list(sys.path), seconds=LOAD_SECONDS)
    except HostGone as err:
        host.kill()
        raise HostError(f"{spec}: {err} while loading") from None
    except HostLate:
        host.kill()
        raise HostError(f"{spec}: not loaded within {LOAD_SECONDS:g} s") from None
    except BaseException:
        host.kill()
        raise
    error = answer.get("error")
    name, kind, version = answer.get("name"), answer.get("class"), answer.get("version")
    if isinstance(error, str) or not (isinstance(name, str) or name is None) or not isinstance(kind, str) \
            or not isinstance(version, str):
        host.kill()
        raise HostError(clean(error, 400) if isinstance(error, str) else f"{spec}: its process answered something unreadable")
    return host, {"name": name, "class": kind, "version": version}


class HostedAgent:
    """A user's agent as the arena plays it: in a host of its own, started when first needed (or
    given, already loaded), started again for a new game after it ended.

    Each method returns what the agent did and its fault, if any, as ``(kind, detail)``: ``error``
    (it raised), ``timeout``, ``illegal`` (its answer is not one of the legal moves) or ``crash`` (its
    process ended, was killed, or answered something unreadable)."""

    def __init__(self, spec: str, game: str, budget: float, host: Host | None = None) -> None:
        self.spec = spec
        self.game = game
        self.budget = budget
        self.host = host
        #: The host ended during this game: the seat plays random moves until the game ends.
        self.out = False

    @property
    def limit(self) -> float:
        """The seconds the host's alarm allows (0: none)."""
        return self.budget * 1.5 + 0.05 if self.budget > 0 else 0.0

    def _ask(self, kind: str, *args: Any) -> tuple[dict[str, Any] | None, tuple[str, str] | None, float]:
        """The host's answer, or the fault of a host that ended, broke the protocol or was late (then
        killed: the seat is out of this game), and the seconds the arena waited."""
        assert self.host is not None
        hard = self.limit + HARD_GRACE if self.budget > 0 else None
        began = time.perf_counter()
        try:
            answer = self.host.request(kind, self.limit, *args, seconds=hard)
        except HostGone as err:
            fault = ("crash", str(err))
        except HostLate:
            fault = ("timeout", f"no answer within {self.budget:g} s: its process was stopped")
        else:
            return answer, None, time.perf_counter() - began
        self.host.kill()
        self.host = None
        self.out = True
        return None, fault, time.perf_counter() - began

    @staticmethod
    def _spent(answer: dict[str, Any], waited: float) -> float:
        seconds = answer.get("seconds")
        if isinstance(seconds, float) and math.isfinite(seconds) and 0 <= seconds <= waited:
            return seconds
        return waited

    def _hook_fault(self, hook: str, answer: dict[str, Any]) -> tuple[str, str] | None:
        kind = answer.get("fault")
        if kind is None:
            return None
        if kind == "timeout":
            return "timeout", f"{hook}: no answer within {self.budget:g} s"
        detail = answer.get("detail")
        if kind == "error" and isinstance(detail, str):
            return "error", clean(f"{hook} raised {detail}")
        return "crash", f"{hook}: its process answered something unreadable"

    def begin(self, game: str, seat: int, players: list[str], seed: int) -> tuple[str, str] | None:
        """A new game: a host (a new one when the last ended) and its ``on_game_start``."""
        self.out = False
        if self.host is not None and not self.host.alive():
            self.host.kill()
            self.host = None
        if self.host is None:
            try:
                self.host, _ = start_host(self.spec, self.game)
            except HostError as err:
                self.out = True
                return "crash", clean(f"its process could not be started again: {err}")
        answer, fault, _ = self._ask("start", game, seat, players, seed)
        if fault is not None:
            return fault[0], f"on_game_start: {fault[1]}"
        assert answer is not None
        return self._hook_fault("on_game_start", answer)

    def decide(self, engine: Any, observation: dict[str, Any], legal: Sequence[Any]) -> tuple[Any, tuple[str, str] | None, float]:
        """The agent's move (one of ``legal``, the arena's own objects) or its fault, and its time.
        ``legal`` is any sequence (an engine may list its moves lazily, as a game with thousands
        of arrangements of one decision): the host is sent, and the answer checked against, a plain list of them."""
        # A list: what the engine lists may be an object of its own that cannot cross the pipe.
        legal = legal if type(legal) is list else list(legal)
        answer, fault, waited = self._ask("act", observation, legal)
        if answer is None:
            return None, fault, waited
        spent = self._spent(answer, waited)
        kind = answer.get("fault")
        if kind is not None:
            detail = answer.get("detail")
            if kind == "timeout":
                return None, ("timeout", f"no answer within {self.budget:g} s"), spent
            if kind in ("error", "illegal") and isinstance(detail, str):
                return None, (kind, clean(detail)), spent
            return None, ("crash", "its process answered something unreadable"), spent
        move = None
        index = answer.get("index")
        if "index" in answer:
            if type(index) is int and 0 <= index < len(legal):
                move = legal[index]
            else:
                return None, ("illegal", "not a legal move: not one of the moves it was given"), spent
        elif "move" in answer:
            obj = answer["move"]
            try:
                parsed = engine.canonical_move(engine.parse_move(obj, "move"))
            except Exception:  # malformed: not a move of this game at all
                return None, ("illegal", clean(f"not a legal move: {described(obj)}")), spent
            if parsed not in legal:
                return None, ("illegal", clean(f"not a legal move: {parsed.text()}")), spent
            move = legal[legal.index(parsed)]
        else:
            return None, ("crash", "its process answered something unreadable"), spent
        if self.budget > 0 and spent > self.budget:
            return None, ("timeout", f"answered after {spent:.3f} s (budget {self.budget:g} s)"), spent
        return move, None, spent

    def end(self, observation: dict[str, Any], result: dict[str, Any]) -> tuple[str, str] | None:
        """The game is over: ``on_game_end`` (nothing when the host ended during the game)."""
        if self.out or self.host is None:
            return None
        answer, fault, _ = self._ask("end", observation, result)
        if fault is not None:
            return fault[0], f"on_game_end: {fault[1]}"
        assert answer is not None
        return self._hook_fault("on_game_end", answer)

    def close(self) -> None:
        if self.host is not None:
            self.host.close()
            self.host = None
