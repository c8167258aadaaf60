"""One log in, Arrow columns out: replay a game through its engine and lay out the rows of every table.

This runs in the worker processes; it holds no game rules, only the engine protocol.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from ingest.schema import GAMES, MOVES, PLAYERS, REJECTIONS, state_schemas
from replay.errors import GovernorError, LogFormatError
from replay.logfile import LogRecord
from replay.registry import engine_for
from replay.replayer import iter_replay


def _columns(schema: pa.Schema) -> dict[str, list[Any]]:
    return {name: [] for name in schema.names}


def rejection_id(file: str, index: int, text: str) -> str:
    """Key of a rejection: the same bad game in the same file is one rejection, however often imported."""
    return hashlib.sha256(f"{file}\0{index}\0{text}".encode()).hexdigest()[:20]


@dataclass
class Batch:
    """Columns of every table for a set of games, plus the rejections. ``game_ids`` lists the stored
    games in order; ``rows`` counts the rows."""

    columns: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    schemas: dict[str, pa.Schema] = field(default_factory=dict)
    game_ids: list[str] = field(default_factory=list)
    rejections: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0

    def table(self, name: str, schema: pa.Schema) -> dict[str, list[Any]]:
        if name not in self.columns:
            self.columns[name] = _columns(schema)
            self.schemas[name] = schema
        return self.columns[name]

    def to_arrow(self) -> dict[str, pa.Table]:
        """Every table as an Arrow table (rejections included when there are any)."""
        out = {
            name: pa.Table.from_pydict(cols, schema=self.schemas[name]) for name, cols in self.columns.items()
        }
        if self.rejections:
            out["rejections"] = pa.Table.from_pylist(self.rejections, schema=REJECTIONS)
        return out


def _reject(batch: Batch, record: LogRecord, error: GovernorError, now: datetime) -> None:
    info = error.as_record()
    batch.rejections.append(
        {
            "rejection_id": rejection_id(record.file, record.index, record.text),
            "file": record.file,
            "game_index": record.index,
            "game_id": info.get("game_id"),
            "kind": info.get("kind"),
            "move_number": info.get("move_number"),
            "seat": info.get("seat"),
            "player": info.get("player"),
            "rule": info.get("rule"),
            "message": error.message,
            "rejected_at": now,
        }
    )


def add_record(batch: Batch, record: LogRecord, now: datetime, known: set[str] | frozenset[str] = frozenset()) -> None:
    """Replay one record and append its rows to ``batch``; a bad game becomes a rejection and adds
    no rows at all. Games whose id is in ``known`` are counted as skipped, not replayed."""
    if record.error is not None or record.log is None:
        _reject(batch, record, record.error or LogFormatError("unreadable", file=record.file), now)
        return
    log = record.log
    game_id = log.game_id
    if game_id in known:
        batch.skipped += 1
        return
    engine = engine_for(log.game)
    names = log.players
    moves = _columns(MOVES)
    global_schema, player_schema = state_schemas(engine)
    states = _columns(global_schema)
    player_states = _columns(player_schema)
    state = None
    info_before: dict[str, Any] = {}
    try:
        for state, step in iter_replay(log):
            number = step.number if step else 0
            row = engine.global_row(state)
            states["game_id"].append(game_id)
            states["step"].append(number)
            for key, value in row.items():
                states[key].append(value)
            for seat, prow in enumerate(engine.player_rows(state)):
                player_states["game_id"].append(game_id)
                player_states["step"].append(number)
                player_states["seat"].append(seat)
                for key, value in prow.items():
                    player_states[key].append(value)
            if step is not None:
                details = step.move.to_json()
                moves["game_id"].append(game_id)
                moves["step"].append(number)
                moves["round"].append(info_before["round"])
                moves["governor"].append(info_before["governor"])
                moves["role"].append(info_before["role"])
                moves["seat"].append(step.seat)
                moves["player"].append(names[step.seat] if step.seat is not None else None)
                moves["kind"].append(details.get("kind"))
                moves["text"].append(step.move.text())
                moves["words"].append(step.words)
                moves["details"].append(json.dumps(details, ensure_ascii=False))
            info_before = engine.step_info(state)
    except GovernorError as err:
        _reject(batch, record, err.with_context(file=record.file, game_index=record.index, game_id=game_id)
                if hasattr(err, "with_context") else err, now)
        return
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
    for name, cols, schema in (
        ("moves", moves, MOVES),
        (f"{log.game}_states", states, global_schema),
        (f"{log.game}_player_states", player_states, player_schema),
    ):
        target = batch.table(name, schema)
        for key, values in cols.items():
            target[key].extend(values)
    batch.game_ids.append(game_id)


def process(records: Iterable[LogRecord], known: frozenset[str] = frozenset()) -> Batch:
    """Replay records into one batch (the unit of work of a worker process)."""
    batch = Batch()
    now = datetime.now(UTC)
    seen: set[str] = set(known)
    for record in records:
        before = len(batch.game_ids)
        add_record(batch, record, now, seen)
        if len(batch.game_ids) > before:
            seen.add(batch.game_ids[-1])
    return batch
