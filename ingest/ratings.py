"""Skill ratings of players, per game type, with OpenSkill's Plackett-Luce model (PyPI ``openskill``).

Every player starts at mu 25, sigma 25/3; each game updates the ratings of its players from their
final ranks (ties share a rank), one game at a time in a fixed order: ``played_at`` (games without a
date first), then ``game_id``. The conservative rating, ``ordinal``, is mu - 3 sigma: a player with
few games has a large sigma and so a low ordinal until the games confirm the skill. San Juan and Puerto
Rico are rated separately. The whole history is recomputed after an import that added games, so the
result does not depend on the order the logs were imported in.

A game in which one name holds two seats is not rated: the two seats cannot be one player's rating.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from openskill.models import PlackettLuce

from ingest.schema import PLAYER_RATING_HISTORY, PLAYER_RATINGS

#: What the stored ratings were computed with; a change makes them stale.
METHOD = f"openskill {version('openskill')} PlackettLuce mu=25 sigma=25/3 ordinal=mu-3sigma"
BASIS_KEY = "ratings_basis"


@dataclass(frozen=True)
class Seat:
    """One seat of a finished game, as the ratings need it."""

    seat: int
    name: str
    rank: int
    won: bool


@dataclass(frozen=True)
class RatedGame:
    """A finished game in rating order."""

    game: str
    game_id: str
    seats: tuple[Seat, ...]


@dataclass
class Rating:
    """A player's rating after the games seen so far."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    last_game_id: str = ""

    @property
    def ordinal(self) -> float:
        """The conservative rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def rate_games(games: Iterable[RatedGame]) -> tuple[dict[tuple[str, str], Rating], list[dict[str, Any]]]:
    """Rate ``games`` in the order given. Returns the final rating by ``(game, name)`` and the
    history: one row per rated seat with the player's rating after that game."""
    ratings: dict[tuple[str, str], Rating] = {}
    history = list(rate_more(games, ratings, PlackettLuce()))
    return ratings, history


def rate_more(games: Iterable[RatedGame], ratings: dict[tuple[str, str], Rating], model: PlackettLuce) -> Iterator[dict[str, Any]]:
    """Rate ``games`` in the order given, on top of (and updating) ``ratings``; yields the history
    rows as it goes, so that a caller can rate any number of games in bounded memory."""
    for played in games:
        names = [s.name for s in played.seats]
        if len(set(names)) != len(names):
            continue
        current = [ratings.setdefault((played.game, n), Rating(model.mu, model.sigma)) for n in names]
        teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in current]
        new = model.rate(teams, ranks=[float(s.rank) for s in played.seats])
        for seat, rating, (updated,) in zip(played.seats, current, new):
            rating.mu, rating.sigma = float(updated.mu), float(updated.sigma)
            rating.games += 1
            rating.wins += int(seat.won)
            rating.last_game_id = played.game_id
            yield {
                "game": played.game, "game_id": played.game_id, "seat": seat.seat, "name": seat.name,
                "number": rating.games, "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal,
            }


def rate_file(games_file: Path, history_file: Path, chunk: int = 20_000) -> dict[tuple[str, str], Rating]:
    """Rate the games of a Parquet file of ``GAMES_IN_ORDER``'s rows, writing the history to
    ``history_file`` (Parquet) a chunk at a time. Memory holds one chunk and one rating per player,
    however many games there are (a list of every game and every history row took about 1 KB a game)."""
    model = PlackettLuce()
    ratings: dict[tuple[str, str], Rating] = {}
    with pq.ParquetWriter(history_file, PLAYER_RATING_HISTORY) as out:
        for batch in pq.ParquetFile(games_file).iter_batches(batch_size=chunk):
            rows = rate_more(_rated(batch.to_pylist()), ratings, model)
            out.write_table(pa.Table.from_pylist(list(rows), schema=PLAYER_RATING_HISTORY))
    return ratings


def _rated(rows: Iterable[dict[str, Any]]) -> Iterator[RatedGame]:
    for row in rows:
        seats = zip(row["seats"], row["names"], row["ranks"], row["won"])
        yield RatedGame(row["game"], row["game_id"], tuple(Seat(int(s), str(n), int(r), bool(w)) for s, n, r, w in seats))


GAMES_IN_ORDER = """
    SELECT g.game, g.game_id, list(p.seat ORDER BY p.seat) AS seats, list(p.name ORDER BY p.seat) AS names,
           list(p.rank ORDER BY p.seat) AS ranks, list(p.won ORDER BY p.seat) AS won
    FROM games g JOIN players p USING (game_id)
    GROUP BY g.game, g.game_id, g.played_at
    ORDER BY g.played_at NULLS FIRST, g.game_id"""


def stored_games(con: duckdb.DuckDBPyConnection) -> tuple[list[RatedGame], str]:
    """Every stored finished game in rating order, and the basis they make (see ``ratings_stale``)."""
    rows = con.execute(GAMES_IN_ORDER).fetchall()
    games = [
        RatedGame(game, game_id, tuple(Seat(int(s), str(n), int(r), bool(w)) for s, n, r, w in zip(*seats)))
        for game, game_id, *seats in rows
    ]
    return games, _basis(con)


def basis(con: duckdb.DuckDBPyConnection) -> str:
    """What ratings computed now would be computed from (see ``ratings_stale``)."""
    return _basis(con)


def _basis(con: duckdb.DuckDBPyConnection) -> str:
    (count,) = con.execute("SELECT count(*) FROM games").fetchall()[0]
    return f"{count} games; {METHOD}"


def ratings_stale(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the stored ratings were computed from other games or another method (games are only
    ever added, so the number of games tells whether any came since)."""
    rows = con.execute("SELECT value FROM governor_meta WHERE key = ?", [BASIS_KEY]).fetchall()
    return not rows or rows[0][0] != _basis(con)


def recompute_ratings(con: duckdb.DuckDBPyConnection) -> int:
    """Rate every stored game again and replace ``player_ratings`` and ``player_rating_history``
    (inside the caller's transaction). Returns the number of ratings stored."""
    games, basis = stored_games(con)
    ratings, history = rate_games(games)
    return write_ratings(con, ratings, history, basis)


def write_ratings(
    con: duckdb.DuckDBPyConnection,
    ratings: dict[tuple[str, str], Rating],
    history: list[dict[str, Any]] | Path,
    basis: str,
) -> int:
    """Replace ``player_ratings`` and ``player_rating_history`` with ``rate_games``'s result (or
    ``rate_file``'s: ``history`` is then its Parquet file) and record the ``basis`` it was computed from
    (inside the caller's transaction). Returns the ratings stored."""
    keys: Sequence[tuple[str, str]] = sorted(ratings)
    table = pa.table(
        {
            "game": [k[0] for k in keys],
            "name": [k[1] for k in keys],
            "games": pa.array([ratings[k].games for k in keys], pa.int32()),
            "wins": pa.array([ratings[k].wins for k in keys], pa.int32()),
            "mu": [ratings[k].mu for k in keys],
            "sigma": [ratings[k].sigma for k in keys],
            "ordinal": [ratings[k].ordinal for k in keys],
            "last_game_id": [ratings[k].last_game_id for k in keys],
        },
        schema=PLAYER_RATINGS,
    )
    con.execute("DELETE FROM player_ratings")
    con.execute("DELETE FROM player_rating_history")
    con.register("incoming_ratings", table)
    try:
        con.execute("INSERT INTO player_ratings SELECT * FROM incoming_ratings")
    finally:
        con.unregister("incoming_ratings")
    if isinstance(history, Path):
        con.execute("INSERT INTO player_rating_history SELECT * FROM read_parquet(?)", [str(history)])
    else:
        con.register("incoming_history", pa.Table.from_pylist(history, schema=PLAYER_RATING_HISTORY))
        try:
            con.execute("INSERT INTO player_rating_history SELECT * FROM incoming_history")
        finally:
            con.unregister("incoming_history")
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES (?, ?)", [BASIS_KEY, basis])
    return table.num_rows
