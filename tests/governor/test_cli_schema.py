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


def test_schema_out_on_a_full_disk_keeps_the_old_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema is written to a new file renamed over the old one: a write that fails midway (a full
    disk) leaves the schema written before, and nothing else, in the folder."""
    out = tmp_path / "log.schema.json"
    old = '{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "an older one"}'
    out.write_text(old, encoding="utf-8")
    import builtins
    import errno

    real_open = builtins.open

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return Full(handle) if "w" in mode and str(file).startswith(str(tmp_path)) else handle

    monkeypatch.setattr(builtins, "open", full_open)
    assert main(["schema", "--out", str(out)]) == 2
    monkeypatch.undo()
    assert capsys.readouterr().err == f"governor schema: --out {out}: cannot write: No space left on device\n"
    assert out.read_text(encoding="utf-8") == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.schema.json"]
