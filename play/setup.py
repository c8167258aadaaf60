"""What game is played and by whom (``Setup``), from the Play page's address or the command line."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from play.agents import AgentError, built_in_agent, check_spec
from play.entries import NAME_CHARS, name_agents
from play.errors import SetupError
from replay.game import declaration, declarations
from replay.names import check_player_name
from replay.simulate import MAX_SEED

#: The default agent of a bot seat.
DEFAULT_BOT = "heuristic"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def _random() -> random.Random:
    return secrets.SystemRandom()


@dataclass(frozen=True)
class Setup:
    """What game is played and by whom. ``humans``: the seats people play (0-based; one usually,
    several for hot-seat); ``names``: every seat's name (a bot's is its agent's, unique in the game as
    the arena names them: ``heuristic``, ``heuristic#2``); ``bots``: each seat's agent spec (None for a
    person's seat); ``versions``: each bot's version (None for a person's seat); ``seed``: the game's
    seed (the deal, and every bot's moves); ``options``: the game's options that are on."""

    game: str
    players: int
    humans: tuple[int, ...]
    names: tuple[str, ...]
    bots: tuple[str | None, ...]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    versions: tuple[str | None, ...] = ()

    @classmethod
    def from_query(cls, params: Mapping[str, str], rng: random.Random | None = None) -> Setup:
        """The setup an address names (the Play page's form: ``game``, ``players``, ``seat``, ``bots``,
        ``seed``, ``name``, and each option of the game by its name, ``draft_start=1``); other
        parameters are not looked at. Seats are numbered as on the Replay page's ``view=seatN`` and
        in every log (0 is the first governor); ``seat=random`` draws one (``rng``, default the
        system's); ``seat=0,2`` seats two people (hot-seat) with ``name=Ana,Bruno``; ``seat`` missing
        is 0. ``bots`` is one spec for every bot seat or a comma list in seat order (default
        ``heuristic``); ``seed`` blank or missing is drawn at random; ``players`` missing is the
        game's smallest count; ``name`` missing is ``Player`` (``Player 1``, ``Player 2``... for
        several seats). A user's agent (``module:Class``, ``file.py:Class``) is loaded once, in a
        process of its own, to learn its name.

        Raises ``SetupError`` naming the parameter and what it allows."""
        names = declarations()
        game = (params.get("game") or "").strip()
        if game not in names:
            shown = f"unknown game {game!r}" if game else "missing"
            raise SetupError("game", f"{shown} (games: {', '.join(names)})")
        found = names[game]
        text = (params.get("players") or "").strip()
        players = found.min_players if not text else _integer("players", text, found.min_players, found.max_players,
                                                               f"{found.title} is played by {found.min_players} to "
                                                               f"{found.max_players} players")
        humans = seats_of(params.get("seat"), players, rng)
        bots = [b.strip() for b in (params.get("bots") or DEFAULT_BOT).split(",")]
        seed_text = (params.get("seed") or "").strip()
        seed = (rng or _random()).randrange(MAX_SEED + 1) if not seed_text else \
            _integer("seed", seed_text, 0, MAX_SEED, f"a whole number from 0 to {MAX_SEED}, or blank for a random one")
        given = params.get("name")
        if given is None:
            human_names = [""] * len(humans)
        else:
            # One person's name is taken whole (it may hold a comma); several are separated by commas.
            human_names = [n.strip() for n in given.split(",")] if len(humans) > 1 else [given.strip()]
        options = {}
        for option in found.options:
            value = params.get(option.name)
            if value is None:
                continue
            word = value.strip().lower()
            if word not in _TRUE + _FALSE:
                raise SetupError(option.name, f"must be 1 or 0 (on or off), not {value!r}")
            if word in _TRUE:
                options[option.name] = True
        return cls.build(game, players, humans, human_names, bots, seed, options)

    @classmethod
    def build(cls, game: str, players: int, humans: Sequence[int], human_names: Sequence[str],
              bots: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> Setup:
        """A setup from its parts: ``humans`` the people's seats (0-based, in the order of
        ``human_names``; a blank name is ``Player``, or ``Player N`` for several seats), ``bots`` one
        spec for every bot seat or one per bot seat in seat order. Bots are named as the arena names
        them; a user's agent is loaded once, in a process of its own, to learn its name and version.

        Raises ``SetupError`` naming the parameter (as the address names it) and what it allows."""
        try:
            found = declaration(game)
        except KeyError:
            raise SetupError("game", f"unknown game {game!r} (games: {', '.join(declarations())})") from None
        if not found.min_players <= players <= found.max_players:
            raise SetupError("players", f"{found.title} is played by {found.min_players} to {found.max_players} "
                                        f"players, not {players}")
        if not humans:
            raise SetupError("seat", "a game needs at least one person's seat")
        if len(set(humans)) != len(humans) or any(not 0 <= s < players for s in humans):
            raise SetupError("seat", f"seats are 0 to {players - 1}, each once")
        if not 0 <= seed <= MAX_SEED:
            raise SetupError("seed", f"a whole number from 0 to {MAX_SEED}, not {seed}")
        unknown = sorted(set(options or {}) - {o.name for o in found.options})
        if unknown:
            raise SetupError(unknown[0], f"{found.title} has no such option (options: "
                                         f"{', '.join(o.name for o in found.options) or 'none'})")
        bot_seats = [s for s in range(players) if s not in humans]
        specs = list(bots) if bots else [DEFAULT_BOT]
        if len(specs) == 1:
            specs = specs * len(bot_seats)
        if bot_seats and len(specs) != len(bot_seats):
            raise SetupError("bots", f"{len(specs)} agents for {len(bot_seats)} bot seat(s): give one for every "
                                     "bot seat, or one for all")
        if not bot_seats:
            specs = []
        for spec in specs:
            try:
                if built_in_agent(spec, game) is None:
                    check_spec(spec)
            except AgentError as err:
                raise SetupError("bots", str(err)) from None
        try:
            entries, hosts = name_agents(specs, game)
        except AgentError as err:
            raise SetupError("bots", str(err)) from None
        for host in hosts.values():
            host.close()
        seat_names: list[str | None] = [None] * players
        bot_specs: list[str | None] = [None] * players
        versions: list[str | None] = [None] * players
        for seat, entry in zip(bot_seats, entries):
            seat_names[seat], bot_specs[seat], versions[seat] = entry.name, entry.spec, entry.version
        if len(human_names) != len(humans):
            raise SetupError("name", f"{len(human_names)} name(s) for {len(humans)} people: give one for each, "
                                     "separated by commas")
        for number, (seat, given) in enumerate(zip(humans, human_names), 1):
            text = given.strip() or ("Player" if len(humans) == 1 else f"Player {number}")
            name = _person(text)
            if name in seat_names:
                other = seat_names.index(name)
                whose = f"the bot in seat {other}" if bot_specs[other] is not None else f"seat {other}"
                raise SetupError("name", f"{name!r} is already the name of {whose}: choose another")
            seat_names[seat] = name
        return cls(game, players, tuple(humans), tuple(n or "" for n in seat_names), tuple(bot_specs), seed,
                   dict(options or {}), tuple(versions))

    def to_json(self) -> dict[str, Any]:
        """The setup as a journal's header holds it."""
        return {"game": self.game, "players": self.players, "humans": list(self.humans), "names": list(self.names),
                "bots": list(self.bots), "versions": list(self.versions), "seed": self.seed,
                "options": dict(self.options)}

    @classmethod
    def from_json(cls, obj: Any) -> Setup:
        """A setup from a journal's header. Raises ``ValueError`` saying what does not fit."""
        if not isinstance(obj, dict):
            raise ValueError("the setup is not an object")
        game, players, seed = obj.get("game"), obj.get("players"), obj.get("seed")
        humans, names, bots, versions = obj.get("humans"), obj.get("names"), obj.get("bots"), obj.get("versions")
        options = obj.get("options")
        if not isinstance(game, str) or game not in declarations():
            raise ValueError(f"unknown game {game!r}")
        found = declaration(game)
        if type(players) is not int or not found.min_players <= players <= found.max_players:
            raise ValueError(f"a game of {players!r} players")
        if type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed {seed!r}")
        if not isinstance(names, list) or len(names) != players or not all(isinstance(n, str) and n for n in names):
            raise ValueError("the names are not one per seat")
        if not isinstance(humans, list) or not humans or \
                not all(type(s) is int and 0 <= s < players for s in humans) or len(set(humans)) != len(humans):
            raise ValueError("the people's seats are not seats of the game")
        if not isinstance(bots, list) or len(bots) != players or \
                any((b is None) != (s in humans) or (b is not None and not isinstance(b, str)) for s, b in enumerate(bots)):
            raise ValueError("the bots are not one per seat without a person")
        if not isinstance(versions, list) or len(versions) != players or \
                any(v is not None and not isinstance(v, str) for v in versions):
            raise ValueError("the bots' versions are not one per seat")
        if not isinstance(options, dict):
            raise ValueError("the options are not an object")
        return cls(game, players, tuple(humans), tuple(names), tuple(bots), seed, dict(options), tuple(versions))


def _integer(param: str, text: str, low: int, high: int, what: str) -> int:
    try:
        value = int(text.strip(), 10)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise SetupError(param, f"{what}, not {shown!r}")
    return value


def seats_of(text: str | None, players: int, rng: random.Random | None = None) -> list[int]:
    """The people's seats of a ``seat`` parameter: ``0`` to ``players - 1`` (as logs and the Replay page
    number them), several separated by commas, or ``random``; missing: 0. Raises ``SetupError``."""
    allowed = f"a seat from 0 to {players - 1} (several separated by commas, for hot-seat), or random"
    value = (text or "0").strip().lower()
    if value == "random":
        return [(rng or _random()).randrange(players)]
    seats = []
    for part in value.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or not 0 <= int(part) < players:
            raise SetupError("seat", f"must be {allowed}, not {text!r}")
        if int(part) in seats:
            raise SetupError("seat", f"seat {int(part)} is given twice")
        seats.append(int(part))
    return seats


def _person(text: str) -> str:
    """A person's name as a player's name must be (``replay.names``). Raises ``SetupError``."""
    try:
        text.encode("utf-8")
        name = check_player_name(text)
    except UnicodeEncodeError:
        raise SetupError("name", "it is not valid Unicode") from None
    except ValueError as err:
        raise SetupError("name", str(err)) from None
    if len(name) > NAME_CHARS:
        raise SetupError("name", f"longer than {NAME_CHARS} characters")
    return name
