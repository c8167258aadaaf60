"""The queries of the Players page: the leaderboard of skill ratings (``player_ratings``, computed at
import by ``ingest.ratings``) and one player's games, results, seats, roles and buildings within one
game type. A player is a name and whether it is a bot (``players.bot``): the same name in two games is
taken to be the same person, and an agent is one player per name and version (``heuristic v1``),
apart from any person of that name. ``bot`` is NULL in a lake's files written before it existed: a
person.

Accuracy (0-100 per analysed seat, ``analysis.accuracy``) comes from the stored analyses: the
``accuracy`` view's SQL (``ingest.accuracy_sql``), run inline so that a database made before the view
(the dashboard reads a database as it is) gives it too.

Luck and skill (in games, ``analysis.winchance.luck``) come from the table ``luck`` that ``governor
winchance --luck`` fills: a seat's over its game is the sum of its moves' rows, a player's the sum over
its seats of the games whose luck is stored, beside its results in those same games."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboards import data
from dashboards.plain import sql_names
from dashboards.stats import role_words, with_intervals
from ingest.accuracy_sql import WITHOUT_SHARES, accuracy_sql

#: The leaderboard's default minimum number of rated games.
MIN_GAMES = 10
#: Whom the page lists: every player, people only, or bots only (the URL's ``who``).
WHO = {"all": "All", "humans": "Humans", "bots": "Bots"}

#: Whether a row of ``players`` or the ratings is a bot (NULL in a lake's older files: a person).
_BOT = "coalesce(bot, false)"


def _who(who: str, column: str = _BOT) -> str:
    """The SQL condition that keeps the players ``who`` names (``WHO``)."""
    return {"humans": f"NOT {column}", "bots": column}.get(who, "true")


def leaderboard(game: str, min_games: int = MIN_GAMES, who: str = "all") -> pd.DataFrame:
    """Rated players of a game type with at least ``min_games`` rated games (``who``: all of them,
    humans or bots), best conservative rating first: ``place``, ``name``, ``bot``, ``games``, ``wins``,
    ``win_rate``, ``mu``, ``sigma``, ``ordinal``."""
    rows = data.frame(
        f"SELECT name, {_BOT} AS bot, games, wins, wins / games AS win_rate, mu, sigma, ordinal FROM player_ratings "
        f"WHERE game = ? AND games >= ? AND {_who(who)} ORDER BY ordinal DESC, name, bot",
        (game, int(min_games)),
    )
    rows.insert(0, "place", range(1, len(rows) + 1))
    return rows


def player_names(game: str, who: str = "all") -> list[tuple[str, bool]]:
    """Every player, ``(name, bot)``, that played a game of this type (``who``: all, humans or bots),
    most games first, then by name (a person before a bot of the same name)."""
    rows = data.frame(
        f"SELECT p.name, coalesce(p.bot, false) AS bot, count(*) AS n FROM players p JOIN games g USING (game_id) "
        f"WHERE g.game = ? AND {_who(who, 'coalesce(p.bot, false)')} GROUP BY ALL ORDER BY n DESC, p.name, bot",
        (game,),
    )
    return [(str(n), bool(b)) for n, b in zip(rows["name"], rows["bot"])]


def rating(game: str, name: str, bot: bool = False) -> dict[str, Any] | None:
    """The player's stored rating with its place among all rated players of the game type (by
    ordinal), or None when the player has no rated game."""
    rows = data.frame(
        f"SELECT * FROM (SELECT name, {_BOT} AS bot, games, wins, mu, sigma, ordinal, "
        "row_number() OVER (ORDER BY ordinal DESC, name, bot) AS place, count(*) OVER () AS rated "
        "FROM player_ratings WHERE game = ?) WHERE name = ? AND bot = ?",
        (game, name, bool(bot)),
    )
    return rows.iloc[0].to_dict() if len(rows) else None


def rating_history(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """The player's rating after each of their rated games: ``number``, ``mu``, ``sigma``, ``ordinal``."""
    return data.frame(
        "SELECT number, mu, sigma, ordinal, game_id FROM player_rating_history "
        f"WHERE game = ? AND name = ? AND {_BOT} = ? ORDER BY number",
        (game, name, bool(bot)),
    )


_SEATS = """
    WITH mine AS (
        SELECT p.game_id, p.seat, p.score, p.rank, p.won, g.player_count, g.played_at, g.players,
               g.winner_names, g.rounds
        FROM players p JOIN games g USING (game_id)
        WHERE g.game = ? AND p.name = ? AND coalesce(p.bot, false) = ?)
"""


def results(game: str, name: str, bot: bool = False) -> dict[str, Any]:
    """Games (seats, strictly: a player holding two seats of a game counts twice), wins, average score
    and rank, and the first and last date played."""
    row = data.frame(
        _SEATS + "SELECT count(*) AS games, coalesce(sum(won::INT), 0) AS wins, avg(score) AS score, "
        "avg(rank) AS rank, avg(1.0 / player_count) AS baseline, min(played_at) AS first, max(played_at) AS last "
        "FROM mine",
        (game, name, bool(bot)),
    ).iloc[0]
    return dict(row.to_dict())


def by_seat(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """Win rate by player count and seat (``seat`` 0 = the first governor), with its interval and the
    baseline 1 / player count."""
    rows = data.frame(
        _SEATS + "SELECT player_count, seat, count(*) AS n, sum(won::INT) AS wins, 1.0 / player_count AS baseline "
        "FROM mine GROUP BY ALL ORDER BY player_count, seat",
        (game, name, bool(bot)),
    )
    return with_intervals(rows)


def by_player_count(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """Win rate by player count, with its interval and baseline."""
    rows = data.frame(
        _SEATS + "SELECT player_count, count(*) AS n, sum(won::INT) AS wins, 1.0 / player_count AS baseline, "
        "avg(score) AS score, avg(rank) AS rank FROM mine GROUP BY ALL ORDER BY player_count",
        (game, name, bool(bot)),
    )
    return with_intervals(rows)


#: The seats of one player (name and bot) in a summary table ``t``: its rows hold the name, and the
#: seat's ``players`` row says whether a bot held it.
_SUMMARY_SEATS = ("JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat AND p.name = t.name "
                  "WHERE t.game = ? AND t.name = ? AND coalesce(p.bot, false) = ?")


def roles(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """The roles the player chose, most often first: ``choices``, ``share`` of their role choices,
    and the win rate of the games in which they chose it (``n`` games, ``wins``), each role in words
    (``role_words``: "Draw (2nd)"). Read from the importer's summary table ``player_roles``."""
    rows = data.frame(
        f"""SELECT t.role, count(*) AS choices, count(DISTINCT t.game_id) AS n,
                  count(DISTINCT CASE WHEN t.won THEN t.game_id END) AS wins
           FROM player_roles t {_SUMMARY_SEATS} GROUP BY ALL ORDER BY choices DESC, t.role""",
        (game, name, bool(bot)),
    )
    rows["role"] = [role_words(r) for r in rows["role"]]
    rows = with_intervals(rows)
    total = int(rows["choices"].sum()) if len(rows) else 0
    rows["share"] = rows["choices"] / total if total else 0.0
    return rows


def buildings(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """The buildings the player built, most often first: ``n`` games in which they built it, ``share``
    of their games, ``round`` (the average round it was first built in), and the win rate of those
    games. Read from the importer's summary table ``player_builds``."""
    rows = data.frame(
        f"""SELECT t.building, count(*) AS n, sum(t.won::INT) AS wins, avg(t.round) AS round,
                  (SELECT count(*) FROM players p JOIN games g USING (game_id)
                   WHERE g.game = ? AND p.name = ? AND coalesce(p.bot, false) = ?) AS games
           FROM player_builds t {_SUMMARY_SEATS} GROUP BY ALL ORDER BY n DESC, t.building""",
        (game, name, bool(bot), game, name, bool(bot)),
    )
    rows = with_intervals(rows)
    rows["share"] = rows["n"] / rows["games"] if len(rows) else 0.0
    return rows.drop(columns=["games"])


def games(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """The player's games, newest first: date, player count, seat, score, rank, result, the names at
    the table and the winners (as text to show: each name isolated, ``plain.sql_names``)."""
    return data.frame(
        _SEATS + f"""
        SELECT game_id, played_at, player_count, seat, score, rank, won, rounds,
               {sql_names('players')} AS players, {sql_names('winner_names')} AS winner
        FROM mine ORDER BY played_at DESC NULLS LAST, game_id""",
        (game, name, bool(bot)),
    )


def game_types() -> list[str]:
    """Game types with stored games, most games first."""
    rows = data.frame("SELECT game, count(*) AS n FROM games GROUP BY game ORDER BY n DESC, game")
    return [str(g) for g in rows["game"]]


def _accuracy() -> str:
    """The analysed seats of games with their game's date and player count: ``acc`` (the ``accuracy``
    view's rows) joined to ``games``. A file stored before the score shares (schema version 10; the
    dashboard reads a file as it is) is read with NULL shares: its win chances' accuracy."""
    shares = data.frame("SELECT 1 FROM information_schema.columns "
                        "WHERE table_name = 'analysis' AND column_name = 'score_share'")
    source = "analysis" if not shares.empty else WITHOUT_SHARES
    return f"""
    WITH acc AS ({accuracy_sql(source)}),
    seats AS (
        SELECT a.*, g.game, g.player_count, g.played_at FROM acc a JOIN games g USING (game_id))
"""
#: The normal 95 % interval of a mean accuracy over ``n`` seats, within 0..100 (None for one seat).
_HALF = "1.959963984540054 * stddev_samp(accuracy) / sqrt(count(*))"
_INTERVAL = (f"CASE WHEN count(*) > 1 THEN greatest(0, avg(accuracy) - {_HALF}) END AS low, "
             f"CASE WHEN count(*) > 1 THEN least(100, avg(accuracy) + {_HALF}) END AS high")


def has_analyses() -> bool:
    """Whether the database holds the ``analysis`` table (older files may not)."""
    return "analysis" in data.tables()


def accuracy_board(game: str, who: str = "all") -> pd.DataFrame:
    """Every player of a game type with analysed games (``who``: all, humans or bots), most accurate
    first: ``name``, ``bot``, ``games`` (analysed seats), ``accuracy`` (the mean of its games'
    accuracies) with its 95 % interval ``low``-``high`` (normal; None for one game), the mean
    ``inaccuracies``, ``mistakes`` and ``blunders`` per game, and ``avg_loss`` (win chance lost per
    decision, a share, over all its decisions)."""
    return data.frame(
        _accuracy() + f"""
        SELECT player AS name, bot, count(*) AS games, avg(accuracy) AS accuracy, {_INTERVAL},
               avg(inaccuracies) AS inaccuracies, avg(mistakes) AS mistakes, avg(blunders) AS blunders,
               sum(avg_loss * moves) / sum(moves) AS avg_loss
        FROM seats WHERE game = ? AND {_who(who, 'bot')} AND accuracy IS NOT NULL
        GROUP BY ALL ORDER BY accuracy DESC, name, bot""",
        (game,),
    )


def accuracy_history(game: str, name: str, bot: bool = False) -> pd.DataFrame:
    """The player's accuracy in each analysed game of a type, oldest first (undated games first, then
    by game id): ``number`` (1, 2, ...), ``game_id``, ``played_at``, ``player_count``, ``seat``,
    ``accuracy``, ``inaccuracies``, ``mistakes``, ``blunders``, ``avg_loss``, ``moves``."""
    return data.frame(
        _accuracy() + """
        SELECT row_number() OVER (ORDER BY played_at NULLS FIRST, game_id, seat) AS number, game_id, played_at,
               player_count, seat, accuracy, inaccuracies, mistakes, blunders, avg_loss, moves
        FROM seats WHERE game = ? AND player = ? AND bot = ? AND accuracy IS NOT NULL ORDER BY number""",
        (game, name, bool(bot)),
    )


def accuracy_by_count(name: str, bot: bool = False) -> pd.DataFrame:
    """The player's mean accuracy by game type and player count (every type): ``game``,
    ``player_count``, ``games`` (analysed seats), ``accuracy`` with its 95 % interval ``low``-``high``,
    the mean ``blunders`` per game."""
    return data.frame(
        _accuracy() + f"""
        SELECT game, player_count, count(*) AS games, avg(accuracy) AS accuracy, {_INTERVAL},
               avg(blunders) AS blunders
        FROM seats WHERE player = ? AND bot = ? AND accuracy IS NOT NULL
        GROUP BY ALL ORDER BY game, player_count""",
        (name, bool(bot)),
    )


def has_luck() -> bool:
    """Whether the database holds the ``luck`` table (files made before it do not)."""
    return "luck" in data.tables()


#: Each seat of the games of one type whose luck is stored: its luck and skill over its game, its
#: player (name, bot) and whether it won.
_SEAT_LUCK = """
    WITH seat_luck AS (
        SELECT l.game_id, l.seat, sum(l.luck) AS luck, sum(l.skill) AS skill
        FROM luck l JOIN games g USING (game_id) WHERE g.game = ? GROUP BY ALL),
    seats AS (
        SELECT p.name, coalesce(p.bot, false) AS bot, p.won, s.luck, s.skill
        FROM seat_luck s JOIN players p USING (game_id, seat))
"""


def luck_board(game: str, who: str = "all") -> pd.DataFrame:
    """Every player of a game type with games whose luck is stored (``who``: all, humans or bots):
    ``name``, ``bot``, ``luck_games`` (seats of those games), ``luck_wins`` (of those), and ``luck``
    and ``skill``, each the sum over those seats, in games."""
    return data.frame(
        _SEAT_LUCK + f"""
        SELECT name, bot, count(*) AS luck_games, sum(won::INT) AS luck_wins, sum(luck) AS luck, sum(skill) AS skill
        FROM seats WHERE {_who(who, 'bot')} GROUP BY ALL ORDER BY luck DESC, name, bot""",
        (game,),
    )


def player_luck(game: str, name: str, bot: bool = False) -> dict[str, Any]:
    """One player's games of a type whose luck is stored: ``games`` (seats), ``wins``, and ``luck`` and
    ``skill`` summed over them (None without such a game)."""
    row = data.frame(
        _SEAT_LUCK + "SELECT count(*) AS games, coalesce(sum(won::INT), 0) AS wins, sum(luck) AS luck, "
        "sum(skill) AS skill FROM seats WHERE name = ? AND bot = ?",
        (game, name, bool(bot)),
    ).iloc[0]
    return {"games": int(row["games"]), "wins": int(row["wins"]),
            "luck": None if pd.isna(row["luck"]) else float(row["luck"]),
            "skill": None if pd.isna(row["skill"]) else float(row["skill"])}


def _games(value: float) -> str:
    """A number of games with its sign, to the tenth ("+1.8", "-0.4"; "0.0" for less than 0.05 either way)."""
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def luck_words(found: dict[str, Any], played: int) -> str | None:
    """A player's results beside its luck and skill over the games whose luck is known (``found``,
    ``player_luck``; ``played`` its games of the type), as the page says it: "won 12 of 20; luck +1.8
    games; skill -0.4 games (luck known for 20 of its 31 games)"; None without such a game."""
    games = int(found["games"])
    if not games or found["luck"] is None or found["skill"] is None:
        return None
    return (f"won {found['wins']} of {games}; luck {_games(found['luck'])} games; skill {_games(found['skill'])} "
            f"games (luck known for {games} of its {played} games)")
