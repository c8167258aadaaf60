"""Golden files: replaying the sample games must give exactly the committed text in tests/replay/golden.

After an intended change (a rule fix, new wording), refresh them with
``governor golden --logs sample_logs --out tests/replay/golden`` and review the diff before committing.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from replay.golden import GAMES_PER_COUNT, HEADER, render_golden, select_games, write_golden
from replay.logfile import GameLog, read_records

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_logs"
GOLDEN = Path(__file__).resolve().parent / "golden"
REFRESH = "run `governor golden --logs sample_logs --out tests/replay/golden` to refresh, and review the diff"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("golden")
    return {p.name: p.read_text(encoding="utf-8") for p in write_golden(LOGS, out)}


def committed() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(GOLDEN.glob("*.txt"))}


def test_same_golden_files(regenerated: dict[str, str]) -> None:
    missing = sorted(set(regenerated) - set(committed()))
    stale = sorted(set(committed()) - set(regenerated))
    assert not missing and not stale, f"golden files not committed: {missing}; no longer produced: {stale}; {REFRESH}"


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_golden_file_unchanged(name: str, regenerated: dict[str, str]) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    actual = regenerated.get(name)
    assert actual is not None, f"{name} is no longer produced from {LOGS}; {REFRESH}"
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    fromfile=f"tests/replay/golden/{name} (committed)",
                    tofile=f"{name} (replayed now)",
                    n=2,
                )
            )[:80]
        )
        pytest.fail(f"replaying the sample game no longer gives tests/replay/golden/{name}; {REFRESH}\n{diff}", pytrace=False)


def test_golden_covers_every_player_count() -> None:
    chosen = select_games(LOGS)
    counts: dict[tuple[str, int], int] = {}
    for record in chosen:
        assert record.log is not None
        key = (record.log.game, len(record.log.players))
        counts[key] = counts.get(key, 0) + 1
    assert {n for game, n in counts if game == "san_juan"} == {2, 3, 4}
    assert all(c == GAMES_PER_COUNT for c in counts.values()), counts


def test_puerto_rico_included_when_present(regenerated: dict[str, str]) -> None:
    assert any("puerto_rico" in text.splitlines()[2] for text in regenerated.values()), (
        "sample_logs/puerto_rico exists but no Puerto Rico golden file was produced (is the engine registered?)"
    )


def test_golden_text_shape() -> None:
    path = sorted((LOGS / "san_juan").glob("*.json"))[0]
    record = next(read_records(path))
    log = record.log
    assert isinstance(log, GameLog)
    text = render_golden(log, source="x.json")
    lines = text.splitlines()
    assert lines[0] == HEADER
    move_lines = [line for line in lines if line[:4].strip().isdigit() and " | " in line]
    assert len(move_lines) == len(log.moves) + 1  # the start line and one line per move
    last = move_lines[-1].split(" | ")
    assert last[-1].split() == [str(s) for s in log.result["scores"]]  # type: ignore[index]
    assert lines[-1].startswith("winners: ")


def test_write_golden_removes_only_stale_golden_files(tmp_path: Path) -> None:
    (tmp_path / "old-game.txt").write_text(HEADER + "\nstale\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a golden file\n", encoding="utf-8")
    written = write_golden(LOGS, tmp_path)
    assert not (tmp_path / "old-game.txt").exists()
    assert (tmp_path / "notes.txt").exists()
    assert {p.name for p in written} == {p.name for p in tmp_path.glob("*.txt")} - {"notes.txt"}
