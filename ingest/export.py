"""``governor export --parquet DIR``: every table as a Parquet file, streamed.

Each file is written under a temporary name made exclusively (a random name, ``O_EXCL``) in DIR and
renamed over ``DIR/<table>.parquet`` once complete (``replay.outputs.replacing``): an export never
leaves a half-written file under a table's name, and never writes through a link or a file planted at
a name it could guess; a link at a table's own name is replaced, never followed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ingest.db import DatabaseError, reader
from ingest.query_output import OutputError, write_parquet
from ingest.schema import table_schemas
from replay import exits
from replay.errors import printable
from replay.outputs import replacing

#: Rows of a table, and logs, held at once while exporting.
EXPORT_BATCH_ROWS = 100_000
EXPORT_BATCH_LOGS = 1_000


def _shown(path: str | Path) -> str:
    return printable(os.fsdecode(path))


def run_export(db: str, folder: Path, games: bool = False) -> int:
    """``governor export --parquet DIR``: every table as DIR/<table>.parquet (and the logs as JSONL).
    Exit 0, or 2 when the database cannot be read or DIR cannot be written (one line, escaped)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        print(f"governor export: cannot make the folder {_shown(folder)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    try:
        with reader(db) as con:
            # A lake's tables are views over its files.
            present = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            names = [n for n in table_schemas() if n in present]
            # Streamed batch by batch: a table of hundreds of millions of rows never sits in memory.
            for name in names:
                batches = con.sql(f'SELECT * FROM "{name}"').to_arrow_reader(EXPORT_BATCH_ROWS)
                target = folder / f"{name}.parquet"
                with replacing(target, follow=False) as part:
                    rows = write_parquet(batches.schema, batches, part)
                print(f"{name}: {rows} rows -> {_shown(target)}", file=sys.stderr)
            if games:
                with replacing(folder / "games.jsonl", follow=False) as part, open(part, "w", encoding="utf-8") as fh:
                    logs = con.execute("SELECT log FROM games ORDER BY file, file_index")
                    while chunk := logs.fetchmany(EXPORT_BATCH_LOGS):
                        for (text,) in chunk:
                            fh.write(text.strip().replace("\n", " ") if "\n" in text.strip() else text.strip())
                            fh.write("\n")
    except DatabaseError as err:
        print(f"governor export: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except (OutputError, OSError) as err:
        print(f"governor export: cannot write in {_shown(folder)}: {err}", file=sys.stderr)
        return exits.ENVIRONMENT
    return exits.OK
