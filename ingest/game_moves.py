"""The SQL that finds a game's declared sorts of move in the ``moves`` table, made from the registered
games' declarations (``replay.game.MovePart``: the move a seat chooses its part of a round with, the
move that builds; ``OpeningMove``: the Explorer's first decisions), so that no query holds a game's
kind of move or key. The views and summary tables (``ingest.schema``, ``ingest.summaries``), the
openings (``ingest.openings``) and the Statistics page read their moves through these.

Each statement is made for every registered game: a move counts when its game (``games.game``)
declares its kind. The games' own words reach the SQL as quoted literals only.
"""

from __future__ import annotations

from collections import defaultdict

from replay.game import MovePart, OpeningMove
from replay.registry import game_names, game_of

#: The declared sorts of move: ``GameDeclaration.choice`` and ``GameDeclaration.build``.
PARTS = ("choice", "build")


def literal(text: str) -> str:
    """``text`` as an SQL string literal (quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


def _games(names: list[str], games: str) -> str:
    return f"{games}.game = {literal(names[0])}" if len(names) == 1 else \
        f"{games}.game IN ({', '.join(literal(n) for n in names)})"


def declared(part: str) -> dict[str, MovePart]:
    """Each registered game's declared move of sort ``part`` (``choice`` or ``build``), by game, in the
    registry's order; a game that declares none is left out. Raises ``ValueError`` for another sort."""
    if part not in PARTS:
        raise ValueError(f"no sort of move {part!r} (sorts: {', '.join(PARTS)})")
    found = {game: getattr(game_of(game), part) for game in game_names()}
    return {game: move for game, move in found.items() if move is not None}


def _by_move(part: str) -> dict[MovePart, list[str]]:
    """The games of each declared move of sort ``part`` (games that declare the same move share it)."""
    out: dict[MovePart, list[str]] = defaultdict(list)
    for game, move in declared(part).items():
        out[move].append(game)
    return dict(out)


def part_filter(part: str, moves: str = "m", games: str = "g") -> str:
    """An SQL condition true for a row of ``moves`` (an alias) of the sort ``part`` of its game (the row
    of ``games`` joined to it); ``false`` when no game declares one."""
    terms = [f"({moves}.kind = {literal(move.kind)} AND {_games(names, games)})" for move, names in _by_move(part).items()]
    return "(" + " OR ".join(terms) + ")" if terms else "false"


def part_value(part: str, moves: str = "m", games: str = "g") -> str:
    """An SQL expression of what a move of the sort ``part`` names (its JSON form's declared key); NULL
    for a game that declares none."""
    keys: dict[str, list[str]] = defaultdict(list)
    for move, names in _by_move(part).items():
        keys[move.key].extend(names)
    if not keys:
        return "NULL::VARCHAR"
    if len(keys) == 1:
        return f"json_extract_string({moves}.details, {literal('$.' + next(iter(keys)))})"
    cases = " ".join(f"WHEN {_games(names, games)} THEN json_extract_string({moves}.details, {literal('$.' + key)})"
                     for key, names in keys.items())
    return f"CASE {cases} END"


def _opening_token(move: OpeningMove, moves: str) -> str:
    value = f"json_extract_string({moves}.details, {literal('$.' + move.key)})" if move.key else ""
    if move.words and value:
        return f"{literal(move.words + ' ')} || {value}"
    if value:
        return f"upper({value}[1]) || {value}[2:]"
    return literal(move.words) if move.words else f"{moves}.kind"


def _openings() -> list[tuple[OpeningMove, list[str]]]:
    out: dict[OpeningMove, list[str]] = defaultdict(list)
    for game in game_names():
        for move in game_of(game).openings:
            out[move].append(game)
    return list(out.items())


def opening_filter(moves: str = "m", games: str = "g") -> str:
    """An SQL condition true for a move its game counts among its first decisions (its declared
    ``openings``: the kind, in the phase given); ``false`` when no game declares any."""
    terms = []
    for move, names in _openings():
        phase = f" AND {moves}.role = {literal(move.phase)}" if move.phase else ""
        terms.append(f"({moves}.kind = {literal(move.kind)}{phase} AND {_games(names, games)})")
    return "(" + " OR ".join(terms) + ")" if terms else "false"


def opening_token(moves: str = "m", games: str = "g") -> str:
    """An SQL expression of the token of a first decision (``OpeningMove``): the token of the first
    declared opening move that fits the row, else its kind."""
    cases = []
    for move, names in _openings():
        phase = f" AND {moves}.role = {literal(move.phase)}" if move.phase else ""
        cases.append(f"WHEN {moves}.kind = {literal(move.kind)}{phase} AND {_games(names, games)} "
                     f"THEN {_opening_token(move, moves)}")
    return f"CASE {' '.join(cases)} ELSE {moves}.kind END" if cases else f"{moves}.kind"
