"""Fuzzing: a seeded mutator makes a few thousand broken copies of sample games (bytes flipped, cut,
repeated or replaced by hostile tokens; JSON values swapped for hostile ones; keys dropped, added or
repeated), writes them with good games between them, and checks the whole pipeline: ``validate`` and
``import`` never crash (no traceback, no ``internal`` rejection, exit status 1), agree on every
rejection, store every good game, print no control character, and stay in bounded memory."""

from __future__ import annotations

import copy
import gzip
import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest

from governor.cli import main
from replay.errors import printable
from replay.logfile import content_id
from tests.hostile import governor, sample

#: How many mutants; the seed makes every run the same.
MUTANTS = 2400
SEED = 2026
FILES = 6
GOOD_EVERY = 40

BASES = [
    sample("san_juan-2p-seed2026-0000.json"),
    sample("san_juan-3p-seed2026-0001.json"),
    sample("san_juan-4p-seed2026-0002.json"),
    sample("puerto_rico-3p-seed2026-0000.json"),
]
TOKENS = [
    b"NaN", b"Infinity", b"-Infinity", b"1e999", b"\\ud800", b"\\udfff", b'"', b"{", b"}", b"[", b"]", b",", b":",
    b"9" * 30, b"9" * 5000, b"-0", b"\x00", b"\xff", b"\xc3", b"\n", b"\r", b"\x1b[31m", b"null", b"true",
    b'"moves": ', b'"result": {"winners": 0}, ', b"\xe2\x80\xae", b" " * 64,
]
VALUES: list[Any] = [
    None, True, False, 0, -1, 7, 2**63, -(2**63) - 1, 1.5, float("1e300"), "", " ", " Palace ", "Palace",
    "indigo", "builder", "a\nb", "\x1b[2J", "\u202e", "x" * 2000, [], {}, [0, "a"], [False], {"k": 1}, ["Hero", "Hero"],
]


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*path, i))
    return found


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def json_mutant(rng: random.Random, base: dict[str, Any], paths: list[tuple[Any, ...]]) -> bytes:
    """A JSON-level change: a value replaced, a key dropped or added, a move repeated or moved."""
    game = copy.deepcopy(base)
    how = rng.randrange(5)
    path = rng.choice(paths[1:])
    parent, key = _at(game, path[:-1]), path[-1]
    if how == 0:
        parent[key] = copy.deepcopy(rng.choice(VALUES))
    elif how == 1:
        del parent[key]
    elif how == 2 and isinstance(parent, dict):
        parent[rng.choice(["extra", "seat", "kind", "pay", "reshuffles", "margin"])] = copy.deepcopy(rng.choice(VALUES))
    elif how == 3:
        moves = game["moves"]
        moves.insert(rng.randrange(len(moves)), copy.deepcopy(rng.choice(moves)))
    else:
        moves = game["moves"]
        i, j = rng.randrange(len(moves)), rng.randrange(len(moves))
        moves[i], moves[j] = moves[j], moves[i]
    text = json.dumps(game, ensure_ascii=False, allow_nan=True)
    if rng.random() < 0.2:  # the same key twice
        text = text[:-1] + ', "moves": []}'
    return text.encode("utf-8", "surrogatepass")


def byte_mutant(rng: random.Random, data: bytes) -> bytes:
    """A byte-level change: flipped, cut, repeated, or a hostile token put in."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(out))
        how = rng.randrange(4)
        if how == 0:
            out[at] ^= 1 << rng.randrange(8)
        elif how == 1:
            del out[at:at + rng.randint(1, 40)]
        elif how == 2:
            out[at:at] = out[at:at + rng.randint(1, 40)]
        else:
            out[at:at] = rng.choice(TOKENS)
    return bytes(out)


def write_files(folder: Path) -> set[str]:
    """Write the mutants and good games; returns the ids of the good games."""
    rng = random.Random(SEED)
    texts = [json.dumps(b).encode() for b in BASES]
    paths = [_paths(b) for b in BASES]
    good_ids = {content_id(b["game"], [p["name"] for p in b["players"]], b.get("options", {}), b["setup"], b["moves"]) for b in BASES}
    per_file = MUTANTS // FILES
    for n in range(FILES):
        lines: list[bytes] = []
        for k in range(per_file):
            if k % GOOD_EVERY == 0:
                lines.append(texts[(n + k) % len(texts)])
            which = rng.randrange(len(BASES))
            lines.append(json_mutant(rng, BASES[which], paths[which]) if rng.random() < 0.35 else byte_mutant(rng, texts[which]))
        data = b"".join(line.replace(b"\n", b" ") + b"\n" if rng.random() < 0.9 else line + b"\n" for line in lines)
        name = folder / f"mutants-{n}.jsonl"
        if n % 2:
            name.with_suffix(".jsonl.gz").write_bytes(gzip.compress(data, mtime=0))
        else:
            name.write_bytes(data)
    return good_ids


@pytest.mark.slow
def test_fuzzed_logs_never_crash_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "fuzz"
    folder.mkdir()
    good_ids = write_files(folder)
    db = tmp_path / "fuzz.duckdb"
    run = governor(["import", str(folder), "--db", str(db), "--workers", "1"], tmp_path)
    assert run.returncode == 1, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    assert run.peak_mib < 600, run.peak_mib
    with duckdb.connect(str(db), read_only=True) as con:
        stored = {r[0] for r in con.execute("SELECT game_id FROM games").fetchall()}
        kinds = dict(con.execute("SELECT kind, count(*) FROM rejections GROUP BY kind").fetchall())
        rejected = {r[0]: r[1] for r in con.execute("SELECT message, kind FROM rejections").fetchall()}
    assert good_ids <= stored
    assert "internal" not in kinds, kinds
    assert {"format", "illegal"} <= set(kinds)  # broken files and well-formed games that break rules
    assert sum(kinds.values()) > MUTANTS * 0.9
    # validate agrees: every game it calls bad is rejected by the import with the same message; the
    # import rejects more only for copies of a stored game with another source id.
    assert main(["validate", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    bad = {line.removeprefix("bad: ") for line in out.splitlines()}
    assert len(bad) == len(out.splitlines())
    assert bad <= set(rejected)
    assert {rejected[m] for m in set(rejected) - bad} <= {"duplicate"}
    for text in (out + err + run.stderr).splitlines():
        assert printable(text) == text
