"""The queries of the Statistics page: each over the games and players a ``Filters`` selects.

Every query starts from two common tables: ``sel`` (the games that match) and ``pl`` (their players,
or only the named player's seats when a player name is given). Rates come back as ``wins`` and ``n``;
``dashboards.stats.with_intervals`` adds the rate and its Wilson interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pandas as pd

from dashboards import data
from dashboards.stats import with_intervals


@dataclass(frozen=True)
class Filters:
    """Which games to count: one game type, player counts, a date range on ``played_at`` (games
    without a date are left out only when a range is given), and a player name."""

    game: str
    player_counts: tuple[int, ...] = ()
    date_from: date | None = None
    date_to: date | None = None
    player: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


def base_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The ``WITH sel AS (...), pl AS (...)`` prefix and its parameters."""
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
        where.append("list_contains(players, ?)")
        params.append(filters.player)
    player_where = ""
    if filters.player:
        player_where = "WHERE p.name = ?"
        params.append(filters.player)
    sql = (
        f"WITH sel AS (SELECT game_id, player_count, rounds, moves FROM games WHERE {' AND '.join(where)}), "
        f"pl AS (SELECT p.*, sel.player_count FROM players p JOIN sel USING (game_id) {player_where}) "
    )
    return sql, params


def _run(filters: Filters, body: str, more: list[Any] | None = None) -> pd.DataFrame:
    prefix, params = base_sql(filters)
    return data.frame(prefix + body, tuple(params + (more or [])))


def summary(filters: Filters) -> dict[str, Any]:
    """Games, player rows, wins and average score and length of the selection."""
    row = _run(
        filters,
        "SELECT (SELECT count(*) FROM sel) AS games, count(*) AS n, coalesce(sum(won::INT), 0) AS wins, "
        "avg(score) AS avg_score, (SELECT avg(rounds) FROM sel) AS avg_rounds, "
        "(SELECT avg(moves) FROM sel) AS avg_moves FROM pl",
    )
    return row.iloc[0].to_dict()


def win_rate_by_seat(filters: Filters) -> pd.DataFrame:
    """Win rate of each seat (0 = the first player) by player count."""
    rows = _run(
        filters,
        "SELECT player_count, seat, count(*) AS n, sum(won::INT) AS wins FROM pl GROUP BY ALL ORDER BY player_count, seat",
    )
    rows["label"] = [f"{int(c)}p, seat {int(s) + 1}" for c, s in zip(rows["player_count"], rows["seat"])]
    return with_intervals(rows)


def win_rate_by_building(filters: Filters) -> pd.DataFrame:
    """Win rate of players owning each building at the end of the game."""
    rows = _run(
        filters,
        "SELECT building, count(*) AS n, sum(won::INT) AS wins FROM "
        "(SELECT won, unnest(list_distinct(final_buildings)) AS building FROM pl) GROUP BY ALL ORDER BY building",
    )
    return with_intervals(rows)


def win_rate_by_building_round(filters: Filters, by_round: int) -> pd.DataFrame:
    """Win rate of players who had built each building by the end of round ``by_round``."""
    rows = _run(
        filters,
        "SELECT b.building, count(*) AS n, sum(pl.won::INT) AS wins FROM "
        "(SELECT m.game_id, m.seat, json_extract_string(m.details, '$.building') AS building, min(m.round) AS round "
        " FROM moves m WHERE m.kind = 'build' AND m.game_id IN (SELECT game_id FROM sel) GROUP BY ALL) b "
        "JOIN pl ON pl.game_id = b.game_id AND pl.seat = b.seat WHERE b.round <= ? GROUP BY ALL ORDER BY b.building",
        [by_round],
    )
    return with_intervals(rows)


def win_rate_by_role_round(filters: Filters) -> pd.DataFrame:
    """Win rate of players by the role they chose and the round they chose it in."""
    rows = _run(
        filters,
        "SELECT m.round, json_extract_string(m.details, '$.role') AS role, count(*) AS n, sum(pl.won::INT) AS wins "
        "FROM moves m JOIN pl ON pl.game_id = m.game_id AND pl.seat = m.seat "
        "WHERE m.kind = 'role' AND m.game_id IN (SELECT game_id FROM sel) GROUP BY ALL ORDER BY m.round, role",
    )
    return with_intervals(rows)


def scores(filters: Filters) -> pd.DataFrame:
    """Final score, rank and result of every selected player."""
    return _run(filters, "SELECT player_count, score, won, rank FROM pl")


def game_lengths(filters: Filters) -> pd.DataFrame:
    """Rounds and moves of every selected game."""
    return _run(filters, "SELECT player_count, rounds, moves FROM sel")


def vp_by_round(filters: Filters) -> pd.DataFrame:
    """Average VP at the end of each round of winners and of the others, with a 95 % interval of the
    mean. The end of a round is the state after its last move (rounds and steps from ``moves``)."""
    table = f'"{filters.game}_player_states"'
    if filters.game not in data.games_with_states():
        return pd.DataFrame(columns=["round", "group", "vp", "low", "high", "n"])
    rows = _run(
        filters,
        "SELECT e.round, CASE WHEN pl.won THEN 'winners' ELSE 'the rest' END AS \"group\", avg(ps.vp) AS vp, "
        "stddev_samp(ps.vp) AS sd, count(*) AS n FROM "
        "(SELECT game_id, round, max(step) AS step FROM moves WHERE game_id IN (SELECT game_id FROM sel) GROUP BY ALL) e "
        f"JOIN {table} ps ON ps.game_id = e.game_id AND ps.step = e.step "
        "JOIN pl ON pl.game_id = ps.game_id AND pl.seat = ps.seat GROUP BY ALL ORDER BY e.round",
    )
    half = 1.96 * rows["sd"].fillna(0) / rows["n"].clip(lower=1) ** 0.5
    rows["low"] = rows["vp"] - half
    rows["high"] = rows["vp"] + half
    return rows


def player_names(game: str) -> list[str]:
    """Every player name seen in games of one type, most frequent first."""
    rows = data.frame(
        "SELECT p.name, count(*) AS n FROM players p JOIN games g USING (game_id) WHERE g.game = ? "
        "GROUP BY ALL ORDER BY n DESC, p.name LIMIT 2000",
        (game,),
    )
    return list(rows["name"])
