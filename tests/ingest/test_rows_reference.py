"""The importer's rows, read off the engine's working game (``ingest.rows.add_record``), are exactly the
rows laid out from one snapshot per state: the same importer with every engine's ``working`` replaced by
``SnapshotWorking`` (each move a new immutable snapshot, each seat's row from the engine's full
``player_rows`` and ``global_row``, the move's words from the snapshot before it). The same logs imported
both ways give databases whose every table holds the same rows, and the same rejections with the same
messages; a what-if variation (a game not over) gives the same batch. And the sample logs give, table by
table, the rows the importer gave before it read them off the working game (``rows_golden.json``)."""

from __future__ import annotations

import copy
import json
import random
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

import ingest.rows
from ingest.importer import import_paths
from ingest.rows import Batch, add_record
from replay.engine_base import SnapshotWorking
from replay.log_reader import read_records
from replay.logfile import GameLog, LogRecord, parse_game, write_games
from replay.registry import all_engines
from replay.simulate import simulate_game
from tests.replay.test_mutations import mutate
from tests.replay.test_working_fold import simulated_cases

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("rows_golden.json")

#: Simulated games of every player count: heuristic bots play long, ordinary games; random ones reach
#: what heuristics avoid (cranes, archives, declined privileges, empty piles, forced loads).
SIMULATED = simulated_cases((("heuristic", range(12)), ("random", range(100, 112)), ("mixed", range(200, 204))))


def _corpus(folder: Path) -> list[dict[str, Any]]:
    """Simulated games, and broken copies of some of them (moves dropped, swapped, altered: rejected
    at various moves with the rules' messages), written as .jsonl files under ``folder``."""
    games = [simulate_game(game, players, seed, bot, options) for game, players, seed, bot, options in SIMULATED]
    rng = random.Random(13)
    broken = []
    for k, game in enumerate(games[::4]):
        how = ("drop", "duplicate", "swap", "alter", "drop_field")[k % 5]
        value = rng.choice(["Smithy", 7, None, "corn", [], "trader"])
        broken.append(mutate(game, how, rng.randrange(1 << 16), rng.randrange(1 << 16), value))
    write_games(folder / "simulated.jsonl", games)
    write_games(folder / "broken.jsonl", broken)
    return games


def snapshots(patch: pytest.MonkeyPatch) -> None:
    """Make every engine replay through snapshots (``SnapshotWorking``) instead of its working game."""
    for engine in all_engines().values():
        patch.setattr(engine, "working", lambda state, engine=engine: SnapshotWorking(engine, state))


def _import(paths: list[Path], db: Path, through_snapshots: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        if through_snapshots:
            snapshots(patch)
        summary = import_paths(paths, db, workers=1)
    assert summary.imported > 0 and summary.rejected > 0


def _tables(con: duckdb.DuckDBPyConnection, schema: str) -> dict[str, list[str]]:
    """Every base table of an attached database and its columns, timestamps of the import left out."""
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_catalog = ? AND table_schema = 'main' ORDER BY table_name, ordinal_position", [schema]
    ).fetchall()
    views = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? AND table_type = 'VIEW'", [schema]
    ).fetchall()}
    out: dict[str, list[str]] = {}
    for table, column, kind in rows:
        if table in views or kind.startswith("TIMESTAMP"):
            continue
        if table == "game_rows" and column in ("first_row", "last_row"):
            # Where a game's per-seat rows sit is not decided by the rows sent: DuckDB expands the runs
            # in parallel, in no fixed order (two imports through the same code differ there).
            column = f"CASE WHEN table_name LIKE '%_player_states' THEN NULL ELSE {column} END"
        else:
            column = f'"{column}"'
        out.setdefault(table, []).append(column)
    return out


@pytest.fixture(scope="module")
def two_databases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("rows_corpus")
    _corpus(folder)
    paths = [ROOT / "sample_logs", ROOT / "tests" / "replay" / "bad_logs" / "logs", folder]
    now, before = folder / "now.duckdb", folder / "before.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        _import(paths, now, False, patch)
        _import(paths, before, True, patch)
    return now, before


def test_every_table_holds_the_same_rows(two_databases: tuple[Path, Path]) -> None:
    now, before = two_databases
    with duckdb.connect() as con:
        con.execute(f"ATTACH '{now}' AS now (READ_ONLY)")
        con.execute(f"ATTACH '{before}' AS before (READ_ONLY)")
        tables = _tables(con, "now")
        assert tables == _tables(con, "before")
        for table in ("games", "players", "moves", "rejections", "san_juan_states", "san_juan_player_states",
                      "puerto_rico_states", "puerto_rico_player_states", "player_builds", "openings"):
            assert table in tables
        counts = {}
        for table, columns in tables.items():
            cols = ", ".join(columns)
            n_now = con.execute(f'SELECT count(*) FROM now."{table}"').fetchall()[0][0]
            n_before = con.execute(f'SELECT count(*) FROM before."{table}"').fetchall()[0][0]
            assert n_now == n_before, table
            only_now = con.execute(
                f'SELECT {cols} FROM now."{table}" EXCEPT ALL SELECT {cols} FROM before."{table}" LIMIT 3'
            ).fetchall()
            only_before = con.execute(
                f'SELECT {cols} FROM before."{table}" EXCEPT ALL SELECT {cols} FROM now."{table}" LIMIT 3'
            ).fetchall()
            assert (only_now, only_before) == ([], []), table
            counts[table] = n_now
        # The comparison covered real data: every game of both kinds, every state, the bad logs and the
        # broken copies (some of which are still legal games).
        assert counts["games"] >= 60 + len(SIMULATED)
        assert counts["san_juan_player_states"] > 50_000 and counts["puerto_rico_player_states"] > 50_000
        kinds = dict(con.execute(
            "SELECT kind, count(*) FILTER (WHERE move_number IS NOT NULL) FROM now.rejections GROUP BY kind"
        ).fetchall())
        assert set(kinds) == {"illegal", "format", "result"}
        assert kinds["illegal"] >= 50  # rules broken at a move, with the move's number, seat and rule


def digests(db: Path) -> dict[str, str]:
    """A digest of every table an import fills (its rows in order, as DuckDB prints them), timestamps
    and the positions of per-seat rows left out (see ``_tables``)."""
    out = {}
    with duckdb.connect() as con:
        con.execute(f"ATTACH '{db}' AS now (READ_ONLY)")
        for table, columns in _tables(con, "now").items():
            if table in ("governor_meta", "analysis"):
                continue
            text = f"CAST(ROW({', '.join(columns)}) AS VARCHAR)"
            out[table] = con.execute(
                f"SELECT count(*) || ':' || coalesce(md5(string_agg({text}, chr(10) ORDER BY {text})), '') "
                f'FROM now."{table}"'
            ).fetchall()[0][0]
    return out


def test_the_samples_give_the_rows_of_the_golden_digests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sample logs and the bad-log corpus give, table by table, the very rows the importer gave
    before it read them off the working game (``rows_golden.json``, written from the database that
    importer made). This covers what the comparison above cannot: the engines' rows and words read
    off a working table, against the code before it did. Files are stored by the path given, and the
    digests were made with the bad logs at ``tests/bad_logs/logs``: the files are copied there. After
    an intended change of the stored rows, write the new digests with ``python -m
    tests.ingest.test_rows_reference DB > GOLDEN`` from a database of the same import, and say why in
    the commit."""
    db = tmp_path / "samples.duckdb"
    shutil.copytree(ROOT / "sample_logs", tmp_path / "sample_logs")
    shutil.copytree(ROOT / "tests" / "replay" / "bad_logs" / "logs", tmp_path / "tests" / "bad_logs" / "logs")
    monkeypatch.chdir(tmp_path)
    import_paths(["sample_logs", "tests/bad_logs/logs"], db, workers=1)
    assert digests(db) == json.loads(GOLDEN.read_text())


def _expanded(tables: dict[str, pa.Table]) -> dict[str, list[tuple[Any, ...]]]:
    """The batch's rows as the database stores them: per-seat runs one row per step, without the
    import time."""
    out = {}
    for name, table in tables.items():
        rows = table.drop_columns([c for c in ("imported_at", "rejected_at") if c in table.column_names]).to_pylist()
        if name.endswith("_player_changes"):
            rows = [
                {**{k: v for k, v in row.items() if k not in ("from_step", "to_step")}, "step": step}
                for row in rows for step in range(row["from_step"], row["to_step"])
            ]
        out[name] = sorted(tuple(sorted((k, repr(v)) for k, v in row.items())) for row in rows)
    return out


def test_a_game_not_over_gives_the_same_batch() -> None:
    """The what-if panel lays out a variation that is not over (``complete=False``)."""
    now = datetime(2026, 12, 1, tzinfo=UTC)
    for game, players, seed, bot, options in SIMULATED[::9]:
        obj = simulate_game(game, players, seed, bot, options)
        full: GameLog = parse_game(obj, file="game.json", index=0)
        for cut in (0, 1, len(full.moves) // 3, len(full.moves) - 1):
            part = copy.deepcopy(obj)
            part["moves"] = part["moves"][:cut]
            part.pop("result", None)
            log = parse_game(part, file="variation", index=0)
            batches = []
            for through_snapshots in (False, True):
                batch = Batch()
                with pytest.MonkeyPatch.context() as patch:
                    if through_snapshots:
                        snapshots(patch)
                    add_record(batch, LogRecord("variation", 0, "", log, None), now, complete=False)
                batches.append(_expanded(batch.to_arrow()))
            assert batches[0] == batches[1], (game, players, seed, cut)
            assert len(batches[0]["moves"]) == cut


if __name__ == "__main__":
    print(json.dumps(digests(Path(sys.argv[1])), indent=1, sort_keys=True))


def test_an_error_in_the_words_of_a_move_comes_after_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The words of a move are made before it, on the working game, but a bug making them must not hide
    the rule that move breaks: an illegal move is rejected for its rule, and a legal one whose words
    fail rejects the game as an internal error, as when the words were made after the move."""
    from replay.san_juan.engine import SanJuanEngine
    from replay.san_juan.moves import Build

    real = SanJuanEngine.describe_move

    def words(self: SanJuanEngine, state: Any, move: Any, names: Any) -> str:
        if isinstance(move, Build) and move.building == "Palace":
            raise ValueError("no words for a palace")
        return real(self, state, move, names)

    monkeypatch.setattr(SanJuanEngine, "describe_move", words)
    paths = [ROOT / "tests" / "replay" / "bad_logs" / "logs" / "build_not_in_hand.json"]
    paths += sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))[:12]
    records = [r for path in paths for r in read_records(path)]
    found = []
    for through_snapshots in (False, True):
        with monkeypatch.context() as patch:
            if through_snapshots:
                snapshots(patch)
            batch = ingest.rows.process(records)
        found.append([{k: v for k, v in r.items() if k != "rejected_at"} for r in batch.rejections])
        found.append(batch.game_ids)
    assert found[0] == found[2] and found[1] == found[3]
    kinds = [(r["kind"], r["rule"]) for r in found[0]]
    assert kinds[0] == ("illegal", "builder.in_hand")
    assert ("internal", None) in kinds[1:]
    assert any("ValueError: no words for a palace" in r["message"] for r in found[0])

