"""Strict reading: what the JSON standard forbids or leaves open (a repeated key, NaN, a lone
surrogate, a huge integer), a loose ``result``, padded names and unused reshuffles are each refused
with their JSON path; ``validate`` and ``import`` agree on every one; control characters in names
never reach an output line raw."""

from __future__ import annotations

import copy
import glob
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from governor.cli import main
from ingest.importer import import_paths
from replay.errors import GovernorError, printable
from replay.log_reader import read_records
from replay.replayer import final_state
from tests.hostile import ROOT, line, sample

BASE = sample()
TEXT = json.dumps(BASE)


def rejection(path: Path) -> str:
    """The message ``validate`` gives the one game of ``path``, without the file and game."""
    (record,) = read_records(path)
    error: GovernorError | None = record.error
    if error is None:
        assert record.log is not None
        try:
            final_state(record.log)
        except GovernorError as err:
            error = err
    assert error is not None, f"{path.name} was accepted"
    prefix = f"{path}, game 1: "
    assert error.message.startswith(prefix), error.message
    return error.message[len(prefix):]


TEXTS: dict[str, tuple[str, str]] = {
    "repeated key": (TEXT[:-1] + ', "moves": "garbage"}', "the key 'moves' appears twice in one object"),
    "repeated key inside a move": (
        TEXT.replace('{"seat": 0, "kind": "role", "role": "builder"}', '{"seat": 0, "kind": "role", "role": "builder", "role": "mayor"}', 1),
        "moves[0]: the key 'role' appears twice in one object",
    ),
    "NaN": (TEXT.replace('"seed": 2026006079', '"seed": NaN'), "meta.seed: NaN is not a JSON number"),
    "Infinity": (TEXT.replace('"seed": 2026006079', '"seed": [1, -Infinity]'), "meta.seed[1]: -Infinity is not a JSON number"),
    "1e999": (TEXT.replace('"seed": 2026006079', '"seed": 1e999'), "meta.seed: 1e999 is not a finite number"),
    "4,300-digit integer": (
        TEXT.replace('"seed": 2026006079', '"seed": ' + "9" * 4300),
        "meta.seed: an integer of 4300 digits is too large (at most 9223372036854775807)",
    ),
    "20-digit integer": (
        TEXT.replace('"seed": 2026006079', '"n": [-9223372036854775809]'),
        "meta.n[0]: an integer of 19 digits is too large (at most 9223372036854775807)",
    ),
    "lone surrogate in a name": (
        TEXT.replace('"name": "Ana"', '"name": "An\\ud800a"'),
        "players[0].name: a lone surrogate in 'An\\ud800a' (not valid Unicode text)",
    ),
    "lone surrogate in meta": (
        TEXT.replace('"generator": "governor', '"generator": "\\udfffgovernor'),
        "meta.generator: a lone surrogate in '\\udfffgovernor simulate (heuristic)' (not valid Unicode text)",
    ),
    "lone surrogate in source_id": (TEXT.replace('"sim-san_juan', '"bga-\\ud83d', 1), "source_id: a lone surrogate in 'bga-\\ud83d-2026-000001' (not valid Unicode text)"),
    "lone surrogate in a card": (
        TEXT.replace('"building": "Aqueduct"', '"building": "Aqueduct\\udc00"', 1),
        "moves[1].building: a lone surrogate in 'Aqueduct\\udc00' (not valid Unicode text)",
    ),
    "lone surrogate in a key": (TEXT.replace('"seed": 2026006079', '"s\\ud800": 1'), "meta.s\\ud800: a lone surrogate in a key (not valid Unicode text)"),
}


@pytest.mark.parametrize("case", list(TEXTS))
def test_strict_json_names_the_path(case: str, tmp_path: Path) -> None:
    text, message = TEXTS[case]
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    assert rejection(path) == message


def test_a_surrogate_pair_is_one_character_and_accepted(tmp_path: Path) -> None:
    path = tmp_path / "emoji.json"
    path.write_text(TEXT.replace('"name": "Ana"', '"name": "Ana \\ud83d\\ude00"'), encoding="utf-8")
    (record,) = read_records(path)
    assert record.error is None and record.log is not None
    assert record.log.players[0] == "Ana \U0001f600"


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(game: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = game
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return change


def _pad_first_card(game: dict[str, Any]) -> None:
    game["moves"][1]["building"] = " Aqueduct "


def _extra_reshuffle(game: dict[str, Any]) -> None:
    game["setup"]["reshuffles"].append(["Palace", "Palace", "Hero"])


CHANGES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "winners not a list": (_set("result.winners", 0), "result.winners: expected a list of seat numbers, got int"),
    "winners of mixed types": (_set("result.winners", [0, "a"]), "result.winners[1]: expected a seat number, got str"),
    "winners [false]": (_set("result.winners", [False]), "result.winners[0]: expected a seat number, got bool"),
    "a winner twice": (_set("result.winners", [1, 1]), "result.winners: a seat is named twice"),
    "scores as floats": (_set("result.scores", [20.0, 33, 30]), "result.scores[0]: expected an integer, got float"),
    "unknown result field": (_set("result.margin", 3), "result.margin: unknown field 'margin' (known: scores, winners)"),
    "padded card name": (_pad_first_card, "moves[1].building: card name ' Aqueduct ' has spaces around it (write 'Aqueduct')"),
    "unused reshuffle": (
        _extra_reshuffle, "setup.reshuffles[2]: the game reshuffles 2 time(s) but the log records 3 reshuffle order(s)",
    ),
    "newline in a name": (
        _set("players.0.name", "Ana\nbad: forged.json, game 1: fake"),
        "players[0].name: a player name may not hold control characters: 'Ana\\nbad: forged.json, game 1: fake'",
    ),
    "escape code in a name": (
        _set("players.1.name", "\x1b[2J\x1b[31mBruno"),
        "players[1].name: a player name may not hold control characters: '\\x1b[2J\\x1b[31mBruno'",
    ),
    "carriage return in a source id": (_set("source_id", "a\rb"), "source_id: a source id may not hold control characters: 'a\\rb'"),
}


@pytest.mark.parametrize("case", list(CHANGES))
def test_loose_fields_are_refused(case: str, tmp_path: Path) -> None:
    change, message = CHANGES[case]
    game = copy.deepcopy(BASE)
    change(game)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(game), encoding="utf-8")
    assert rejection(path) == message


def test_puerto_rico_refuses_padded_names_and_unused_reshuffles(tmp_path: Path) -> None:
    base = json.loads(Path(sorted(glob.glob(str(ROOT / "sample_logs" / "puerto_rico" / "*.json")))[0]).read_text())
    padded = copy.deepcopy(base)
    padded["setup"]["plantations"][0] = " " + padded["setup"]["plantations"][0]
    path = tmp_path / "padded.json"
    path.write_text(json.dumps(padded))
    assert rejection(path).startswith("setup.plantations[0]: unknown plantation ' ")
    extra = copy.deepcopy(base)
    extra["setup"]["reshuffles"] = extra["setup"].get("reshuffles", []) + [["corn"]]
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(extra))
    used = len(base["setup"].get("reshuffles", []))
    assert rejection(path) == (
        f"setup.reshuffles[{used}]: the game reshuffles {used} time(s) but the log records {used + 1} reshuffle order(s)"
    )


def test_validate_and_import_agree_and_the_good_game_of_a_jsonl_is_stored(tmp_path: Path) -> None:
    """A .jsonl of one good game and one game per crafted input: the good one is stored, every other
    one is one rejection, with the very message validate prints."""
    good = line(sample("san_juan-2p-seed2026-0000.json"))
    bad_texts = [text for text, _ in TEXTS.values()]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"".join(t.encode() + b"\n" for t in bad_texts[:5]) + good + b"".join(t.encode() + b"\n" for t in bad_texts[5:]))
    messages = [r.error.message for r in read_records(path) if r.error is not None]
    assert len(messages) == len(bad_texts)
    summary = import_paths([path], tmp_path / "m.duckdb", workers=1)
    assert (summary.imported, summary.rejected) == (1, len(bad_texts))
    assert summary.messages == messages
    with duckdb.connect(str(tmp_path / "m.duckdb"), read_only=True) as con:
        assert con.execute("SELECT file_index FROM games").fetchall() == [(5,)]


def test_no_output_line_can_be_forged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Names, card names and file names with newlines, CRs and escape codes: every line printed is
    one line per game, and no control character reaches the output."""
    folder = tmp_path / "logs"
    folder.mkdir()
    forged = copy.deepcopy(BASE)
    forged["players"][0]["name"] = "Ana\nbad: forged.json, game 1: fake"
    forged["moves"][0]["seat"] = 1
    (folder / "name.json").write_text(json.dumps(forged))
    card = copy.deepcopy(BASE)
    card["moves"][1]["building"] = "Aqueduct\r\x1b[32mok: all good"
    (folder / "card.json").write_text(json.dumps(card))
    (folder / "file\nbad: forged.json, game 1: fake.json").write_text("{")
    (folder / "\x1b]0;title\x07.json").write_text(json.dumps(sample("san_juan-2p-seed2026-0000.json")))
    assert main(["validate", "-v", str(folder)]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 4 and out.count("\n") == 4
    assert sorted(line.split(":", 1)[0] for line in lines) == ["bad", "bad", "bad", "ok"]
    assert lines[0] == f"ok: {folder}/\\x1b]0;title\\x07.json, game 1"
    assert f"bad: {folder}/card.json, game 1: moves[1].building: unknown card 'Aqueduct\\r\\x1b[32mok: all good'" in lines[1]
    assert lines[2] == f"bad: {folder}/file\\nbad: forged.json, game 1: fake.json, game 1: malformed JSON at line 1 column 2: Expecting property name enclosed in double quotes"
    assert all(printable(text) == text for text in out.splitlines() + err.splitlines())
