"""``governor schema``: the log format's JSON Schema composed from the envelope and every game's part,
printed or written to a file that is never anything but a schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governor.cli import main
from replay import registry
from replay.log_schema import schema_text


def test_schema_prints_the_whole_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == schema_text()
    schema = json.loads(out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["game"]["enum"] == list(registry.game_names()) == ["san_juan", "puerto_rico"]
    assert "for each game (San Juan, Puerto Rico) the setup" in schema["description"]
    assert [part["if"]["properties"]["game"]["const"] for part in schema["allOf"]] == ["san_juan", "puerto_rico"]


def test_schema_out_writes_and_rewrites_a_schema_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "log.schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == schema_text()
    assert capsys.readouterr().err == f"wrote the log schema to {out}\n"
    assert main(["schema", "--out", str(out)]) == 0  # a schema written before is written again
    assert out.read_text(encoding="utf-8") == schema_text()


@pytest.mark.parametrize("content", [b"DUCK\x00\x00 a database", b'{"format": "governor-log", "game": "san_juan"}', b""])
def test_schema_out_never_overwrites_another_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  content: bytes) -> None:
    out = tmp_path / "precious"
    out.write_bytes(content)
    assert main(["schema", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"governor schema: --out {out} holds something else than a JSON Schema: "
                                       "an output never overwrites another file\n")
    assert out.read_bytes() == content


def test_schema_out_naming_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"governor schema: --out {tmp_path} is a folder, not a file\n"
