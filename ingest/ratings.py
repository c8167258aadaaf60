"""Skill ratings of players, per game type, with OpenSkill's Plackett-Luce model (PyPI ``openskill``):
the one way Governor rates games, used by the importer (``player_ratings``) and by ``governor arena``'s
leaderboard (``governor.arena.leaderboard``), so that the two cannot disagree on the same games.

A player is an identity, ``(name, bot)``: a person by the name in the log, an agent by its name and
version (``ingest.rows.agent_identity``: ``heuristic v1``, whichever seat it held and however the
arena told its copies apart). Every player starts at mu 25, sigma 25/3; each game updates the
ratings of its players from their final ranks (ties share a rank), one game at a time, in a fixed
order (``GAMES_IN_ORDER``): by ``played_at``, games without a date first; then by ``source_id``, a
number at its end compared as a number (``arena-...-000009`` before ``arena-...-000010``, so an
arena's games go in the order it played them); then by ``source_id`` as text and, last, by
``game_id``. Nothing depends on the order the logs were imported in: the whole history is rated
again after an import that added games. Each game is rated separately.

A player holding several seats of one game (an agent playing itself, a name given twice) is rated
once for that game, at the mean of its seats' ranks, so that holding more seats neither helps nor
hurts; its ``games`` and ``wins`` count seats (a game counts once per seat held), its history one
row for the game. A game with fewer than two players (every seat held by one) is not rated, nor is
a game played with take-backs (``UNRATED``).
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
METHOD = (f"openskill {version('openskill')} PlackettLuce mu=25 sigma=25/3 ordinal=mu-3sigma; "
          "players by identity, several seats at their mean rank; order played_at, source_id, game_id; "
          "games with take-backs left out")
BASIS_KEY = "ratings_basis"

#: A player's key in a set of ratings: (game type, name, bot).
Key = tuple[str, str, bool]


@dataclass(frozen=True)
class Seat:
    """One seat of a finished game, as the ratings need it: who held it (``name`` and ``bot``, the
    player's identity), its final rank (1 = best) and whether it won."""

    seat: int
    name: str
    rank: int
    won: bool
    bot: bool = False


@dataclass(frozen=True)
class RatedGame:
    """A finished game in rating order."""

    game: str
    game_id: str
    seats: tuple[Seat, ...]


@dataclass
class Rating:
    """A player's rating after the games seen so far: ``games`` and ``wins`` count seats, ``rated``
    the games."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    last_game_id: str = ""
    rated: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


class Ratings:
    """Ratings updated game by game in the order the games are given (``rate``): the one rating
    computation, shared by the importer and the arena's leaderboard."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self.by_player: dict[Key, Rating] = {}

    def get(self, game: str, name: str, bot: bool) -> Rating:
        """The player's rating (the starting one when the player has no rated game)."""
        return self.by_player.get((game, name, bot)) or Rating(self.model.mu, self.model.sigma)

    def rate(self, game: str, game_id: str, seats: Sequence[Seat]) -> list[dict[str, Any]]:
        """Rate one finished game; returns its history rows (one per player, at the player's first
        seat, with the rating after the game), none when it is not rated (fewer than two players)."""
        held: dict[tuple[str, bool], list[Seat]] = {}
        for seat in seats:
            held.setdefault((seat.name, seat.bot), []).append(seat)
        if len(held) < 2:
            return []
        model = self.model
        current = [self.by_player.setdefault((game, name, bot), Rating(model.mu, model.sigma)) for name, bot in held]
        teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in current]
        ranks = [sum(s.rank for s in mine) / len(mine) for mine in held.values()]
        new = model.rate(teams, ranks=ranks)
        rows = []
        for ((name, bot), mine), rating, (updated,) in zip(held.items(), current, new):
            rating.mu, rating.sigma = float(updated.mu), float(updated.sigma)
            rating.games += len(mine)
            rating.wins += sum(1 for s in mine if s.won)
            rating.rated += 1
            rating.last_game_id = game_id
            rows.append({
                "game": game, "game_id": game_id, "seat": mine[0].seat, "name": name, "number": rating.rated,
                "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal, "bot": bot,
            })
        return rows


def rate_games(games: Iterable[RatedGame]) -> tuple[dict[Key, Rating], list[dict[str, Any]]]:
    """Rate ``games`` in the order given. Returns the final rating by ``(game, name, bot)`` and the
    history: one row per rated player and game with the player's rating after that game."""
    ratings = Ratings()
    history = list(rate_more(games, ratings))
    return ratings.by_player, history


def rate_more(games: Iterable[RatedGame], ratings: Ratings) -> Iterator[dict[str, Any]]:
    """Rate ``games`` in the order given, on top of (and updating) ``ratings``; yields the history
    rows as it goes, so that a caller can rate any number of games in bounded memory."""
    for played in games:
        yield from ratings.rate(played.game, played.game_id, played.seats)


def rate_file(games_file: Path, history_file: Path, chunk: int = 20_000) -> dict[Key, Rating]:
    """Rate the games of a Parquet file of ``GAMES_IN_ORDER``'s rows, writing the history to
    ``history_file`` (Parquet) a chunk at a time. Memory holds one chunk and one rating per player,
    however many games there are (a list of every game and every history row took about 1 KB a game)."""
    ratings = Ratings()
    with pq.ParquetWriter(history_file, PLAYER_RATING_HISTORY) as out:
        for batch in pq.ParquetFile(games_file).iter_batches(batch_size=chunk):
            rows = rate_more(_rated(batch.to_pylist()), ratings)
            out.write_table(pa.Table.from_pylist(list(rows), schema=PLAYER_RATING_HISTORY))
    return ratings.by_player


def _rated(rows: Iterable[dict[str, Any]]) -> Iterator[RatedGame]:
    """``GAMES_IN_ORDER``'s rows (as dicts) as games to rate."""
    for row in rows:
        yield _game(row["game"], row["game_id"], row["seats"], row["names"], row["ranks"], row["won"], row["bots"])


def _game(game: str, game_id: str, *columns: list[Any]) -> RatedGame:
    return RatedGame(game, game_id, tuple(Seat(int(s), str(n), int(r), bool(w), bool(b)) for s, n, r, w, b in zip(*columns)))


#: A ``source_id``'s text before the number it ends with (leading zeros left out of the number).
_SOURCE_HEAD = "regexp_extract(coalesce(g.source_id, ''), '^(.*?)0*([0-9]*)$', 1)"
#: The number a ``source_id`` ends with, without leading zeros, as text ('' for none).
_SOURCE_NUMBER = "regexp_extract(coalesce(g.source_id, ''), '^(.*?)0*([0-9]*)$', 2)"

#: A game its log says was played with take-backs (``meta.takebacks`` above 0: ``governor play`` writes
#: how many moves a person took back) says nothing of its players' skill, and is not rated: the one
#: place games are left out of the ratings.
UNRATED = "(json_valid(g.meta) AND coalesce(TRY_CAST(json_extract_string(g.meta, '$.takebacks') AS BIGINT), 0) > 0)"

#: Every stored game in rating order (but those ``UNRATED``), one row a game with its seats' lists: by
#: date (undated games first), then by source id with the number it ends with compared as a number (shorter number first,
#: then as text: any length, no overflow), then by source id as text (games without one last), then by
#: game id. A lake stored before schema 9 has no ``bot`` column in its older files: NULL there is a person.
GAMES_IN_ORDER = f"""
    SELECT g.game, g.game_id, list(p.seat ORDER BY p.seat) AS seats, list(p.name ORDER BY p.seat) AS names,
           list(p.rank ORDER BY p.seat) AS ranks, list(p.won ORDER BY p.seat) AS won,
           list(coalesce(p.bot, false) ORDER BY p.seat) AS bots
    FROM games g JOIN players p USING (game_id)
    WHERE NOT coalesce({UNRATED}, false)
    GROUP BY g.game, g.game_id, g.played_at, g.source_id
    ORDER BY g.played_at NULLS FIRST, {_SOURCE_HEAD}, length({_SOURCE_NUMBER}), {_SOURCE_NUMBER},
             g.source_id NULLS LAST, g.game_id"""


def stored_games(con: duckdb.DuckDBPyConnection) -> tuple[list[RatedGame], str]:
    """Every stored finished game in rating order, and the basis they make (see ``ratings_stale``)."""
    rows = con.execute(GAMES_IN_ORDER).fetchall()
    return [_game(game, game_id, *seats) for game, game_id, *seats in rows], _basis(con)


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
    ratings: dict[Key, Rating],
    history: list[dict[str, Any]] | Path,
    basis: str,
) -> int:
    """Replace ``player_ratings`` and ``player_rating_history`` with ``rate_games``'s result (or
    ``rate_file``'s: ``history`` is then its Parquet file) and record the ``basis`` it was computed from
    (inside the caller's transaction). Returns the ratings stored."""
    keys: Sequence[Key] = sorted(ratings)
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
            "bot": [k[2] for k in keys],
        },
        schema=PLAYER_RATINGS,
    )
    con.execute("DELETE FROM player_ratings")
    con.execute("DELETE FROM player_rating_history")
    con.register("incoming_ratings", table)
    try:
        con.execute("INSERT INTO player_ratings BY NAME SELECT * FROM incoming_ratings")
    finally:
        con.unregister("incoming_ratings")
    if isinstance(history, Path):
        con.execute("INSERT INTO player_rating_history BY NAME SELECT * FROM read_parquet(?)", [str(history)])
    else:
        con.register("incoming_history", pa.Table.from_pylist(history, schema=PLAYER_RATING_HISTORY))
        try:
            con.execute("INSERT INTO player_rating_history BY NAME SELECT * FROM incoming_history")
        finally:
            con.unregister("incoming_history")
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES (?, ?)", [BASIS_KEY, basis])
    return int(table.num_rows)
