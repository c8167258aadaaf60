"""The queries of the Explorer page, over the ``openings`` table (one row per game: its first decisions
as tokens, who made each and at which step; see ``ingest.openings``).

A node is a path of tokens from the start of the game; its games are those whose decisions start with
the path. A win is counted for the seat that made a decision when that seat is among the game's
winners (so on a full tie every tied seat wins). The baseline of a set of games is the average of
1 / player count over them: the win rate of a seat chosen at random.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboards import data
from dashboards.plain import sql_names
from dashboards.stats import with_intervals

#: Separator of the path's tokens in the URL (tokens are role, building and plantation names).
PATH_SEPARATOR = ","
#: Example games listed at a node.
EXAMPLES = 10


@dataclass(frozen=True)
class Node:
    """A node of the tree: a game type, the player counts counted (empty = all), and the path."""

    game: str
    player_counts: tuple[int, ...] = ()
    path: tuple[str, ...] = ()

    @property
    def depth(self) -> int:
        """How many decisions lead to this node."""
        return len(self.path)


def parse_path(text: str | None) -> tuple[str, ...]:
    """The path stored in the URL (``Role,build Card``: tokens joined by commas) as a tuple of tokens."""
    if not text:
        return ()
    return tuple(token.strip() for token in text.split(PATH_SEPARATOR) if token.strip())


def path_text(path: tuple[str, ...]) -> str:
    """A path as the URL stores it."""
    return PATH_SEPARATOR.join(path)


def _where(node: Node, table: str = "openings") -> tuple[str, list[Any]]:
    """The filter selecting the node's games from ``table`` (a name or alias of ``openings``), and
    its parameters."""
    where = [f"{table}.game = ?"]
    params: list[Any] = [node.game]
    if node.player_counts:
        where.append(f"{table}.player_count IN (SELECT unnest(?::INT[]))")
        params.append(list(node.player_counts))
    if node.path:
        where.append(f"len({table}.decisions) >= {node.depth} AND {table}.decisions[1:{node.depth}] = ?::VARCHAR[]")
        params.append(list(node.path))
    return " AND ".join(where), params


def node_summary(node: Node) -> dict[str, Any]:
    """Games at the node, the wins of the seats that made its last decision (none at the root), the
    baseline of those games, and ``seats``: who made each decision of the path as text (0 = the first
    governor, as in SQL; several seats when the selected player counts disagree). One query."""
    where, params = _where(node)
    won = f"list_contains(winners, seats[{node.depth}])" if node.depth else "false"
    seat_columns = "".join(
        f", array_to_string(list_sort(list_distinct(list(seats[{i}]))), ', ') AS seat_{i}"
        for i in range(1, node.depth + 1)
    )
    row = data.frame(
        f"SELECT count(*) AS games, coalesce(sum({won}::INT), 0) AS wins, avg(1.0 / player_count) AS baseline"
        f"{seat_columns} FROM openings WHERE {where}",
        tuple(params),
    ).iloc[0]
    seats = [row[f"seat_{i}"] for i in range(1, node.depth + 1)]
    return {"games": int(row["games"]), "wins": int(row["wins"]),
            "baseline": float(row["baseline"]) if pd.notna(row["baseline"]) else float("nan"),
            "seats": [str(v) if isinstance(v, str) and v else "?" for v in seats]}


def continuations(node: Node) -> pd.DataFrame:
    """The decisions made next from the node, most common first: ``decision``, ``seats`` (who made
    it, 0 = the first governor as in SQL; several when player counts differ), ``games``, ``share`` of the node's
    games that went on, ``wins`` of the seat making it, ``baseline``, rate and Wilson interval, and
    ``lift`` (win rate minus baseline)."""
    where, params = _where(node)
    k = node.depth + 1
    rows = data.frame(
        f"""SELECT decisions[{k}] AS decision,
                   array_to_string(list_sort(list_distinct(list(seats[{k}]))), ', ') AS seats,
                   count(*) AS games, sum(list_contains(winners, seats[{k}])::INT) AS wins,
                   avg(1.0 / player_count) AS baseline, min(steps[{k}]) AS first_step
            FROM openings WHERE {where} AND len(decisions) >= {k}
            GROUP BY decision ORDER BY games DESC, decision""",
        tuple(params),
    )
    rows = with_intervals(rows, wins="wins", n="games")
    total = int(rows["games"].sum()) if len(rows) else 0
    rows["share"] = rows["games"] / total if total else 0.0
    rows["lift"] = rows["win_rate"] - rows["baseline"]
    return rows


def example_games(node: Node, limit: int = EXAMPLES) -> pd.DataFrame:
    """Some games through the node, newest first: id, date, players, winners (as text to show: each
    name isolated, ``plain.sql_names``) and ``step``, the move after which the node's position is
    reached (0 at the root)."""
    where, params = _where(node, "o")
    step = f"o.steps[{node.depth}]" if node.depth else "0"
    return data.frame(
        f"""SELECT o.game_id, g.played_at, o.player_count, {sql_names('g.players')} AS players,
                   {sql_names('g.winner_names')} AS winner, {step} AS step
            FROM openings o JOIN games g USING (game_id)
            WHERE {where}
            ORDER BY g.played_at DESC NULLS LAST, o.game_id LIMIT {int(limit)}""",
        tuple(params),
    )


def interval_text(frame: pd.DataFrame) -> list[str]:
    """Each row's 95 % interval (``ci_low``, ``ci_high``) as short text, e.g. ``10.8-60.3%``."""
    return [f"{low:.1%}-{high:.1%}".replace("%-", "-") for low, high in zip(frame["ci_low"], frame["ci_high"])]


def game_types() -> pd.DataFrame:
    """Game types with their stored openings and player counts."""
    return data.frame(
        "SELECT game, count(*) AS games, list_sort(list_distinct(list(player_count))) AS counts "
        "FROM openings GROUP BY game ORDER BY games DESC, game"
    )
