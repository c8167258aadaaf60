"""Importing uploaded files: checked, written under generated names, imported in a child process.

An uploaded file's name is only ever displayed: the bytes go to ``upload-NNN<suffix>`` in a fresh
temporary folder, where the suffix is one of the log suffixes the importer reads. The import runs
``ingest.importer.import_paths`` in a separate process because DuckDB refuses, within one process, a
read-write connection next to the dashboard's read-only ones.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import pandas as pd

from ingest.db import DatabaseError
from ingest.importer import ImportSummary, import_paths

#: The largest file accepted (streamlit's server.maxUploadSize is set to the same).
MAX_FILE_BYTES = 50 * 2**20
#: Suffixes the importer reads, longest first so ``.jsonl.gz`` wins over ``.gz``.
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json")


@dataclass
class ImportReport:
    """What an upload did: counts, refused files with the reason, rejection messages (with uploaded
    names in place of temporary paths), the imported games and any error that stopped it."""

    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    games: pd.DataFrame | None = None
    error: str | None = None


def log_suffix(name: str) -> str | None:
    """The log suffix of an uploaded name (``.json``, ``.jsonl``, ``.json.gz``, ``.jsonl.gz``), or None."""
    lower = name.lower()
    return next((s for s in SUFFIXES if lower.endswith(s)), None)


def check_upload(name: str, content: bytes) -> str | None:
    """Why an upload is refused, or None when it may be imported."""
    if log_suffix(name) is None:
        if name.lower().endswith(".gz"):
            return "a gzipped log must be named .json.gz or .jsonl.gz"
        return "not a log file (.json, .jsonl, .json.gz or .jsonl.gz)"
    if len(content) > MAX_FILE_BYTES:
        return f"{len(content) / 2**20:.1f} MB is more than the limit of {MAX_FILE_BYTES // 2**20} MB per file"
    if not content.strip():
        return "the file is empty"
    return None


def _run_import(folder: str, db: str, names: dict[str, str]) -> ImportSummary:
    return import_paths([folder], db, workers=1, progress=False, display_names=names)


def import_uploads(files: Sequence[tuple[str, bytes]], db: str, timeout: float = 600.0) -> ImportReport:
    """Check, store and import uploaded ``(name, bytes)`` files into ``db``; never raises for bad
    input: refusals, rejections and errors are in the report."""
    report = ImportReport()
    folder = Path(tempfile.mkdtemp(prefix="governor-upload-"))
    names: dict[str, str] = {}
    try:
        for index, (name, content) in enumerate(files):
            reason = check_upload(name, content)
            if reason is not None:
                report.refused.append((name, reason))
                continue
            path = folder / f"upload-{index:03d}{log_suffix(name)}"
            path.write_bytes(content)
            names[str(path)] = name
        if not names:
            return report
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
                summary = pool.submit(_run_import, str(folder), db, names).result(timeout=timeout)
        except DatabaseError as err:
            report.error = f"The import failed: {err}"
            return report
        except Exception as err:  # the child process died or timed out
            report.error = f"The import failed: {type(err).__name__}: {err}"
            return report
        report.imported = summary.imported
        report.duplicates = summary.duplicates
        report.rejected = summary.rejected
        report.game_ids = list(summary.game_ids)
        report.messages = [_display_names(m, names, folder) for m in summary.messages]
        return report
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _display_names(message: str, names: dict[str, str], folder: Path) -> str:
    for path, name in names.items():
        message = message.replace(path, name)
    return message.replace(str(folder) + "/", "")
