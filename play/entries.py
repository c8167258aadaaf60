"""Agents named for a game: each spec's player name and version, unique in one game or arena.

A built-in agent is named by its kind (``heuristic``, ``search:20``); a user's agent by what it says
of itself once loaded in its agent host (``play.hosted.start_host``: its ``name``, else its class's
name, and its ``version``), checked as a player's name is (``replay.names``). A name given twice is
told apart as the arena always has: ``heuristic``, ``heuristic#2``, ``heuristic#3``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from play.agents import AgentError, built_in_agent, check_spec
from play.hosted import Host, HostError, start_host
from replay.names import check_player_name

#: The longest agent name and version (characters).
NAME_CHARS = 60
VERSION_CHARS = 40


@dataclass(frozen=True)
class Entry:
    """One agent given on the command line: its spec, its player name (unique in the arena: a spec
    given twice is ``name#2``), and its version."""

    spec: str
    name: str
    version: str


def checked(spec: str, what: str, text: str, longest: int) -> str:
    """An agent's name or version as a player's name must be (``replay.names``, the rules of
    ``validate``). Raises ``AgentError`` naming the agent."""
    try:
        text.encode("utf-8")
        value = check_player_name(text)
    except UnicodeEncodeError:
        raise AgentError(f"{spec}: bad {what}: it is not valid Unicode") from None
    except ValueError as err:
        raise AgentError(f"{spec}: bad {what}: {err}") from None
    if len(value) > longest:
        raise AgentError(f"{spec}: bad {what}: longer than {longest} characters")
    return value


def name_agents(specs: Sequence[str], game: str) -> tuple[list[Entry], dict[int, Host]]:
    """The entries of ``specs``, and the agent hosts started to learn a user's agent's name and
    version (by entry index; the first entry of each such spec), for the caller to use or close.

    Raises ``AgentError`` for a spec that names no usable agent, or one whose name or version is not
    a plain string a player's name may be (then no host is left running)."""
    entries: list[Entry] = []
    hosts: dict[int, Host] = {}
    seen: dict[str, int] = {}
    loaded: dict[str, dict[str, Any]] = {}
    try:
        for index, spec in enumerate(specs):
            agent = built_in_agent(spec, game)
            if agent is None:
                check_spec(spec)
            if agent is not None:
                base, version = agent.name, agent.version
            else:
                info = loaded.get(spec)
                if info is None:
                    try:
                        hosts[index], info = start_host(spec, game)
                    except HostError as err:
                        raise AgentError(str(err)) from None
                    loaded[spec] = info
                base = checked(spec, "name", info["name"] if info["name"] is not None else info["class"], NAME_CHARS)
                version = checked(spec, "version", info["version"], VERSION_CHARS)
            seen[base] = seen.get(base, 0) + 1
            name = base if seen[base] == 1 else f"{base}#{seen[base]}"
            entries.append(Entry(spec, name, version))
    except BaseException:
        for host in hosts.values():
            host.kill()
        raise
    return entries, hosts
