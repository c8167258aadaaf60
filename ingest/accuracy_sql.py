"""The ``accuracy`` view: each analysed seat's accuracy over its game, computed in SQL from the stored
analyses (table ``analysis``), so that it is always the accuracy of the analysis stored, however and
whenever it was stored (``governor analyse --store``, the dashboard), with nothing to fill or migrate.

The formula is ``analysis.accuracy``'s (docs/analysis.md, "Accuracy"), which this layer may not import:
its constants live here, ``analysis.accuracy`` takes them from here, and a test checks that the view
gives ``analysis.accuracy``'s numbers on stored analyses (``tests/ingest/test_accuracy_view.py``).
"""

from __future__ import annotations

#: lichess's curve (``lila/modules/analyse/src/main/AccuracyPercent.scala``): accuracy of a move that
#: lost ``x`` points of a 50 % chess game's win chance is ``A * exp(-B * x) + C``.
CURVE_A = 103.1668100711649
CURVE_B = 0.04354415386753951
CURVE_C = -3.166924740191411
#: Points of win chance here count double lichess's: a 3- to 5-player game starts at 20 to 33 %, not
#: 50 %, and the tags' thresholds (5, 10, 20 points: ``analysis.decisions.THRESHOLDS``) are set at
#: half chess's (10, 20, 30). Scaled by 2, an inaccuracy's and a mistake's smallest losses get
#: exactly the accuracies lichess gives chess's (63.6 and 40.0), and a blunder's 14.9.
LOSS_SCALE = 2.0
#: The standard deviation of win chances (points) that weighs a move is kept within these bounds,
#: and the window it is taken over has 2 to 8 moves (a tenth of the seat's moves): lichess's values.
WEIGHT_BOUNDS = (0.5, 12.0)
WINDOW_BOUNDS = (2, 8)
#: ``analysis.decisions.Z95``: a loss counts when significant at 95 % (two proportions; Welch for
#: score shares).
Z95 = 1.959963984540054
#: Points of win chance one point of score share is worth (``analysis.accuracy``): the win chance
#: lost is modelled as this times the score share lost, a share that, unlike a win, does not
#: saturate once a seat is out of the race. Measured in the arena games of ``bench/bench_accuracy.py``
#: (docs/analysis.md, "Accuracy"): between two candidates of a decision in a contested position (the
#: candidates' mean win chance between 10 and 90 %), the least-squares slope of the difference of
#: their win chances on the difference of their score shares.
SHARE_TO_WIN = 8.0

def accuracy_sql(analysis: str = "analysis") -> str:
    """The ``accuracy`` view's SQL over the rows of ``analysis`` (a table, or a subquery in
    parentheses with its columns: ``WITHOUT_SHARES`` for a file stored before them). One row per
    game and seat with analysed decisions: ``game_id``, ``seat``, ``player`` (the name in ``players``,
    an agent's identity for a bot; the log's name when the game is not stored), ``bot``, ``accuracy``
    (0-100), ``inaccuracies``, ``mistakes``, ``blunders``, ``avg_loss`` (win chance lost per decision,
    a share: modelled from the score shares, ``analysis.accuracy.move_loss``) and ``moves`` (its
    analysed decisions with at least two legal moves and something at stake:
    ``analysis.accuracy.at_stake``)."""
    return f"""
-- Each decision's candidates by score share, highest first (the move played first among equals).
WITH by_share AS (
    SELECT *, row_number() OVER (PARTITION BY game_id, step, seat
                                 ORDER BY score_share DESC NULLS LAST, played DESC, rank) AS share_order
    FROM {analysis}
),
decided AS (
    SELECT game_id, step, seat,
           arg_min(estimate, rank) AS best_p, arg_min(rollouts, rank) AS best_n,
           arg_min(played, rank) AS best_played,
           any_value(estimate) FILTER (WHERE played) AS played_p,
           any_value(rollouts) FILTER (WHERE played) AS played_n,
           any_value(tag) FILTER (WHERE played) AS tag,
           any_value(player) FILTER (WHERE played) AS log_player,
           max(legal_moves) AS legal,
           -- Every candidate has a score share: the win chance lost is modelled from it.
           count(*) = count(score_share) AS modelled,
           any_value(score_share) FILTER (WHERE played) AS played_s,
           any_value(score_share_sd) FILTER (WHERE played) AS played_sd,
           any_value(score_share) FILTER (WHERE share_order = 1) AS top_s,
           any_value(score_share_sd) FILTER (WHERE share_order = 1) AS top_sd,
           any_value(rollouts) FILTER (WHERE share_order = 1) AS top_n,
           bool_or(played) FILTER (WHERE share_order = 1) AS top_played
    FROM by_share GROUP BY game_id, step, seat
    -- A decision counts with two or more choices and something at stake (the candidates' score
    -- shares differ; their estimates, for an analysis without shares).
    HAVING count(*) FILTER (WHERE played) > 0 AND max(legal_moves) >= 2
       AND CASE WHEN count(*) = count(score_share) THEN max(score_share) > min(score_share)
                ELSE max(estimate) > min(estimate) END
),
tested AS (
    SELECT *, sqrt(best_p * (1 - best_p) / nullif(best_n, 0)
                   + played_p * (1 - played_p) / nullif(played_n, 0)) AS spread,
           sqrt(top_sd * top_sd / nullif(top_n, 0) + played_sd * played_sd / nullif(played_n, 0)) AS share_spread
    FROM decided
),
lost AS (
    SELECT *,
           CASE WHEN modelled THEN
                    CASE WHEN top_played OR top_n = 0 OR played_n = 0 THEN 0.0
                         WHEN (share_spread > 0 AND top_s - played_s > {Z95} * share_spread)
                              OR (share_spread = 0 AND top_s > played_s)
                              THEN least(1.0, {SHARE_TO_WIN} * (top_s - played_s))
                         ELSE 0.0 END
                WHEN best_played OR best_n = 0 OR played_n = 0 THEN 0.0
                WHEN (spread > 0 AND best_p - played_p > {Z95} * spread) OR (spread = 0 AND best_p > played_p)
                     THEN greatest(0.0, best_p - played_p)
                ELSE 0.0 END AS loss
    FROM tested
),
scored AS (
    SELECT *,
           CASE WHEN loss <= 0 THEN 100.0
                ELSE least(100.0, greatest(0.0, {CURVE_A} * exp(-{CURVE_B} * {LOSS_SCALE} * 100 * loss) + ({CURVE_C})))
           END AS move_accuracy,
           row_number() OVER (PARTITION BY game_id, seat ORDER BY step) AS i,
           count(*) OVER (PARTITION BY game_id, seat) AS n
    FROM lost
),
windowed AS (
    SELECT *, least({WINDOW_BOUNDS[1]}, greatest({WINDOW_BOUNDS[0]}, n // 10)) AS w FROM scored
),
-- The seat's win chances in points: before its first move (the best candidate's), then after each.
chances AS (
    SELECT game_id, seat, 0 AS k, 100 * best_p AS x FROM windowed WHERE i = 1
    UNION ALL SELECT game_id, seat, i AS k, 100 * played_p AS x FROM windowed
),
-- lichess's windows: move i weighs the spread of the chances k = i+1-w .. i, the first w-1 moves
-- that of the first window (k = 0 .. w-1), every window within the seat's chances.
weighted AS (
    SELECT m.game_id, m.seat, m.step, m.i,
           least({WEIGHT_BOUNDS[1]}, greatest({WEIGHT_BOUNDS[0]}, coalesce(stddev_pop(c.x), 0))) AS weight
    FROM windowed m JOIN chances c ON c.game_id = m.game_id AND c.seat = m.seat
         AND c.k BETWEEN greatest(0, m.i + 1 - m.w) AND least(m.n, greatest(m.i, m.w - 1))
    GROUP BY m.game_id, m.seat, m.step, m.i
),
seats AS (
    SELECT s.game_id, s.seat, any_value(s.log_player) AS log_player,
           (sum(s.move_accuracy * v.weight) / sum(v.weight)
            + count(*) / sum(1.0 / greatest(1.0, s.move_accuracy))) / 2 AS accuracy,
           count(*) FILTER (WHERE s.tag = 'inaccuracy') AS inaccuracies,
           count(*) FILTER (WHERE s.tag = 'mistake') AS mistakes,
           count(*) FILTER (WHERE s.tag = 'blunder') AS blunders,
           avg(s.loss) AS avg_loss, count(*) AS moves
    FROM windowed s JOIN weighted v USING (game_id, seat, step)
    GROUP BY s.game_id, s.seat
)
SELECT s.game_id, s.seat::TINYINT AS seat, coalesce(p.name, s.log_player) AS player,
       coalesce(p.bot, false) AS bot, s.accuracy, s.inaccuracies, s.mistakes, s.blunders, s.avg_loss, s.moves
FROM seats s LEFT JOIN players p ON p.game_id = s.game_id AND p.seat = s.seat
"""


#: The view's SQL over the ``analysis`` table.
ACCURACY_SQL = accuracy_sql()
#: The ``analysis`` rows of a database stored before schema version 10, which has no score shares
#: (the dashboard reads a file as it is): NULL shares, so their accuracy is their win chances'.
WITHOUT_SHARES = "(SELECT *, NULL::DOUBLE AS score_share, NULL::DOUBLE AS score_share_sd FROM analysis)"

