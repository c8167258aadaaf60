"""The queries of the Statistics page: each over the games and players a ``Filters`` selects.

Every query starts from common tables: ``sel`` (the games that match), ``base`` (the win share ``p0``
of all players of each player count in ``sel``, from the games' winners: what a player wins by
chance there) and ``pl`` (the
players of ``sel`` with their ``w``, 1 for a win, 0 else, or ``1/k`` for a full tie of ``k`` winners
when ties are shared, and their ``p0``; only the named player's seats when a player name is given).
Rates come back as ``n`` (rows counted), ``wins`` (sum of ``w``) and ``expected`` (sum of ``p0``);
``dashboards.stats.with_intervals`` adds the rate, its Wilson interval, the baseline and the lift.

The rates by building and role read the importer's summary tables (``ingest/summaries.py``), whose
rows carry game type, player count, name and result, so they need no join back to the players; a
database without them (an older schema, only read here) gets the same numbers from ``players`` and
``moves``.

Seats are numbered as in SQL: seat 0 is the first governor (the first player).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pandas as pd

from dashboards import data
from dashboards.stats import with_intervals
from replay.game import declarations

#: How a full tie counts: ``full`` = a win for every tied player (the ``won`` column of ``players``);
#: ``share`` = ``1/k`` of a win for each of the ``k`` tied players (win shares of a game add up to 1).
TIES = ("full", "share")


@dataclass(frozen=True)
class Filters:
    """Which games to count: one game type, player counts (empty: all), a date range on ``played_at``
    (games without a date are left out only when a range is given), a player name, how full ties
    count (``TIES``), and whether only games with a human player count (a seat of ``players`` whose
    ``bot`` is not true: NULL, in a lake's older files, is a person)."""

    game: str
    player_counts: tuple[int, ...] = ()
    date_from: date | None = None
    date_to: date | None = None
    player: str | None = None
    ties: str = "full"
    with_human: bool = False


def base_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The ``WITH sel AS (...), base AS (...), pl AS (...)`` prefix and its parameters."""
    if filters.ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {filters.ties!r}")
    where = ["game = ?"]
    params: list[Any] = [filters.game]
    if filters.player_counts:
        where.append("player_count IN (SELECT unnest(?::INT[]))")
        params.append(list(filters.player_counts))
    if filters.date_from is not None:
        where.append("TRY_CAST(played_at AS DATE) >= ?")
        params.append(filters.date_from)
    if filters.date_to is not None:
        where.append("TRY_CAST(played_at AS DATE) <= ?")
        params.append(filters.date_to)
    if filters.player:
        # By the players table's name: an agent's seats hold its identity (heuristic v1), not the log's name.
        where.append("game_id IN (SELECT game_id FROM players WHERE name = ?)")
        params.append(filters.player)
    if filters.with_human:
        where.append("game_id IN (SELECT game_id FROM players WHERE NOT coalesce(bot, false))")
    win = "1.0 / greatest(len(sel.winners), 1)" if filters.ties == "share" else "1.0"
    # Wins per game: every winner with full ties, one (shared) with shared ties; p0 = wins / seats.
    per_game = "(len(winners) > 0)::INT" if filters.ties == "share" else "len(winners)"
    player_where = ""
    if filters.player:
        player_where = "WHERE p.name = ?"
        params.append(filters.player)
    sql = (
        f"WITH sel AS (SELECT game_id, player_count, rounds, moves, winners FROM games WHERE {' AND '.join(where)}), "
        f"base AS (SELECT player_count, sum({per_game})::DOUBLE / (count(*) * player_count) AS p0 FROM sel GROUP BY player_count), "
        "pl AS (SELECT p.game_id, p.seat, p.name, p.score, p.rank, p.won, p.final_buildings, sel.player_count, "
        f"CASE WHEN p.won THEN {win} ELSE 0.0 END AS w, base.p0 FROM players p JOIN sel USING (game_id) "
        f"JOIN base USING (player_count) {player_where}) "
    )
    return sql, params


def _run(filters: Filters, body: str, more: list[Any] | None = None) -> pd.DataFrame:
    prefix, params = base_sql(filters)
    return data.frame(prefix + body, tuple(params + (more or [])))


def _split(split: bool) -> tuple[str, str]:
    """The select-list and order-by prefix of a rate query split by player count (or not)."""
    return ("player_count, ", "player_count, ") if split else ("", "")


def summary(filters: Filters) -> dict[str, Any]:
    """Games, player rows, wins, expected wins and average score and length of the selection."""
    row = _run(
        filters,
        "SELECT (SELECT count(*) FROM sel) AS games, count(*) AS n, coalesce(sum(w), 0) AS wins, "
        "coalesce(sum(p0), 0) AS expected, avg(score) AS avg_score, (SELECT avg(rounds) FROM sel) AS avg_rounds, "
        "(SELECT avg(moves) FROM sel) AS avg_moves FROM pl",
    )
    return dict(row.iloc[0].to_dict())


def win_rate_by_seat(filters: Filters) -> pd.DataFrame:
    """Win rate of each seat (0 = the first player) by player count; ``n`` counts games (one seat each)."""
    rows = _run(
        filters,
        "SELECT player_count, seat, count(*) AS n, sum(w) AS wins, sum(p0) AS expected FROM pl "
        "GROUP BY ALL ORDER BY player_count, seat",
    )
    rows["label"] = [seat_label(int(s), int(c)) for c, s in zip(rows["player_count"], rows["seat"])]
    return with_intervals(rows)


def seat_label(seat: int, player_count: int) -> str:
    """``"3p seat 0 (first)"``: seats numbered from 0 as in SQL, the first and last named."""
    where = " (first)" if seat == 0 else " (last)" if seat == player_count - 1 else ""
    return f"{player_count}p seat {seat}{where}"


def _has_summaries() -> bool:
    """Whether the database has the importer's summary tables (schema 5 on)."""
    return {"player_builds", "player_roles", "player_owned"} <= data.tables()


def _from_summary(filters: Filters, table: str, keys: str, where: str = "", more: list[Any] | None = None,
                  split: bool = False) -> pd.DataFrame:
    """Rates grouped by ``keys`` (columns of the summary table ``t``) over the selected players, with
    ``where`` (more conditions on ``t``) and its parameters ``more``."""
    share = "1.0 / greatest(t.winners, 1)" if filters.ties == "share" else "1.0"
    conditions = ["t.game = ?"]
    params: list[Any] = [filters.game]
    if filters.player_counts:
        conditions.append("t.player_count IN (SELECT unnest(?::INT[]))")
        params.append(list(filters.player_counts))
    if filters.date_from is not None or filters.date_to is not None or filters.with_human:
        conditions.append("t.game_id IN (SELECT game_id FROM sel)")
    if filters.player:
        conditions.append("t.name = ?")
        params.append(filters.player)
    if where:
        conditions.append(where)
    group = ("t.player_count, " if split else "") + keys
    rows = _run(
        filters,
        f"SELECT {group}, count(*) AS n, sum(CASE WHEN t.won THEN {share} ELSE 0.0 END) AS wins, sum(base.p0) AS expected "
        f"FROM {table} t JOIN base USING (player_count) WHERE {' AND '.join(conditions)} GROUP BY ALL ORDER BY {group}",
        params + (more or []),
    )
    return with_intervals(rows)


def _declared(game: str, part: str) -> tuple[str | None, str | None]:
    """The kind of move and the JSON path of what it names, of the sort ``part`` (``build``, ``choice``)
    that ``game`` declares (``GameDeclaration``): (None, None), which selects no move, for a game that
    declares none or that no package declares."""
    found = declarations().get(game)
    move = getattr(found, part, None) if found is not None else None
    return (move.kind, f"$.{move.key}") if move is not None else (None, None)


def win_rate_by_building(filters: Filters, split: bool = False) -> pd.DataFrame:
    """Win rate of players owning each building at the end of the game; ``n`` counts players
    (a player owning two of a building counts once). ``split``: one row per player count too."""
    if _has_summaries():
        return _from_summary(filters, "player_owned", "t.building", split=split)
    cols, order = _split(split)
    rows = _run(
        filters,
        f"SELECT {cols}building, count(*) AS n, sum(w) AS wins, sum(p0) AS expected FROM "
        "(SELECT player_count, w, p0, unnest(list_distinct(final_buildings)) AS building FROM pl) "
        f"GROUP BY ALL ORDER BY {order}building",
    )
    return with_intervals(rows)


def win_rate_by_building_round(filters: Filters, by_round: int, split: bool = False) -> pd.DataFrame:
    """Win rate of players who had built each building by the end of round ``by_round``; ``n`` counts
    players (building it twice counts once)."""
    if _has_summaries():
        return _from_summary(filters, "player_builds", "t.building", "t.round <= ?", [by_round], split)
    cols, order = _split(split)
    kind, path = _declared(filters.game, "build")
    rows = _run(
        filters,
        f"SELECT {cols.replace('player_count', 'pl.player_count')}b.building, count(*) AS n, sum(pl.w) AS wins, "
        "sum(pl.p0) AS expected FROM "
        "(SELECT game_id, seat, json_extract_string(details, ?) AS building FROM moves "
        " WHERE kind = ? AND round <= ? AND game_id IN (SELECT game_id FROM sel) GROUP BY ALL) b "
        f"JOIN pl ON pl.game_id = b.game_id AND pl.seat = b.seat GROUP BY ALL ORDER BY {order}b.building",
        [path, kind, by_round],
    )
    return with_intervals(rows)


def win_rate_by_role_round(filters: Filters, split: bool = False) -> pd.DataFrame:
    """Win rate of players by the role they chose and the round they chose it in. ``n`` counts role
    choices: each role is chosen at most once a round, so that is the games in which it was chosen
    that round, one chooser each (in 2-player games the governor chooses twice a round, so one
    player can count under two roles of the same round)."""
    if _has_summaries():
        return _from_summary(filters, "player_roles", "t.round, t.role", split=split)
    cols, order = _split(split)
    kind, path = _declared(filters.game, "choice")
    rows = _run(
        filters,
        f"SELECT {cols.replace('player_count', 'pl.player_count')}m.round, "
        "json_extract_string(m.details, ?) AS role, count(*) AS n, sum(pl.w) AS wins, sum(pl.p0) AS expected "
        "FROM moves m JOIN pl ON pl.game_id = m.game_id AND pl.seat = m.seat "
        f"WHERE m.kind = ? AND m.game_id IN (SELECT game_id FROM sel) GROUP BY ALL ORDER BY {order}m.round, role",
        [path, kind],
    )
    return with_intervals(rows)


def score_counts(filters: Filters) -> pd.DataFrame:
    """How many selected players ended with each score, winners and the rest apart (``players``)."""
    return _run(filters, "SELECT score, CASE WHEN won THEN 'winners' ELSE 'the rest' END AS result, "
                         "count(*) AS players FROM pl GROUP BY ALL ORDER BY score")


def score_summary(filters: Filters) -> pd.DataFrame:
    """Players, mean, min, median and max of the final score by player count, winners and the rest apart."""
    return _run(filters, "SELECT player_count AS players_in_game, CASE WHEN won THEN 'winners' ELSE 'the rest' END "
                         "AS result, count(*) AS players, round(avg(score), 1) AS mean, min(score) AS min, "
                         "median(score) AS median, max(score) AS max FROM pl GROUP BY ALL ORDER BY 1, 2 DESC")


def game_lengths(filters: Filters) -> pd.DataFrame:
    """How many selected games lasted each number of rounds (``games``), by player count."""
    return _run(filters, "SELECT player_count, rounds, count(*) AS games FROM sel GROUP BY ALL ORDER BY player_count, rounds")


def game_moves(filters: Filters, width: int = 10) -> pd.DataFrame:
    """How many selected games had each length in moves, in bins of ``width`` moves (``moves`` is the
    bin's lower end), by player count."""
    return _run(filters, "SELECT player_count, (moves // ?) * ? AS moves, count(*) AS games FROM sel "
                         "GROUP BY ALL ORDER BY player_count, moves", [width, width])


def vp_by_round(filters: Filters) -> pd.DataFrame:
    """The average score (the column the game declares, ``vp`` for a game not registered, as ``vp``) at
    the end of each round of winners and of the others, with a 95 % interval of the mean. The end of a
    round is the state after its last move (rounds and steps from ``moves``)."""
    table = f'"{filters.game}_player_states"'
    if filters.game not in data.games_with_states():
        return pd.DataFrame(columns=["round", "group", "vp", "low", "high", "n"])
    declared = declarations().get(filters.game)
    score = f'ps."{declared.score_column if declared is not None else "vp"}"'
    rows = _run(
        filters,
        f"SELECT e.round, CASE WHEN pl.won THEN 'winners' ELSE 'the rest' END AS \"group\", avg({score}) AS vp, "
        f"stddev_samp({score}) AS sd, count(*) AS n FROM "
        "(SELECT game_id, round, max(step) AS step FROM moves WHERE game_id IN (SELECT game_id FROM sel) GROUP BY ALL) e "
        f"JOIN {table} ps ON ps.game_id = e.game_id AND ps.step = e.step "
        "JOIN pl ON pl.game_id = ps.game_id AND pl.seat = ps.seat GROUP BY ALL ORDER BY e.round",
    )
    half = 1.96 * rows["sd"].fillna(0) / rows["n"].clip(lower=1) ** 0.5
    rows["low"] = rows["vp"] - half
    rows["high"] = rows["vp"] + half
    return rows


def player_names(game: str, limit: int = 2000) -> list[str]:
    """The ``limit`` most frequent player names of one game type (suggestions for the player box;
    any other name can be typed)."""
    rows = data.frame(
        "SELECT p.name, count(*) AS n FROM players p JOIN games g USING (game_id) WHERE g.game = ? "
        "GROUP BY ALL ORDER BY n DESC, p.name LIMIT ?",
        (game, limit),
    )
    return list(rows["name"])


def player_games(game: str, name: str) -> int:
    """How many games of one type a player (exact name) played."""
    rows = data.frame("SELECT count(*) AS n FROM games WHERE game = ? AND game_id IN (SELECT game_id FROM players WHERE name = ?)",
                      (game, name))
    return int(rows["n"].iloc[0])


#: What "win chance added" is grouped by: the building a build move names, the role a choice names
#: (the game's declared ``build`` and ``choice``), or the kind of every move.
ADDED_BY = ("building", "role", "kind")


def has_win_chance() -> bool:
    """Whether the database holds learned win chances (``governor winchance --db`` filled the table
    ``win_chance``; a database made before it has no such table)."""
    return "win_chance" in data.tables() and bool(data.frame("SELECT EXISTS (SELECT 1 FROM win_chance) AS f")["f"].iloc[0])


def win_chance_added(filters: Filters, by: str, split: bool = False) -> pd.DataFrame:
    """For each building built, role chosen or kind of move (``by``, one of ``ADDED_BY``): ``n`` moves of
    the selected players, ``added`` the mean change of the mover's learned win chance across the move
    (the table ``win_chance``: after the move less before it, as a share), its 95 % interval
    ``added_low``, ``added_high`` (normal, from the changes' spread; NaN for a single move), and beside it
    the raw win rate of those movers (``with_intervals``; a player making the move twice counts twice).
    Moves of games without win chances are left out. ``split``: one row per player count too. Raises
    ``ValueError`` for another ``by``."""
    if by not in ADDED_BY:
        raise ValueError(f"win chance added is by {', '.join(ADDED_BY)}, not {by!r}")
    cols, order = _split(split)
    if by == "kind":
        key, where, params = "m.kind", "", []
    else:
        kind, path = _declared(filters.game, "build" if by == "building" else "choice")
        key, where, params = "json_extract_string(m.details, ?)", "AND m.kind = ? ", [path, kind]
    rows = _run(
        filters,
        f"SELECT {cols.replace('player_count', 'pl.player_count')}d.key AS {by}, count(*) AS n, avg(d.delta) AS added, "
        "coalesce(stddev_samp(d.delta), 'NaN'::DOUBLE) AS sd, sum(pl.w) AS wins, sum(pl.p0) AS expected FROM "
        f"(SELECT m.game_id, m.seat, {key} AS key, a.win_chance - b.win_chance AS delta FROM moves m "
        " JOIN win_chance a ON a.game_id = m.game_id AND a.step = m.step AND a.seat = m.seat "
        " JOIN win_chance b ON b.game_id = m.game_id AND b.step = m.step - 1 AND b.seat = m.seat "
        f" WHERE m.game_id IN (SELECT game_id FROM sel) {where}) d "
        f"JOIN pl ON pl.game_id = d.game_id AND pl.seat = d.seat GROUP BY ALL ORDER BY {order}{by}",
        params,
    )
    half = 1.96 * rows["sd"] / rows["n"].clip(lower=1) ** 0.5
    rows["added_low"], rows["added_high"] = rows["added"] - half, rows["added"] + half
    return with_intervals(rows.drop(columns="sd"))
