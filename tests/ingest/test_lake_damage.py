"""A damaged lake (its mark or a manifest not what governor writes) is named, with what was expected:
one line and exit status 2 from ``import`` and ``query``, never a traceback, and nothing is removed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.db import DatabaseError, reader
from ingest.importer import import_paths
from ingest.lake import LAKE_MARK, MANIFESTS
from ingest.lake_files import LakeError

ROOT = Path(__file__).resolve().parents[2]
SJ = ROOT / "sample_logs" / "san_juan"
MARK_EXPECTED = 'expected a JSON object whose "format" is a whole number (such as {"format": 1}), found '


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lake = tmp_path_factory.mktemp("pristine") / "lake"
    assert import_paths([sorted(SJ.glob("*.json"))[0]], str(lake), lake=True, workers=1).imported == 1
    return lake


def _batch_manifest(lake: Path) -> Path:
    return next(p for p in sorted((lake / MANIFESTS).glob("*.json")) if "derived" not in p.name)


def _mark(text: str) -> Callable[[Path], tuple[Path, str]]:
    def damage(lake: Path) -> tuple[Path, str]:
        (lake / LAKE_MARK).write_text(text)
        return lake / LAKE_MARK, ""
    return damage


def _manifest(change: Callable[[dict], object]) -> Callable[[Path], tuple[Path, str]]:
    def damage(lake: Path) -> tuple[Path, str]:
        path = _batch_manifest(lake)
        path.write_text(json.dumps(change(json.loads(path.read_text()))))
        return path, ""
    return damage


def _truncated(lake: Path) -> tuple[Path, str]:
    path = _batch_manifest(lake)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    return path, ""


DAMAGES: dict[str, tuple[Callable[[Path], tuple[Path, str]], str]] = {
    "mark not json": (_mark("{not json"), "damaged file: expected a JSON object such as "
                                          '{"format": 1, "schema_version": 7}, but it is not JSON ('),
    "mark a list": (_mark("[1,2]"), f"damaged lake mark: {MARK_EXPECTED}[1, 2]"),
    "mark format text": (_mark('{"format":"x"}'), f'damaged lake mark: {MARK_EXPECTED}{{"format": "x"}}'),
    "mark format list": (_mark('{"format":[1]}'), f'damaged lake mark: {MARK_EXPECTED}{{"format": [1]}}'),
    "manifest truncated": (_truncated, "damaged file: expected a batch manifest (a JSON object), but it is not JSON ("),
    "manifest keyless": (_manifest(lambda m: {}), "damaged manifest: expected the key 'batch' holding a text, found null"),
    "manifest a list": (_manifest(lambda m: [m]), "damaged manifest: expected a JSON object, found [{"),
    "manifest files not a list": (_manifest(lambda m: {**m, "files": {"games": "games/x"}}),
                                  "damaged manifest: expected 'files' to map table names to lists of files, found "
                                  '"games": "games/x"'),
    "manifest rows not numbers": (_manifest(lambda m: {**m, "rows": {"games": "many"}}),
                                  'damaged manifest: expected \'rows\' to map tables to whole numbers, found {"games": "many"}'),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_lake_is_named_with_what_was_expected(damage: str, pristine: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(pristine, lake)
    make, expected = DAMAGES[damage]
    path, _ = make(lake)
    before = sorted(p.relative_to(lake) for p in lake.rglob("*") if p.name != "_governor_lake.lock")
    with pytest.raises(LakeError) as err:
        import_paths([SJ], str(lake), lake=True, workers=1)
    assert str(err.value).startswith(f"{path}: {expected}"), str(err.value)
    assert "\n" not in str(err.value)
    with pytest.raises(DatabaseError) as read_err:
        with reader(lake):
            pass
    assert str(read_err.value).startswith(f"{lake}: cannot read the lake: {path}: {expected}"), str(read_err.value)
    assert sorted(p.relative_to(lake) for p in lake.rglob("*") if p.name != "_governor_lake.lock") == before


@pytest.mark.parametrize("damage", ["mark format text", "manifest keyless", "manifest truncated"])
def test_import_and_query_exit_2_with_one_line(damage: str, pristine: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from governor.cli import main

    lake = tmp_path / "lake"
    shutil.copytree(pristine, lake)
    make, expected = DAMAGES[damage]
    path, _ = make(lake)
    for args in (["import", str(SJ), "--lake", str(lake), "--workers", "1"],
                 ["query", "--lake", str(lake), "SELECT count(*) FROM games"]):
        # In this process (a started interpreter costs about a second of CPU): status and lines are checked.
        code = main(args)
        stdout, stderr = capsys.readouterr()
        assert code == 2, (args, stderr)
        assert "Traceback" not in stderr and stdout == ""
        lines = stderr.splitlines()
        assert len(lines) == 1 and f"{path}: {expected}" in lines[0], (args, stderr)
