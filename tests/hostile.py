"""Building hostile inputs cheaply, and running ``governor`` as a child whose peak memory is measured.

A gzip file may hold many members, each decompressed in turn: one member of 1 MiB of spaces, written
2,048 times, is a 2 MB file that expands to 2 GiB, made in milliseconds.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SJ = ROOT / "sample_logs" / "san_juan"
PR = ROOT / "sample_logs" / "puerto_rico"
MIB = 1024 * 1024


def sample(name: str = "san_juan-3p-seed2026-0001.json") -> dict[str, Any]:
    """A sample game as JSON (San Juan unless the name says Puerto Rico)."""
    folder = PR if name.startswith("puerto_rico") else SJ
    return json.loads((folder / name).read_text(encoding="utf-8"))


def line(game: dict[str, Any]) -> bytes:
    """One game as a ``.jsonl`` line."""
    return json.dumps(game, ensure_ascii=False).encode("utf-8") + b"\n"


def gzip_repeated(path: Path, pieces: Sequence[tuple[bytes, int]]) -> Path:
    """Write a multi-member gzip file: each ``(data, times)`` compressed once, written ``times`` times."""
    with open(path, "wb") as out:
        for data, times in pieces:
            member = gzip.compress(data, mtime=0)
            for _ in range(times):
                out.write(member)
    return path


@dataclass
class Run:
    """A finished ``governor`` child: exit status, output and peak memory (MiB)."""

    returncode: int
    stdout: str
    stderr: str
    peak_mib: float


#: Runs ``governor`` and then writes the process's own peak resident memory (VmHWM, in kB) to the file
#: named first: a child's rusage would also count the memory of the pytest process it was forked from.
_MEASURED = (
    "import sys\n"
    "from governor.cli import main\n"
    "report, *args = sys.argv[1:]\n"
    "try:\n"
    "    status = main(args)\n"
    "finally:\n"
    "    peak = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1]\n"
    "    open(report, 'w').write(peak)\n"
    "sys.exit(status)\n"
)


def governor(args: Sequence[str], tmp: Path, timeout: float = 300) -> Run:
    """Run ``governor ARGS`` in a child process and measure its own peak resident memory (killed after
    ``timeout`` seconds: a command that blocks fails the test instead of hanging it)."""
    out, err, peak = tmp / "stdout.txt", tmp / "stderr.txt", tmp / "peak.txt"
    with open(out, "wb") as o, open(err, "wb") as e:
        child = subprocess.run(
            [sys.executable, "-c", _MEASURED, str(peak), *args], stdout=o, stderr=e, cwd=ROOT, timeout=timeout,
        )
    return Run(child.returncode, out.read_text(errors="replace"), err.read_text(errors="replace"), int(peak.read_text()) / 1024)


def as_nobody(argv: list[str], tmp: Path) -> tuple[int, str, str]:
    """Run ``governor.cli.main(argv)`` in a forked child as an unprivileged user (root reads every
    folder whatever its mode, so a test of an unreadable folder must drop root). Returns the exit
    status, stdout and stderr. Everything the command loads is loaded before the fork: the user
    ``nobody`` cannot read the interpreter's own files under /root."""
    from governor.cli import build_parser, main

    build_parser()
    # Load what validate, import and query load lazily, by running each once as root.
    sample = str(SJ / "san_juan-2p-seed2026-0000.json")
    warm = tmp / "warm-up.duckdb"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["validate", sample])
        main(["import", sample, "--db", str(warm), "--workers", "1", "--progress", "never"])
        main(["query", "SELECT count(*) FROM games", "--db", str(warm)])
    warm.unlink()
    out, err = tmp / "nobody.out", tmp / "nobody.err"
    with open(out, "w") as o, open(err, "w") as e:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 99
            try:
                sys.stdout, sys.stderr = o, e
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                code = main(argv)
            except BaseException:
                traceback.print_exc()
            finally:
                o.flush()
                e.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.read_text(), err.read_text()
