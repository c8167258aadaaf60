"""Storing analyses in the database (table ``analysis``, one row per decision and candidate move) and
reading them back for the dashboard. Rows are built as Arrow columns and loaded in one statement."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from analysis.decisions import Decision, Options
from ingest.db import read_arrow, writer
from ingest.schema import ANALYSIS
from replay import exits


def analysis_table(game_id: str, engine_version: str, decisions: Sequence[Decision], options: Options) -> pa.Table:
    """The rows of ``decisions`` as an Arrow table of the ``analysis`` schema."""
    now = datetime.now(UTC)
    columns: dict[str, list[Any]] = {name: [] for name in ANALYSIS.names}
    for decision in decisions:
        best = decision.best
        for rank, candidate in enumerate(decision.candidates, start=1):
            row = {
                "game_id": game_id, "step": decision.step, "seat": decision.seat, "player": decision.player,
                "candidate": candidate.text, "move": json.dumps(candidate.move.to_json(), sort_keys=True),
                "words": candidate.words, "played": candidate.played, "rank": rank,
                "rollouts": candidate.rollouts, "wins": candidate.wins, "estimate": candidate.estimate,
                "ci_low": candidate.low, "ci_high": candidate.high,
                "loss": max(0.0, best.estimate - candidate.estimate),
                "tag": decision.tag if candidate.played else None,
                "legal_moves": decision.legal, "rollouts_asked": options.rollouts, "seed": options.seed,
                "top": options.top, "engine_version": engine_version, "analysed_at": now,
                "rollout_bot": decision.rollout_bot,
                "score_share": candidate.share, "score_share_sd": candidate.share_sd,
                "sampling": options.sampling,
                "rollout_bot_version": decision.rollout_version or None,
            }
            for name in ANALYSIS.names:
                columns[name].append(row[name])
    return pa.Table.from_pydict(columns, schema=ANALYSIS)


def store(db: str | Path, game_id: str, engine_version: str, decisions: Sequence[Decision], options: Options) -> int:
    """Replace the stored analysis of the analysed steps of ``game_id`` with ``decisions``, in one
    transaction; returns the rows written. Every decision of a step is stored (a row's ``seat`` is
    the seat deciding), in the order given, which ``load`` keeps. Raises ``ingest.db.DatabaseError``."""
    rows = analysis_table(game_id, engine_version, decisions, options)
    steps = sorted({d.step for d in decisions})
    with writer(db) as con:
        con.execute("BEGIN")
        if steps:
            con.execute("DELETE FROM analysis WHERE game_id = ? AND list_contains(?, step)", [game_id, steps])
        con.execute("INSERT INTO analysis SELECT * FROM rows")
        con.execute("COMMIT")
    return int(rows.num_rows)


def store_game(db: str | Path, game_id: str, rows: pa.Table, committed: Callable[[], None] | None = None) -> int:
    """Replace every stored row of ``game_id`` (a part analysed before, or an analysis made with other
    settings) with ``rows``, the whole game's analysis (``analysis_table``), in one transaction: a
    game is stored whole or not at all, never twice. ``committed`` is called once the transaction is,
    before an interruption that came meanwhile is raised (a count of the games stored is then exact).
    Returns the rows written. Raises ``ingest.db.DatabaseError``, and ``KeyboardInterrupt`` when
    interrupted (before the commit: nothing of it is stored)."""
    with writer(db) as con:
        con.execute("BEGIN")
        con.execute("DELETE FROM analysis WHERE game_id = ?", [game_id])
        con.execute("INSERT INTO analysis SELECT * FROM rows")
        with exits.signals_deferred():
            con.execute("COMMIT")
            if committed is not None:
                committed()
    return int(rows.num_rows)


#: A step may hold several decisions (the seat to act's, then those of the seats deciding a part of
#: its move, ``analysis.decisions``), one per seat. ``store`` inserts them in that order in one
#: statement, and a table's ``rowid`` keeps the insertion order (DuckDB's order preservation), so the
#: first row of each decision orders the decisions of a step; ``rank`` then orders its candidates.
LOAD_SQL = (
    "SELECT * EXCLUDE (decision_order) FROM ("
    "SELECT *, min(rowid) OVER (PARTITION BY step, seat) AS decision_order FROM analysis WHERE game_id = ?"
    ") ORDER BY step, decision_order, rank"
)


def load(db: str | Path, game_id: str) -> pa.Table:
    """The stored analysis of one game (empty when there is none): by step, then the decisions of a
    step in the order ``analyse`` gave them (the seat to act first, then each seat deciding a part of
    its move, by seat), then by rank. Raises ``ingest.db.DatabaseError``."""
    return read_arrow(db, LOAD_SQL, [game_id])
