"""The importer's rows laid out the slow, obvious way, as ``ingest.rows.add_record`` did before it read
them off the engine's working game (issue 13): one immutable snapshot per state (``iter_replay``), the
engine's full ``player_rows`` and ``global_row`` of each snapshot, and the move's words from the snapshot
before it. ``tests/ingest/test_rows_reference.py`` imports the same logs through both and compares every
table of the two databases row by row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ingest.rows import Batch, _reject, move_forms
from ingest.schema import GAMES, MOVES, PLAYERS, player_change_schema, state_schemas
from ingest.stored import StoredGame, copy_error
from replay.errors import GovernorError, LogFormatError
from replay.logfile import LogRecord
from replay.registry import engine_for
from replay.replayer import iter_replay


def reference_add_record(batch: Batch, record: LogRecord, now: datetime,
                         known: Mapping[str, StoredGame | None] | None = None, complete: bool = True) -> None:
    """``ingest.rows.add_record`` through snapshots (see the module): replay one record and append its
    rows to ``batch``; a bad game becomes a rejection and adds no rows at all. A game whose id is in
    ``known`` is not replayed: it is counted as skipped when it agrees with the stored game, else
    rejected. With ``complete`` False, a game that is not over yet is laid out too."""
    if record.error is not None or record.log is None:
        _reject(batch, record, record.error or LogFormatError("unreadable", file=record.file), now)
        return
    log = record.log
    game_id = log.game_id
    if known and game_id in known:
        stored = known[game_id]
        error = copy_error(log, stored) if stored is not None else None
        if error is None:
            batch.skipped += 1
        else:
            _reject(batch, record, error, now)
        return
    engine = engine_for(log.game)
    names = log.players
    global_schema, _ = state_schemas(engine)
    global_rows: list[dict[str, Any]] = []
    move_rows: list[tuple[Any, ...]] = []
    # Per-seat rows are stored as runs: a seat's row is emitted once for the steps it stays the same
    # (engines return the very same row object for an unchanged seat); the database expands runs to
    # one row per step on insert. This keeps the Python side of storing cheap.
    changes: list[tuple[int, int, int, dict[str, Any]]] = []
    last_rows: list[Any] = [None] * len(names)
    run_start = [0] * len(names)
    state = before = None
    info_before: dict[str, Any] = {}
    number = 0
    automatic_events = engine.automatic_events
    try:
        for state, step in iter_replay(log, require_complete=complete):
            number = step.number if step else 0
            global_rows.append(engine.global_row(state))
            for seat, prow in enumerate(engine.player_rows(state)):
                if prow is not last_rows[seat]:
                    if last_rows[seat] is not None:
                        changes.append((seat, run_start[seat], number, last_rows[seat]))
                    last_rows[seat] = prow
                    run_start[seat] = number
            if step is not None:
                kind, text, details = move_forms(step.move)
                move_rows.append((
                    number, info_before["round"], info_before["governor"], info_before["role"], step.seat,
                    names[step.seat] if step.seat is not None else None, kind, text, step.words, details,
                    automatic_events(before, step.move, state, names),
                ))
            info_before = engine.step_info(state)
            before = state
    except GovernorError as err:
        _reject(batch, record, err.with_context(file=record.file, game_index=record.index, game_id=game_id)
                if hasattr(err, "with_context") else err, now)
        return
    for seat, prow in enumerate(last_rows):
        changes.append((seat, run_start[seat], number + 1, prow))
    # Seat by seat, so that the rows a seat keeps unchanged for many steps lie next to each other once
    # expanded: DuckDB then compresses them as runs (measured: 18% fewer bytes for the per-seat table).
    changes.sort(key=lambda change: (change[0], change[1]))
    scores = engine.scores(state)
    winners = engine.winners(state)
    buildings = engine.buildings_of(state)
    players = batch.table("players", PLAYERS)
    for seat, score in enumerate(scores):
        players["game_id"].append(game_id)
        players["seat"].append(seat)
        players["name"].append(names[seat])
        players["score"].append(score.total)
        players["parts"].append(list(score.parts.items()))
        players["tiebreak"].append(score.tiebreak)
        players["rank"].append(1 + sum(1 for s in scores if (s.total, s.tiebreak) > (score.total, score.tiebreak)))
        players["won"].append(seat in winners)
        players["final_buildings"].append(list(buildings[seat]))
    games = batch.table("games", GAMES)
    date = log.meta.get("date")
    row = {
        "game_id": game_id,
        "game": log.game,
        "source_id": log.source_id,
        "meta": json.dumps(log.meta, ensure_ascii=False) if log.meta else None,
        "played_at": str(date) if date is not None else None,
        "player_count": len(names),
        "players": list(names),
        "rounds": engine.round_of(state),
        "moves": len(log.moves),
        "end_reason": engine.end_reason(state),
        "winners": winners,
        "winner_names": [names[s] for s in winners],
        "engine_version": engine.version,
        "imported_at": now,
        "file": record.file,
        "file_index": record.index,
        "log": record.text,
    }
    for key, value in row.items():
        games[key].append(value)
    moves = batch.table("moves", MOVES)
    moves["game_id"].extend([game_id] * len(move_rows))
    for key, values in zip(MOVES.names[1:], zip(*move_rows)):
        moves[key].extend(values)
    states = batch.table(f"{log.game}_states", global_schema)
    states["game_id"].extend([game_id] * len(global_rows))
    states["step"].extend(range(len(global_rows)))
    for key in global_schema.names[2:]:
        states[key].extend([row[key] for row in global_rows])
    change_schema = player_change_schema(engine)
    runs = batch.table(f"{log.game}_player_changes", change_schema)
    runs["game_id"].extend([game_id] * len(changes))
    runs["seat"].extend([c[0] for c in changes])
    runs["from_step"].extend([c[1] for c in changes])
    runs["to_step"].extend([c[2] for c in changes])
    for key in change_schema.names[4:]:
        runs[key].extend([c[3][key] for c in changes])
    batch.game_ids.append(game_id)

