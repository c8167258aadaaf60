"""Golden files: replaying the sample games must give exactly the committed text in tests/replay/golden.

After an intended change (a rule fix, new wording), refresh them with
``governor golden --logs sample_logs --out tests/replay/golden`` and review the diff before committing.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from ingest.sources import expand_paths
from replay.golden import GAMES_PER_COUNT, HEADER, render_golden, select_games, write_golden
from replay.log_reader import read_records
from replay.logfile import GameLog

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_logs"
GOLDEN = Path(__file__).resolve().parent / "golden"
REFRESH = "run `governor golden --logs sample_logs --out tests/replay/golden` to refresh, and review the diff"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("golden")
    return {p.name: p.read_text(encoding="utf-8") for p in write_golden(LOGS, expand_paths([LOGS]), out)}


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
    chosen = select_games(expand_paths([LOGS]))
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
    written = write_golden(LOGS, expand_paths([LOGS]), tmp_path)
    assert not (tmp_path / "old-game.txt").exists()
    assert (tmp_path / "notes.txt").exists()
    assert {p.name for p in written} == {p.name for p in tmp_path.glob("*.txt")} - {"notes.txt"}


def _one_log(tmp_path: Path) -> tuple[Path, str]:
    """A logs folder of one sample game, and the name of its golden file."""
    logs = tmp_path / "logs"
    logs.mkdir()
    source = sorted((LOGS / "san_juan").glob("*.json"))[0]
    (logs / source.name).write_bytes(source.read_bytes())
    return logs, source.name.removesuffix(".json") + ".txt"


def test_write_golden_never_writes_through_a_link_nor_removes_one(tmp_path: Path) -> None:
    logs, name = _one_log(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text(HEADER + "\nsomeone's golden file, elsewhere\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(victim)
    (out / "linked.txt").symlink_to(elsewhere)
    assert [p.name for p in write_golden(logs, expand_paths([logs]), out)] == [name]
    assert victim.read_text() == "precious\n"
    assert not (out / name).is_symlink() and (out / name).read_text(encoding="utf-8").startswith(HEADER)
    # A link is not a golden file this command wrote: neither it nor what it names is removed.
    assert (out / "linked.txt").is_symlink() and elsewhere.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([name, "linked.txt"])


def test_write_golden_never_opens_a_pipe_it_meets(tmp_path: Path) -> None:
    """A named pipe ending in .txt is not read to see whether it is a golden file (which waited for a
    writer forever) nor removed, whatever it would give."""
    import os
    import threading

    logs, name = _one_log(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    pipe = out / "pipe.txt"
    os.mkfifo(pipe)

    opened = threading.Event()

    def feed() -> None:
        # Opening waits for a reader: a golden file's header is there for whoever opens the pipe.
        try:
            with open(pipe, "w", encoding="utf-8") as fh:
                opened.set()
                fh.write(HEADER + "\n")
        except BrokenPipeError:  # the reader went away without reading: nothing to give it
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    written = write_golden(logs, expand_paths([logs]), out)
    # Nothing opened the pipe: the feeder still waits for a reader (opening it, even without reading,
    # released the feeder, as a writer waiting at a pipe in a user's folder would be).
    assert not opened.wait(0.5)
    # Release the feeder if nothing read the pipe (a reader of the test's own, not waiting for data).
    try:
        fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        fd = None
    feeder.join()
    if fd is not None:
        os.close(fd)
    assert [p.name for p in written] == [name]
    assert sorted(p.name for p in out.iterdir()) == sorted([name, "pipe.txt"])
