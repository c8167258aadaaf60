"""Golden files: a few sample games replayed move by move as plain text, committed and diffed by a test.

Like OpenSpiel's playthrough files, a golden file pins down everything a replay shows (the move's text
form, the move in words, the scores after it, the final result), so that any change in the rules or in
the wording shows up as a readable diff. ``governor golden`` regenerates them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from replay.errors import GovernorError
from replay.log_reader import read_records
from replay.logfile import GameLog, LogRecord
from replay.outputs import write_bytes
from replay.registry import all_engines
from replay.replayer import replay

#: How many games of each (game, player count) are kept as golden files.
GAMES_PER_COUNT = 2
#: The first line of every golden file; ``write_golden`` only ever deletes files that start with it.
HEADER = "# governor golden replay"


def _scores(totals: Sequence[int]) -> str:
    return " ".join(str(t) for t in totals)


def render_golden(log: GameLog, source: str | None = None) -> str:
    """One game as golden text: a header, one line per move (number, seat, text form, words, scores
    after it), then the final scores with their parts and the winners.

    ``source`` names the log in the header (default: ``log.file``). Raises what ``replay`` raises
    (``LogFormatError``, ``IllegalMoveError``, ``ResultMismatchError``) for a bad log."""
    game = replay(log)
    engine = game.engine
    names = log.players
    where = source if source is not None else (log.file or "-")
    if log.index:
        where += f" (game {log.index + 1})"
    lines = [
        HEADER,
        f"# log: {where}",
        f"# game: {log.game}, engine {engine.version}, id {log.game_id}",
        "# players: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)),
        f"# options: {log.options or '{}'}",
        f"# moves: {len(game.steps)}",
        "",
        f"move seat | move | in words | scores ({' '.join(names)})",
        f"   0    - | start | - | {_scores([s.total for s in engine.scores(game.initial)])}",
    ]
    for step in game.steps:
        seat = "-" if step.seat is None else str(step.seat)
        totals = [s.total for s in engine.scores(step.state)]
        lines.append(f"{step.number:4d} {seat:>4} | {step.move.text()} | {step.words} | {_scores(totals)}")
    lines.append("")
    lines.append("final scores:")
    for index, score in enumerate(engine.scores(game.final)):
        parts = ", ".join(f"{k} {v}" for k, v in score.parts.items() if v)
        lines.append(f"  {index} {names[index]}: {score.total} ({parts or 'nothing'}; tie-break {score.tiebreak})")
    winners = engine.winners(game.final)
    lines.append("winners: " + ", ".join(f"{seat} {names[seat]}" for seat in winners))
    return "\n".join(lines) + "\n"


def golden_name(record: LogRecord) -> str:
    """The golden file name of a game: the log file's name without its suffixes (plus the game number
    for a ``.jsonl`` file), then ``.txt``."""
    name = Path(record.file).name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    if Path(record.file).name.endswith((".jsonl", ".jsonl.gz")):
        name += f"-game{record.index + 1:03d}"
    return name + ".txt"


def select_games(files: Iterable[Path], problems: list[str] | None = None) -> list[LogRecord]:
    """The sample games kept as golden files: the first ``GAMES_PER_COUNT`` games of each game and
    player count, in the order of ``files`` (the sample logs, found by the caller in sorted order:
    ``ingest.sources.expand_paths``). Games of an engine that is not installed yet are skipped.

    Raises ``LogFormatError`` for a sample log that cannot be read, unless ``problems`` is given: the
    error's one-line message is then added to it and the other logs are still read."""
    engines = all_engines()
    chosen: list[LogRecord] = []
    counts: dict[tuple[str, int], int] = {}
    for file in files:
        for record in read_records(file):
            if record.error is not None:
                if problems is None:
                    raise record.error
                problems.append(record.error.message)
                continue
            assert record.log is not None
            if record.log.game not in engines:
                continue
            key = (record.log.game, len(record.log.players))
            if counts.get(key, 0) < GAMES_PER_COUNT:
                counts[key] = counts.get(key, 0) + 1
                chosen.append(record)
    return chosen


def _is_golden(path: Path) -> bool:
    """Whether ``path`` is a golden file this command wrote: a regular file (never a link, a pipe or a
    folder, whatever it names) whose first line is ``HEADER``. Anything else is never opened (opening a
    named pipe would release a writer waiting at it)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        # Checked again on what was opened: the name may have changed in between.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, len(HEADER)) == HEADER.encode()
    finally:
        os.close(fd)


def write_golden(logs_dir: Path, files: Sequence[Path], out_dir: Path, problems: list[str] | None = None) -> list[Path]:
    """Write a golden file for each game of ``files`` (the logs found in ``logs_dir``, which names them
    in the files' headers) chosen by ``select_games`` into ``out_dir`` and delete golden files there
    that are no longer produced (regular files starting with ``HEADER`` only). Each file is replaced
    only once complete, by renaming a file of a random name made beside it; a link of its name is
    replaced, never written through. Returns the files written, sorted.

    Raises ``LogFormatError``, ``IllegalMoveError`` or ``ResultMismatchError`` when a sample log is
    bad (no file is deleted then). With ``problems``, a bad log is
    instead one line added to it (escaped: a log's text never reaches a terminal raw), the other
    games' files are written, and no file is deleted."""
    logs_dir = Path(logs_dir)
    out_dir = Path(out_dir)
    rendered: dict[str, str] = {}
    bad = 0 if problems is None else len(problems)
    for record in select_games(files, problems):
        assert record.log is not None
        source = Path(record.file).relative_to(logs_dir).as_posix()
        name = golden_name(record)
        if name in rendered:
            raise ValueError(f"two sample games give the golden file name {name}")
        try:
            rendered[name] = render_golden(record.log, source=source)
        except GovernorError as err:
            if problems is None:
                raise
            problems.append(err.message)
    out_dir.mkdir(parents=True, exist_ok=True)
    # A bad log's golden file is not stale: it is kept until the log is mended.
    if problems is None or len(problems) == bad:
        for old in out_dir.glob("*.txt"):
            if old.name not in rendered and _is_golden(old):
                old.unlink()
    written = []
    for name, text in sorted(rendered.items()):
        path = out_dir / name
        write_bytes(path, text.encode("utf-8"), follow=False)
        written.append(path)
    return written
