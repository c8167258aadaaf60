"""Storage benchmark: database bytes per game and the documented queries' time, by block size.

For each block size asked for, makes a new database file with it, runs ``governor import`` of a simulated
San Juan corpus into it (the command a user runs), then measures: bytes per game of the file and the
blocks each table holds, what one more one-game import adds to the file (what each dashboard upload
does), and the time of every example query of docs/schema.md and of each documented view, cold (the
operating system's file cache dropped when this process may, and a new connection) and warm, best of
``--repeat``. Writes ``bench/results_storage.json``.

    python bench/bench_storage.py [--games 10000] [--block-sizes 262144 65536] [--repeat 3]
    python bench/bench_storage.py --db A.duckdb B.duckdb      # measure existing files only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from bench.bench_import import renamed_corpus  # noqa: E402
from bench.common import OUT, machine  # noqa: E402
from ingest.migrations import ensure_schema  # noqa: E402
from ingest.schema import VIEWS, vp_by_step_view  # noqa: E402

GOVERNOR = str(Path(sys.executable).parent / "governor")


def documented_queries(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The example queries of docs/schema.md (``'...'`` is a stored 4-player game, ``'Ana'`` a stored
    name), then one query per documented view."""
    text = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sql\n(.*?)```", text, re.S)
    game_id = con.execute("SELECT min(game_id) FROM games WHERE player_count = 4").fetchall()[0][0]
    name = con.execute("SELECT min(name) FROM players").fetchall()[0][0]
    queries = {}
    for k, sql in enumerate(blocks, 1):
        queries[f"schema.md #{k}"] = sql.replace("'...'", f"'{game_id}'").replace("'Ana'", "'" + name.replace("'", "''") + "'")
    for view in sorted(VIEWS):
        queries[f"view {view}"] = f"SELECT count(*) FROM (SELECT * FROM {view})"
    queries["view vp_by_step"] = "SELECT step, avg(vp), count(*) FROM vp_by_step GROUP BY step ORDER BY step"
    return queries


def _drop_file_cache() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def time_queries(db: Path, repeat: int) -> dict[str, Any]:
    with duckdb.connect(str(db), read_only=True) as con:
        queries = documented_queries(con)
    out: dict[str, Any] = {}
    for name, sql in queries.items():
        cold, warm = [], []
        rows, digest = 0, ""
        for _ in range(repeat):
            _drop_file_cache()
            with duckdb.connect(str(db), read_only=True) as con:
                start = time.perf_counter()
                result = con.execute(sql).fetchall()
                cold.append(time.perf_counter() - start)
                rows = len(result)
                digest = hashlib.sha1(repr(sorted(map(repr, result))).encode()).hexdigest()[:12]
                start = time.perf_counter()
                con.execute(sql).fetchall()
                warm.append(time.perf_counter() - start)
        out[name] = {"cold_s": round(min(cold), 4), "warm_s": round(min(warm), 4), "rows": rows, "digest": digest, "sql": sql}
    return out


def file_facts(db: Path) -> dict[str, Any]:
    with duckdb.connect(str(db), read_only=True) as con:
        games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
        block_size = con.execute("PRAGMA database_size").fetchall()[0][2]
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()]
        blocks = {}
        for table in tables:
            held = con.execute(f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{table}') WHERE block_id >= 0").fetchall()[0][0]
            if held:
                blocks[table] = {"blocks": held, "bytes_per_game": round(held * block_size / max(games, 1))}
    size = db.stat().st_size
    return {"file_bytes": size, "games": games, "block_size": block_size,
            "bytes_per_game": round(size / max(games, 1)), "tables": blocks}


def new_file(db: Path, block_size: int) -> None:
    for suffix in ("", ".wal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    with duckdb.connect(str(db), config={"default_block_size": str(block_size)}) as con:
        ensure_schema(con, str(db))


def one_game_imports(block_size: int, base: Path, count: int) -> dict[str, Any]:
    """A new file with ``block_size`` holding 1,000 games, then ``count`` imports of one game each:
    what each adds to the file."""
    db = OUT / f"storage-one-game-{block_size}.duckdb"
    new_file(db, block_size)
    lines = (base / "part0000.jsonl").read_text(encoding="utf-8").splitlines()
    first = OUT / "storage-first-1000.jsonl"
    first.write_text("\n".join(lines[:1000]) + "\n", encoding="utf-8")
    subprocess.run([GOVERNOR, "import", str(first), "--db", str(db)], check=True, capture_output=True)
    before = db.stat().st_size
    for k in range(count):
        one = OUT / "storage-one.jsonl"
        one.write_text(lines[1000 + k] + "\n", encoding="utf-8")
        subprocess.run([GOVERNOR, "import", str(one), "--db", str(db)], check=True, capture_output=True)
    after = db.stat().st_size
    db.unlink()
    return {"imports": count, "bytes_before": before, "bytes_after": after,
            "bytes_per_one_game_import": round((after - before) / count)}


def runs_variant(src: Path, dst_plain: Path, dst_runs: Path, dst_forms: Path) -> None:
    """The experiment of storing per-seat state as runs: new files with the same block size as ``src``,
    holding every table of ``src`` copied in stored order (one write each, so they are laid out
    alike): ``dst_plain`` as is; ``dst_runs`` with each ``<game>_player_states`` stored as runs of
    unchanged rows (``<game>_player_runs``: ``game_id``, ``seat``, ``from_step``, ``to_step`` and the
    state) under a view of the old name that expands them to one row per step, as the import does;
    ``dst_forms`` as ``dst_runs``, and ``moves`` stored without its three forms of the move (``text``,
    ``details``, and ``words`` but for the player's name, which starts it), which are kept once per
    distinct move in ``move_forms`` and joined back by a view named ``moves``."""
    with duckdb.connect(str(src), read_only=True) as con:
        block_size = con.execute("PRAGMA database_size").fetchall()[0][2]
    for dst in (dst_plain, dst_runs, dst_forms):
        new_file(dst, block_size)
        with duckdb.connect(str(dst), config={"max_vacuum_tasks": 0}) as con:
            con.execute(f"ATTACH '{src}' AS src (READ_ONLY)")
            tables = [r[0] for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src'").fetchall()]
            for table in tables:
                if table == "moves" and dst == dst_forms:
                    con.execute("DROP TABLE main.moves")
                    con.execute("""
                        CREATE TABLE main.move_forms AS
                        SELECT row_number() OVER ()::INTEGER AS form, * FROM (
                            SELECT DISTINCT kind, text, details, words[length(player) + 2:] AS rest FROM src.moves)""")
                    con.execute("""
                        CREATE TABLE main.move_rows AS
                        SELECT m.game_id, m.step, m.round, m.governor, m.role, m.seat, m.player, f.form, m.events
                        FROM (SELECT *, rowid AS r FROM src.moves) m
                        JOIN main.move_forms f ON f.kind = m.kind AND f.text = m.text AND f.details = m.details
                            AND f.rest = m.words[length(m.player) + 2:]
                        ORDER BY m.r""")
                    con.execute("""
                        CREATE VIEW main.moves AS
                        SELECT m.game_id, m.step, m.round, m.governor, m.role, m.seat, m.player, f.kind, f.text,
                               m.player || ' ' || f.rest AS words, f.details, m.events
                        FROM main.move_rows m JOIN main.move_forms f USING (form)""")
                    continue
                state = table.endswith("_player_states") and dst != dst_plain
                if not state:
                    con.execute(f'DELETE FROM main."{table}"')
                    con.execute(f'INSERT INTO main."{table}" SELECT * FROM src."{table}"')
                    continue
                runs = table.removesuffix("_player_states") + "_player_runs"
                columns = [r[0] for r in con.execute(f'DESCRIBE src."{table}"').fetchall()][3:]
                listed = ", ".join(f'"{c}"' for c in columns)
                # A new run starts where a seat's row differs from its row at the step before.
                con.execute(f"""
                    CREATE TABLE main."{runs}" AS
                    WITH marked AS (
                        SELECT *, sum(new) OVER (PARTITION BY game_id, seat ORDER BY step) AS run FROM (
                            SELECT *, CASE WHEN lag(h) OVER (PARTITION BY game_id, seat ORDER BY step) = h
                                THEN 0 ELSE 1 END AS new
                            FROM (SELECT *, rowid AS r, hash({listed}) AS h FROM src."{table}")))
                    SELECT game_id, seat, min(step)::INTEGER AS from_step, (max(step) + 1)::INTEGER AS to_step,
                           {", ".join(f'any_value("{c}") AS "{c}"' for c in columns)}
                    FROM marked GROUP BY game_id, seat, run ORDER BY min(r)""")
                con.execute(f'DROP TABLE main."{table}"')
                con.execute(f'CREATE VIEW main."{table}" AS SELECT game_id, unnest(range(from_step, to_step))::INTEGER '
                            f'AS step, seat, {listed} FROM main."{runs}"')
            con.execute("CREATE OR REPLACE VIEW vp_by_step AS " + vp_by_step_view())
            con.execute("DETACH src")
            con.execute("CHECKPOINT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--block-sizes", type=int, nargs="+", default=[262_144, 65_536])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one-game-imports", type=int, default=10)
    parser.add_argument("--db", type=Path, nargs="*", help="measure these files only (no import)")
    parser.add_argument("--runs-from", type=Path, help="the experiment of per-seat state as runs, from this file")
    parser.add_argument("--out", type=Path, default=HERE / "results_storage.json")
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "file_cache_dropped": _drop_file_cache(), "runs": []}
    if args.runs_from:
        variants = [OUT / f"storage-copy-{name}.duckdb" for name in ("plain", "runs", "runs-forms")]
        runs_variant(args.runs_from, *variants)
        args.db = variants
    if args.db:
        for db in args.db:
            results["runs"].append({"db": str(db), **file_facts(db), "queries": time_queries(db, args.repeat)})
    else:
        corpus = renamed_corpus(args.games, args.base)
        for block_size in args.block_sizes:
            db = OUT / f"storage-{args.games}-{block_size}.duckdb"
            new_file(db, block_size)
            start = time.perf_counter()
            subprocess.run([GOVERNOR, "import", str(corpus), "--db", str(db)], check=True, capture_output=True)
            seconds = time.perf_counter() - start
            run = {"db": str(db), "import_s": round(seconds, 1), **file_facts(db)}
            run["queries"] = time_queries(db, args.repeat)
            run["one_game"] = one_game_imports(block_size, renamed_corpus(args.base, args.base), args.one_game_imports)
            results["runs"].append(run)
            print(json.dumps({k: v for k, v in run.items() if k not in ("queries", "tables")}), flush=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    for run in results["runs"]:
        print(run["db"], run["bytes_per_game"], "bytes/game, block", run["block_size"])
        for name, q in run["queries"].items():
            print(f"  {name:40s} cold {q['cold_s']:8.3f} s  warm {q['warm_s']:8.3f} s  rows {q['rows']}  {q['digest']}")


if __name__ == "__main__":
    main()
