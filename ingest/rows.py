"""One log in, Arrow columns out: replay a game through its engine and lay out the rows of every table.

This runs in the worker processes; it holds no game rules, only the engine protocol.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import ChainMap
from collections.abc import Iterable, Mapping, MutableMapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any, cast

import pyarrow as pa

from ingest.schema import GAMES, MOVE_FIELDS, PLAYERS, REJECTIONS, moves_schema, player_change_schema, state_schemas
from ingest.stored import StoredGame, copy_error
from replay.errors import GovernorError, InternalError, LogFormatError, has_control, printable
from replay.log_reader import RawGame
from replay.logfile import LogRecord
from replay.names import check_player_name
from replay.replayer import replay_in_place

#: The positions a task read (file and game in it, whatever became of each game): a store drops the
#: rejections it holds for these positions that this reading did not give again (they are stale: the
#: file was unreadable then, or has changed).
READ_POSITIONS = "read_positions"
READ_SCHEMA = pa.schema([("file", pa.string()), ("game_index", pa.int32())])


def _columns(schema: pa.Schema) -> dict[str, list[Any]]:
    return {name: [] for name in schema.names}


#: Move -> (kind, text, JSON): parsed moves are shared frozen values (see replay.replayer), so the
#: same few hundred moves are serialised once per worker instead of once per occurrence.
_MOVE_FORMS: dict[Any, tuple[str, str, str]] = {}


def move_forms(move: Any) -> tuple[str, str, str]:
    """The move's kind, text form and JSON text."""
    try:
        forms = _MOVE_FORMS.get(move)
    except TypeError:  # an unhashable move: no cache
        forms = None
    if forms is None:
        details = move.to_json()
        forms = (details.get("kind"), move.text(), json.dumps(details, ensure_ascii=False))
        try:
            if len(_MOVE_FORMS) > 1 << 16:
                _MOVE_FORMS.clear()
            _MOVE_FORMS[move] = forms
        except TypeError:
            pass
    return forms


#: The mark ``governor arena`` gives an agent seated again in one arena (``heuristic#2``, ``heuristic#3``):
#: the same agent, so not part of its identity.
_REPEAT_MARK = re.compile(r"#[0-9]+$")
#: The longest agent version kept in an identity (``governor arena`` allows 40 characters).
MAX_VERSION_CHARS = 40


def agent_identity(name: str, version: object) -> str:
    """The player an agent is, one per agent name and version: its name without the arena's mark of a
    repeat, then its version (``heuristic#2``, ``"1"`` -> ``heuristic v1``; a version that already
    starts with a ``v`` and a digit is not given a second one: ``bot v2.1``). A version that is not
    a short printable string (missing, empty, invisible) leaves the name alone."""
    base = _REPEAT_MARK.sub("", name) or name
    if isinstance(version, int | float) and not isinstance(version, bool):
        version = str(version)
    if not isinstance(version, str) or len(version) > MAX_VERSION_CHARS or has_control(version):
        return base
    try:
        version = check_player_name(version).strip()
    except ValueError:
        return base
    if re.match(r"[vV][0-9]", version):
        return f"{base} {version}"
    return f"{base} v{version}"


def seat_players(names: list[str], meta: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """Each seat's player, ``(name, bot)``: the seat's name in the log for a person; for a seat that
    ``meta.agents`` says an agent played (``{"seat", "name", "spec", "version"}``, as ``governor
    arena`` writes it; ``"bot": false`` says a person played through it), the agent's identity
    (``agent_identity``), marked as a bot. An entry that does not name its seat's player (not an
    object, a seat out of range, another name) is ignored."""
    players = [(name, False) for name in names]
    agents = meta.get("agents") if isinstance(meta, Mapping) else None
    if not isinstance(agents, list):
        return players
    for entry in agents:
        if not isinstance(entry, Mapping) or entry.get("bot", True) is False:
            continue
        seat = entry.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(names):
            continue
        entry_name = entry.get("name")
        # The log's names are read in NFC (``replay.names``); the meta as written.
        if not isinstance(entry_name, str) or unicodedata.normalize("NFC", entry_name) != names[seat]:
            continue
        players[seat] = (agent_identity(names[seat], entry.get("version")), True)
    return players


def rejection_id(file: str, index: int, text: str) -> str:
    """Key of a rejection: the same bad game in the same file is one rejection, however often imported."""
    return hashlib.sha256(f"{file}\0{index}\0{text}".encode("utf-8", "backslashreplace")).hexdigest()[:20]


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
        out = {}
        for name, cols in self.columns.items():
            schema = self.schemas[name]
            out[name] = pa.Table.from_arrays([_array(cols[f.name], f.type) for f in schema], schema=schema)
        if self.rejections:
            out["rejections"] = pa.Table.from_pylist(self.rejections, schema=REJECTIONS)
        return out


def _array(values: list[Any], kind: pa.DataType) -> pa.Array:
    """``values`` as an Arrow array. A column of long lists that keep their value for many steps in a
    row (a game's buildings left in its supply) has each run's value converted once and repeated by ``take`` in
    C: twice as fast as converting every list. For short lists, finding the runs costs more than it
    saves (measured)."""
    if not pa.types.is_list(kind) or len(values) < 32 or len(values[0] or ()) < 12:
        return pa.array(values, kind)
    runs: list[Any] = []
    at: list[int] = []
    last: Any = _NONE
    for value in values:
        if value != last:
            runs.append(value)
            last = value
        at.append(len(runs) - 1)
    if 2 * len(runs) > len(values):
        return pa.array(values, kind)
    return pa.array(runs, kind).take(pa.array(at, pa.int32()))


_NONE = object()


def _text(value: object) -> str | None:
    # Every text stored for a rejection is one printable line (Arrow refuses a lone surrogate).
    return None if value is None else printable(str(value))


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
            "player": _text(info.get("player")),
            "rule": _text(info.get("rule")),
            "message": error.message,
            "rejected_at": now,
        }
    )


def add_record(batch: Batch, record: LogRecord, now: datetime, known: Mapping[str, StoredGame | None] | None = None,
               complete: bool = True) -> None:
    """Replay one record and append its rows to ``batch``; a bad game becomes a rejection and adds
    no rows at all. A game whose id is in ``known`` is not replayed: it is counted as skipped when it
    agrees with the stored game, else rejected (see ``ingest.stored.copy_error``). With ``complete``
    False, a game that is not over yet is laid out too (a what-if variation)."""
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
    names = log.players
    # The moves table's columns: the games' own step columns (``step_info`` gives this game's; another
    # game's are None here) sit between the round and the move.
    schema = moves_schema()
    own = schema.names[3:-len(MOVE_FIELDS)]
    global_rows: list[dict[str, Any]] = []
    move_rows: list[tuple[Any, ...]] = []
    # Per-seat rows are stored as runs: a seat's row is emitted once for the steps it stays the same
    # (the engine's ``state_rows`` tells which seats a step may have changed); the database expands runs
    # to one row per step on insert. This keeps the Python side of storing cheap.
    changes: list[tuple[int, int, int, dict[str, Any]]] = []
    last_rows: list[Any] = [None] * len(names)
    run_start = [0] * len(names)
    number = 0
    # The words of a move are made from the state it is made in, just before the move (the game is
    # changed in place, so that state is gone after it); an error making them is raised only once the
    # move turned out legal, as when the words were made from a snapshot after the move.
    told: list[Any] = [None, None]

    def before_move(work: Any, seat: int | None, move: Any) -> None:
        try:
            told[0] = describe(view(), move, names)
            told[1] = None
        except Exception as err:  # noqa: BLE001 - raised after the move, see above
            told[1] = err

    try:
        engine, work, steps = replay_in_place(log, require_complete=complete, before_move=before_move)
        rows = engine.state_rows(work)
        view = rows.view
        changed = rows.changed
        describe = engine.describe_move
        global_row = engine.global_row
        step_info = engine.step_info
        automatic_events = engine.automatic_events

        def take(number: int) -> None:
            for seat, prow in changed():
                if last_rows[seat] is not None:
                    changes.append((seat, run_start[seat], number, last_rows[seat]))
                last_rows[seat] = prow
                run_start[seat] = number

        state = view()
        global_rows.append(global_row(state))
        take(0)
        info_before = step_info(state)
        for number, seat, move in steps:
            if told[1] is not None:
                raise told[1]
            state = view()
            global_rows.append(global_row(state))
            take(number)
            kind, text, details = move_forms(move)
            move_rows.append((
                number, info_before["round"], *[info_before.get(column) for column in own], seat,
                names[seat] if seat is not None else None, kind, text, told[0], details,
                automatic_events(None, move, state, names),
            ))
            info_before = step_info(state)
        state = work.snapshot()
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
    # An agent's seat is stored under the agent's identity (one player per agent and version, marked as
    # a bot), not under the name it had at this table (``heuristic#2``); ``games.players`` keeps the log's.
    who = seat_players(list(names), log.meta)
    for seat, score in enumerate(scores):
        players["game_id"].append(game_id)
        players["seat"].append(seat)
        players["name"].append(who[seat][0])
        players["bot"].append(who[seat][1])
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
    moves = batch.table("moves", schema)
    moves["game_id"].extend([game_id] * len(move_rows))
    for key, values in zip(schema.names[1:], zip(*move_rows)):
        moves[key].extend(values)
    global_schema, _ = state_schemas(engine)
    states = batch.table(f"{log.game}_states", global_schema)
    states["game_id"].extend([game_id] * len(global_rows))
    states["step"].extend(range(len(global_rows)))
    _extend(states, global_schema.names[2:], global_rows)
    change_schema = player_change_schema(engine)
    runs = batch.table(f"{log.game}_player_changes", change_schema)
    runs["game_id"].extend([game_id] * len(changes))
    runs["seat"].extend([c[0] for c in changes])
    runs["from_step"].extend([c[1] for c in changes])
    runs["to_step"].extend([c[2] for c in changes])
    _extend(runs, change_schema.names[4:], [c[3] for c in changes])
    batch.game_ids.append(game_id)


def _extend(table: dict[str, list[Any]], keys: list[str], rows: list[dict[str, Any]]) -> None:
    """Append the ``keys`` of every row to the table's columns (rows to columns in C)."""
    if len(keys) == 1:
        table[keys[0]].extend([row[keys[0]] for row in rows])
        return
    for key, values in zip(keys, zip(*map(itemgetter(*keys), rows))):
        table[key].extend(values)


def process(records: Iterable[LogRecord], known: Mapping[str, StoredGame] | AbstractSet[str] | None = None,
            remember: dict[str, StoredGame | None] | None = None) -> Batch:
    """Replay records into one batch (the unit of work of a worker process). ``known`` maps stored
    games' ids to what a copy is checked against (a set of ids alone: copies are skipped unchecked);
    each game laid out is added to ``remember`` (a fresh dict when not given), which is looked up
    before ``known``. A bug met on one game rejects that game (kind ``internal``) and the others go on."""
    batch = Batch()
    now = datetime.now(UTC)
    # The games of this task are added in front of ``known``, which is never copied: with a million
    # stored games a copy cost each task 40 MB and tens of milliseconds.
    # (ChainMap writes to its first map only: ``known`` is read, never changed.)
    stored = cast("MutableMapping[str, StoredGame | None]",
                  known if isinstance(known, Mapping) else dict.fromkeys(known or ()))
    seen: ChainMap[str, StoredGame | None] = ChainMap({} if remember is None else remember, stored)
    for record in records:
        before = len(batch.game_ids)
        lengths = {name: len(next(iter(cols.values()), [])) for name, cols in batch.columns.items()}
        try:
            add_record(batch, record, now, seen)
        except Exception as err:  # a bug, not the log's fault: drop this game's partial rows
            for name, cols in batch.columns.items():
                for values in cols.values():
                    del values[lengths.get(name, 0):]
            del batch.game_ids[before:]
            _reject(batch, record, InternalError(err, file=record.file, game_index=record.index), now)
            continue
        if len(batch.game_ids) > before and record.log is not None:
            game_id = batch.game_ids[-1]
            players = batch.columns["players"]
            seats = len(record.log.players)
            seen[game_id] = StoredGame(
                tuple(players["score"][-seats:]), tuple(batch.columns["games"]["winners"][-1]),
                record.log.source_id, record.file,
            )
    return batch


def parse_item(item: RawGame | LogRecord) -> LogRecord:
    """A game read from a file, parsed (a bug in the reader rejects this game only, kind ``internal``)."""
    if isinstance(item, LogRecord):
        return item
    try:
        return item.parse()
    except Exception as err:  # noqa: BLE001 - a bug in the reader: this game only is rejected
        return LogRecord(item.file, item.index, "", None, InternalError(err, file=item.file, game_index=item.index))


def process_arrow(records: list[LogRecord],
                  known: Mapping[str, StoredGame] | AbstractSet[str] | None = None) -> tuple[dict[str, pa.Table], list[str], int]:
    """``process`` then ``Batch.to_arrow``: the tables of ``records`` (and ``READ_POSITIONS``), the
    stored games' ids and the number of copies skipped. When the rows of the whole set cannot be made into Arrow columns (a
    value no column holds: a bug), the games are laid out again one by one, so that only the games
    whose rows fail are rejected (kind ``internal``) and every other game of the set is kept."""
    read = pa.table([pa.array([r.file for r in records], pa.string()), pa.array([r.index for r in records], pa.int32())],
                    schema=READ_SCHEMA)
    batch = process(records, known)
    try:
        return {**batch.to_arrow(), READ_POSITIONS: read}, batch.game_ids, batch.skipped
    except Exception:  # noqa: BLE001 - found game by game below, and reported as a bug of that game
        pass
    remember: dict[str, StoredGame | None] = {}
    parts: dict[str, list[pa.Table]] = {}
    ids: list[str] = []
    skipped = 0
    for record in records:
        one = process([record], known, remember)
        try:
            tables = one.to_arrow()
        except Exception as err:  # noqa: BLE001 - a bug met by this game only
            for game_id in one.game_ids:
                remember.pop(game_id, None)
            bad = Batch()
            _reject(bad, record, InternalError(err, file=record.file, game_index=record.index), datetime.now(UTC))
            tables = bad.to_arrow()
        else:
            ids.extend(one.game_ids)
            skipped += one.skipped
        for name, table in tables.items():
            parts.setdefault(name, []).append(table)
    parts[READ_POSITIONS] = [read]
    return {name: pa.concat_tables(tables) for name, tables in parts.items()}, ids, skipped
