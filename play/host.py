"""An agent host: the process of its own in which the arena runs a user's agent (``module:Class`` or
``file.py:Class``), the agent's code never running in the arena itself.

The arena starts it (``play.hosted``) with two pipes; the host loads the agent, reports its
name and version, then answers the arena's requests one at a time: the start of a game, a decision
(the seat's view and the legal moves), the end of a game. Whatever the agent does is an answer:

- an exception of any kind (``SystemExit``, ``KeyboardInterrupt``, its own ``BaseException``) is a
  fault the host reports, and the host goes on;
- the time budget is kept here by an alarm (``Timeout`` raised inside the agent); an agent that
  swallows it, or sits in C code, is killed by the arena, which keeps its own deadline;
- the answer is plain data: the index of the legal move returned (the very object the host was
  given), else the JSON form of a move of an engine move class, else a bounded description of what
  came back; the arena checks it against its own legal moves;
- the agent's standard output is the arena's standard error (the arena starts the host so);
- a copy of the host made by ``os.fork`` never answers: whatever returns into the host's loop in
  another process ends there, so only the host the arena started speaks for the agent.

Only Python's own modules and the agent's own imports are loaded here before the agent.
"""

from __future__ import annotations

import json
import os
import pickle
import reprlib
import signal
import sys
import time
from typing import Any

from play.wire import read_frame, write_frame

#: How much of an exception or of a strange answer a fault keeps (characters).
DETAIL_CHARS = 200


class Timeout(BaseException):
    """Raised inside the agent when its time is up (a ``BaseException``, so that an agent's own
    ``except Exception`` does not swallow it)."""


def _short(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def _type_name(value: Any) -> str:
    try:
        name = type(value).__name__
        return name if type(name) is str else "object"
    except BaseException:  # a metaclass of the agent's: not the host's problem
        return "object"


def described(value: Any) -> str:
    """A bounded text of anything an agent raises or hands back; a ``__repr__`` or ``__str__`` that
    raises (whatever it raises) gives the type's name only."""
    try:
        if isinstance(value, BaseException):
            message = str(value)
            text = f"{_type_name(value)}: {message}" if message else _type_name(value)
        # (mypy types a class's __repr__ and object's apart; at run time they are one function when not overridden.)
        elif type(value).__repr__ is object.__repr__:  # type: ignore[comparison-overlap]
            # Without its address, which would make the same arena's logs differ.
            text = f"<{_type_name(value)} object>"
        else:
            text = reprlib.repr(value)
        return _short(text) if type(text) is str else f"<{_type_name(value)} object>"
    except BaseException:
        return f"<{_type_name(value)} object>"


class _Host:
    """The host's loop (one instance per process)."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.pid = os.getpid()
        self.agent: Any = None

    def mine(self) -> None:
        """End a process the agent forked that came back into the host: only the host speaks."""
        if os.getpid() != self.pid:
            os._exit(0)

    def send(self, answer: dict[str, Any]) -> None:
        self.mine()
        write_frame(self.write_fd, json.dumps(answer, ensure_ascii=True).encode("ascii"))

    def timed(self, seconds: float, call: Any, *args: Any) -> tuple[Any, dict[str, Any] | None, float]:
        """``call(*args)`` under an alarm of ``seconds`` (0: none): its result, or the fault it made,
        and the seconds it took."""
        def expire(signum: int, frame: Any) -> None:
            raise Timeout

        began = time.perf_counter()
        try:
            if seconds > 0:
                signal.signal(signal.SIGALRM, expire)
                signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                result = call(*args)
            finally:
                if seconds > 0:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except Timeout:
            self.mine()
            return None, {"fault": "timeout"}, time.perf_counter() - began
        except BaseException as err:  # everything the agent raises is its fault, and the host goes on
            self.mine()
            return None, {"fault": "error", "detail": described(err)}, time.perf_counter() - began
        self.mine()
        return result, None, time.perf_counter() - began

    def load(self, spec: str, game: str, path: list[str]) -> dict[str, Any]:
        """Build the agent, importing as the arena would (its ``sys.path``); the agent's name (None:
        its class's name) and version, or the error."""
        from play.agents import AgentError, load_agent

        sys.path[:] = path

        try:
            self.agent = load_agent(spec, game, caught=BaseException)
        except AgentError as err:
            return {"error": str(err)}
        except BaseException as err:  # raised by the agent's module or constructor
            return {"error": f"{spec}: {described(err)}"}
        agent = self.agent
        try:
            name = getattr(agent, "name", None)
        except BaseException as err:
            return {"error": f"{spec}: reading its name raised {described(err)}"}
        if name is None or (type(name) is str and name in ("", "agent")):
            name = None
        elif type(name) is not str:
            return {"error": f"{spec}: its name must be a string, not {_type_name(name)}"}
        try:
            version = getattr(agent, "version", "1")
        except BaseException as err:
            return {"error": f"{spec}: reading its version raised {described(err)}"}
        if type(version) is int:
            try:
                version = str(version)
            except ValueError as err:  # too many digits for a string
                return {"error": f"{spec}: its version cannot be written: {err}"}
        elif type(version) is not str:
            return {"error": f"{spec}: its version must be a string, not {_type_name(version)}"}
        return {"name": name, "class": _type_name(agent), "version": version}

    def act(self, seconds: float, observation: dict[str, Any], legal: list[Any]) -> dict[str, Any]:
        # The agent gets a list of its own: whatever it does to it, the host's copy is the list given.
        move, fault, spent = self.timed(seconds, self.agent.act, observation, list(legal))
        if fault is not None:
            return {**fault, "seconds": spent}
        for index, given in enumerate(legal):
            if given is move:
                return {"index": index, "seconds": spent}
        # A move built by the agent: only an engine move class (exactly: a subclass could claim to
        # equal anything) is written out, as its log form; the arena decides whether it is legal.
        try:
            kinds = [type(given) for given in legal]
            if any(type(move) is kind for kind in kinds):
                return {"move": json.loads(json.dumps(move.to_json())), "seconds": spent}
            return {"fault": "illegal", "detail": f"not a legal move: {described(move)}", "seconds": spent}
        except BaseException as err:  # a move holding something that is not plain data
            return {"fault": "illegal", "detail": _short(f"not a legal move: {described(move)} ({described(err)})"),
                    "seconds": spent}

    def hook(self, name: str, seconds: float, *args: Any) -> dict[str, Any]:
        def call() -> None:
            method = getattr(self.agent, name, None)
            if method is not None:
                method(*args)

        _, fault, spent = self.timed(seconds, call)
        return {**(fault or {}), "seconds": spent}

    def serve(self) -> None:
        """Answer the arena until it says ``quit`` or goes away."""
        while True:
            self.mine()
            data = read_frame(self.read_fd)
            if data is None:
                return
            request = pickle.loads(data)  # the arena's own data
            kind, ident = request[0], request[1]
            if kind == "quit":
                return
            if kind == "load":
                answer = self.load(*request[2:])
            elif kind == "act":
                answer = self.act(*request[2:])
            elif kind == "start":
                seconds, game, seat, players, seed = request[2:]
                answer = self.hook("on_game_start", seconds, game, seat, players, seed)
            elif kind == "end":
                seconds, observation, result = request[2:]
                answer = self.hook("on_game_end", seconds, observation, result)
            else:
                answer = {"error": f"unknown request {kind!r}"}
            self.send({"id": ident, **answer})


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this process when the arena's process (or worker) that started it
    ends, however it ends; elsewhere the closed pipe ends it at its next read."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the arena was already gone
        os._exit(0)


def main(argv: list[str] | None = None) -> None:
    """The host's entry point: ``READ_FD WRITE_FD PARENT_PID`` (started by ``hosted.Host``)."""
    read_fd, write_fd, parent = (int(word) for word in (argv if argv is not None else sys.argv[1:4]))
    # Ctrl-C belongs to the arena, which ends the host; the signals the arena held while starting
    # it are let through.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGINT, signal.SIGTERM))
    _die_with_parent(parent)
    try:
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        pass
    host = _Host(read_fd, write_fd)
    try:
        host.serve()
    except BrokenPipeError:  # the arena went away
        pass
    host.mine()
