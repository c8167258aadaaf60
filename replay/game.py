"""How a game declares itself, once, and how the registry finds the games.

A game is a package whose ``__init__.py`` holds ``GAME = GameDeclaration(...)``: its name, title,
player counts, options, and where its engine, view, catalogue, bots and log schema part live (as
``module`` or ``module:attribute`` paths, so that reading a declaration imports none of them). Nothing
outside the game's package switches on its name: ``replay.registry`` loads what a declaration points
to when it is first asked for.

The games are found, not listed: each is an entry point of the group ``governor.games`` (named after
the game, pointing at its ``GAME``), in the installed metadata of the distribution that holds it.
Governor's own games are entry points of the ``governor`` distribution itself (``pyproject.toml``), so
an installed package adds a game exactly as they are added. A checkout is run installed (``scripts/
setup.sh`` installs it editable, which writes that metadata): when the ``governor`` distribution is not
installed, or its metadata predates its games' entry points (``pyproject.toml`` changed since the last
setup), finding the games is one error saying to run the setup, never a silent second way of finding
them.

This module imports nothing of the project's (the log reader asks it for the game names, and the
registry, which imports the protocols, which import the log reader, is built on it).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: The entry-point group a distribution registers its games in: ``name = "package:GAME"``.
GROUP = "governor.games"
#: The distribution of Governor itself, whose metadata registers its own games.
DISTRIBUTION = "governor"


#: The columns of the ``moves`` table every game has (``ingest.schema``): a game's own step columns
#: take none of these names.
MOVE_COLUMNS = frozenset({"game_id", "step", "round", "seat", "player", "kind", "text", "words", "details", "events"})
#: The Arrow types a game's step column may have, by name.
STEP_TYPES = ("int8", "int16", "int32", "int64", "float64", "bool", "string")


@dataclass(frozen=True)
class MovePart:
    """A sort of move the statistics count: its ``kind`` and the key of its JSON form that names what it
    chose (``MovePart("role", "role")``: the role chosen; ``MovePart("build", "building")``: the
    building built)."""

    kind: str
    key: str

    def __post_init__(self) -> None:
        if not self.kind or not self.key.isidentifier():
            raise ValueError(f"move part {self.kind!r}, {self.key!r}: a kind and a key (a name) of its JSON form")


@dataclass(frozen=True)
class OpeningMove:
    """A kind of move the Explorer counts among a game's first decisions (``ingest.openings``), and the
    token it becomes there. It counts in the phase ``phase`` only (the moves table's ``role``: the part
    of the round it is made in), in any phase when "". Its token is ``words`` followed by the value of
    its JSON form's ``key`` (``build`` and the building: "build <building>"); the value alone, first
    letter capitalised, with no ``words`` (a role chosen: "<Role>"); ``words`` alone with no ``key``; the
    kind itself with neither ("pass")."""

    kind: str
    phase: str = ""
    words: str = ""
    key: str = ""

    def __post_init__(self) -> None:
        if not self.kind or (self.key and not self.key.isidentifier()):
            raise ValueError(f"opening move {self.kind!r}: a kind, and a key that is a name of its JSON form")


@dataclass(frozen=True)
class GameOption:
    """A game option a log's ``options`` may hold (a variant of the rules: ``short_game``)."""

    name: str
    #: What it changes, in one sentence, for ``--help`` and the docs.
    description: str
    #: The flag of ``governor simulate`` that turns it on, without its dashes (``short-game`` for
    #: ``--short-game``), or "" for none (``governor play --option NAME`` takes every option by its
    #: name). Games may share a flag; one that is one of ``simulate``'s own options is refused when
    #: the command is built (``GameDeclarationError``).
    flag: str = ""
    #: What the option is, in a few words, for that flag's help, which reads "<title>: use <summary>"
    #: (``the short variant``).
    summary: str = ""

    def __post_init__(self) -> None:
        if self.flag and not (self.flag.isascii() and self.flag[0].isalpha()
                              and all(c.islower() or c.isdigit() or c == "-" for c in self.flag)):
            raise ValueError(f"option {self.name}: flag {self.flag!r}: lower-case ASCII letters, digits and '-', "
                             "starting with a letter, without the dashes")
        if self.flag and not self.summary:
            raise ValueError(f"option {self.name}: a flag ({self.flag!r}) needs a summary for its help")


@dataclass(frozen=True)
class GameDeclaration:
    """What the rest of the product knows of a game, declared in its package's ``__init__.py``.

    The paths are ``"package.module"`` or ``"package.module:attribute"``; they are imported only when
    the registry first needs them."""

    #: The name logs, tables and URLs use (``my_game``): lower-case letters, digits and ``_``.
    name: str
    #: The name players write (``My Game``).
    title: str
    min_players: int
    max_players: int
    #: ``module:attribute`` of the engine object (``replay.protocol.Engine``).
    engine: str
    #: The module that decides what a viewer may see (``replay.protocol.GameView``).
    view: str
    #: The module of the game's catalogue (cards, buildings) as data.
    catalogue: str
    #: The bots by kind (``heuristic``, ``random``, ``expert``): ``module:attribute`` of a callable
    #: taking the engine and a seed and returning a bot with ``choose(state)`` and ``choose_working(game)``.
    bots: tuple[tuple[str, str], ...]
    #: The prefix of the game's definitions in the log schema (``mg_``: ``mg_setup``, ``mg_move``...).
    log_schema: str
    #: ``package:file`` of the game's part of the log schema (its options and its prefixed
    #: definitions), which ``replay.log_schema`` composes with the envelope and the other games.
    log_schema_file: str
    #: The options a log may set, each with its description.
    options: tuple[GameOption, ...] = ()
    #: The first decisions the Explorer counts (``openings``), in words, as its sentence ends
    #: (``role choices and builds``); "" for none.
    opening_words: str = ""
    #: The moves the Explorer counts among the first decisions, each with its token (``OpeningMove``);
    #: () for none (the game is not in the Explorer).
    openings: tuple[OpeningMove, ...] = ()
    #: The move a seat chooses its part of a round with, as the Statistics and Players pages count it
    #: (their roles: which is chosen, in which round, by whom), or None.
    choice: MovePart | None = None
    #: The move that builds, as the Statistics page counts it (the buildings built, by which round), or
    #: None; what each seat owns at the end is ``StorageRows.buildings_of``.
    build: MovePart | None = None
    #: Where the game is listed among the games (lower first; then by name).
    order: int = 100
    #: The module of the game's flat observation vector and fixed action space for learning code
    #: (``encode``, ``LAYOUT``, ``ACTIONS``, ``representatives``; it needs numpy, so only the agent
    #: environments load it), or "" when the game has none.
    spaces: str = ""
    #: The kind of bot (one of ``bots``) that plays the analysis' rollouts to the end: the strongest
    #: whose whole-game analysis at 100 rollouts stays under a minute on the compiled engines; "" for
    #: the first of ``bots``.
    rollout_bot: str = ""
    #: The modules ``governor native build`` compiles with mypyc (``replay.native``), in dependency
    #: order: the game's hot path (rules, state, moves, scoring, bots, rows, view...). Each is a
    #: module of a package (never a top-level module, nor the package declaring the game); () for none.
    compiled: tuple[str, ...] = ()
    #: The columns the game stores in the ``moves`` table beside each move, besides the round: the
    #: phase of the game the move is made in (``step_info`` gives them), each ``(name, type)`` with an
    #: Arrow type name (``int8``, ``int16``, ``int32``, ``int64``, ``float64``, ``bool``, ``string``):
    #: ``(("leader", "int8"), ("phase", "string"))``. The table holds every registered game's (a
    #: column the game does not declare is NULL in its moves); two games declaring one name declare
    #: one type.
    step_columns: tuple[tuple[str, str], ...] = ()
    #: How a person choosing a move sees the legal moves grouped: ``(kind, group)`` pairs, a move's
    #: ``kind`` and the group's name (``("role", "Roles")``; several kinds may share a group). A kind not
    #: listed is a group of its own, named after it (``hand_limit`` is "Hand limit").
    move_groups: tuple[tuple[str, str], ...] = ()
    #: ``package:file`` of the game's board drawing, package data of the game (a script defining
    #: ``draw(game, step)``, which returns the board's status bar, one panel per seat and the class of
    #: the panels' box), or "" for a game the pages show without a board. It only lays out what the
    #: game's view sent (``GameView``): it computes no rule of its own.
    board: str = ""
    #: ``package:file`` of the board's stylesheet, package data of the game beside ``board``; "" for none.
    board_style: str = ""
    #: The column of the game's per-seat state rows (``StorageRows.player_schema``) that holds a seat's
    #: score so far: the Replay page's score chart, the ``vp_by_step`` view and the Statistics page's
    #: curves read it.
    score_column: str = "vp"
    #: The score's word after a number (``12 VP``, ``12 points``) and its name as a heading
    #: (``Victory points``, ``Points``), as the pages write them.
    score_unit: str = "points"
    score_name: str = "Points"

    def __post_init__(self) -> None:
        if not self.name or not all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in self.name):
            raise ValueError(f"game name {self.name!r}: lower-case ASCII letters, digits and '_' only")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"game {self.name}: player counts {self.min_players} to {self.max_players}")
        kinds = [kind for kind, _ in self.bots]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"game {self.name}: a bot kind declared twice in {kinds}")
        if self.rollout_bot and self.rollout_bot not in kinds:
            raise ValueError(f"game {self.name}: rollout bot {self.rollout_bot!r} is not among its bots {kinds}")
        for module in self.compiled:
            if "." not in module or ":" in module or not all(part.isidentifier() for part in module.split(".")):
                raise ValueError(f"game {self.name}: compiled module {module!r} is not a module of a package "
                                 "(package.module)")
        if len(set(self.compiled)) != len(self.compiled):
            raise ValueError(f"game {self.name}: a compiled module declared twice in {list(self.compiled)}")
        for column, kind in self.step_columns:
            if not column.isidentifier() or column in MOVE_COLUMNS or kind not in STEP_TYPES:
                raise ValueError(f"game {self.name}: step column {column!r} of type {kind!r}: a name the moves "
                                 f"table does not hold already, of a type among {', '.join(STEP_TYPES)}")
        for kind, path in (("board", self.board), ("board style", self.board_style)):
            package, colon, file = path.partition(":")
            if path and not (colon and file and all(part.isidentifier() for part in package.split("."))):
                raise ValueError(f"game {self.name}: {kind} {path!r} is not a file of a package (package:file)")
        if not self.score_column.isidentifier() or not self.score_unit.strip() or not self.score_name.strip():
            raise ValueError(f"game {self.name}: score column {self.score_column!r} (a column name), unit "
                             f"{self.score_unit!r} and name {self.score_name!r} (words)")
        if self.board_style and not self.board:
            raise ValueError(f"game {self.name}: a board style ({self.board_style}) without a board")

    @property
    def bot_kinds(self) -> tuple[str, ...]:
        """The kinds of bot the game has, as declared."""
        return tuple(kind for kind, _ in self.bots)

    @property
    def rollout_kind(self) -> str:
        """The kind of bot that plays the analysis' rollouts: ``rollout_bot``, else the first declared
        bot. Raises ``KeyError`` when the game declares no bot."""
        if self.rollout_bot:
            return self.rollout_bot
        if not self.bots:
            raise KeyError(f"{self.title} declares no bot to play rollouts")
        return self.bots[0][0]

    def group_of(self, kind: str) -> str:
        """The group a move of ``kind`` is listed under (``move_groups``, else the kind in words)."""
        for listed, group in self.move_groups:
            if listed == kind:
                return group
        return kind.replace("_", " ").capitalize()

    def bot_path(self, kind: str) -> str:
        """Where the function that makes a ``kind`` bot lives. Raises ``KeyError`` naming the kinds there are."""
        for name, path in self.bots:
            if name == kind:
                return path
        raise KeyError(f"{self.title} has no {kind!r} bot (bots: {', '.join(self.bot_kinds)})")


class GameDeclarationError(Exception):
    """The games cannot be found as declared: an entry point of ``governor.games`` that does not load
    or is not a ``GameDeclaration``, a name declared twice, Governor's own games missing from its
    installed metadata, or a game's schema part that is wrong. The message is one line naming the
    entry point and its distribution."""


_FOUND: dict[str, GameDeclaration] = {}


def declarations() -> dict[str, GameDeclaration]:
    """Every game registered in the entry-point group ``governor.games`` of the installed
    distributions, by name, in the declared order; found once, then cached (``forget`` clears it).
    Raises ``GameDeclarationError`` for an entry point that does not load, is not a declaration or
    is not named after its game, a name declared twice, or Governor's own games missing from its
    metadata (not installed, or installed before its games were registered: run the setup)."""
    if not _FOUND:
        _FOUND.update(_discover())
    return dict(_FOUND)


def declaration(name: str) -> GameDeclaration:
    """The declaration of game ``name``. Raises ``KeyError`` naming the known games."""
    found = declarations()
    if name not in found:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(found)})")
    return found[name]


def game_names() -> tuple[str, ...]:
    """The names of every declared game, in the declared order."""
    return tuple(declarations())


def forget() -> None:
    """Forget the games found, so that the next call looks again (tests adding a game)."""
    _FOUND.clear()


def load(path: str) -> Any:
    """The object a declaration's ``module:attribute`` path (or ``module`` path) names. Raises
    ``ImportError`` or ``AttributeError`` when it is not there."""
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


def package_text(path: str) -> str:
    """The text of a declaration's ``package:file`` path: a file the game ships as package data (its
    board's drawing and style). Raises ``GameDeclarationError`` naming the path when the package does
    not import or the file cannot be read."""
    package, _, name = path.partition(":")
    try:
        return resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except Exception as err:  # whatever a third party's import raises, it is one line naming the file
        raise GameDeclarationError(f"{path}: cannot be read as package data: {type(err).__name__}: {err}") from err


_SETUP = "run scripts/setup.sh in the checkout (or pip install -e . there)"


def _distribution_name(point: importlib.metadata.EntryPoint) -> str:
    dist = point.dist
    return dist.name if dist is not None else "an unknown distribution"


def _where(point: importlib.metadata.EntryPoint) -> str:
    return f"entry point {point.name} = {point.value} of the distribution {_distribution_name(point)}"


def _own_metadata_problem() -> str | None:
    """Why Governor's own games cannot be found in its metadata, or None when its distribution is
    installed and registers games in the group."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return f"governor is not installed, so its own games are not registered ({GROUP}): {_SETUP}"
    if not any(point.group == GROUP for point in dist.entry_points):
        # The private path is only for the message (an old ``governor.egg-info`` in the current folder
        # shadows the installed metadata); a distribution without one is named by its version.
        where = getattr(dist, "_path", None)
        found = f" in {where}" if where is not None else f" (version {dist.version})"
        return (f"the installed metadata of governor{found} registers no game ({GROUP}): it predates the "
                f"games' entry points; {_SETUP}")
    return None


def _discover() -> dict[str, GameDeclaration]:
    problem = _own_metadata_problem()
    if problem is not None:
        raise GameDeclarationError(problem)
    found: dict[str, tuple[GameDeclaration, importlib.metadata.EntryPoint]] = {}
    for point in importlib.metadata.entry_points(group=GROUP):
        try:
            declared = point.load()
        except Exception as err:  # whatever a third party's import raises, it is one line naming it
            raise GameDeclarationError(f"{_where(point)} cannot be loaded: {type(err).__name__}: {err}") from err
        if not isinstance(declared, GameDeclaration):
            raise GameDeclarationError(f"{_where(point)} is a {type(declared).__name__}, not a GameDeclaration")
        if declared.name in found:
            raise GameDeclarationError(f"game {declared.name!r} is declared twice: by the {_where(point)} and by "
                                       f"the {_where(found[declared.name][1])}")
        if point.name != declared.name:
            raise GameDeclarationError(f"{_where(point)} declares the game {declared.name!r}: an entry point is "
                                       "named after its game")
        found[declared.name] = (declared, point)
    ordered = sorted((d for d, _ in found.values()), key=lambda d: (d.order, d.name))
    return {d.name: d for d in ordered}
