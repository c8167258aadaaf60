"""Player names: one Unicode spelling (NFC), nothing invisible, and look-alikes told apart when shown."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from governor.cli import main
from replay.log_reader import read_records
from replay.names import check_player_name, render_name, scripts
from tests.hostile import sample


def _with_name(tmp_path: Path, file: str, name: str) -> Path:
    game = sample()
    game["players"][1] = {"name": name}
    path = tmp_path / file
    path.write_text(json.dumps(game, ensure_ascii=True))
    return path


def test_nfc_and_nfd_spellings_are_one_player(tmp_path: Path) -> None:
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    assert composed != decomposed and unicodedata.normalize("NFC", decomposed) == composed
    (a,) = read_records(_with_name(tmp_path, "a.json", composed))
    (b,) = read_records(_with_name(tmp_path, "b.json", decomposed))
    assert a.log is not None and b.log is not None
    assert a.log.players[1] == b.log.players[1] == composed
    assert a.log.game_id == b.log.game_id


@pytest.mark.parametrize(("name", "message"), [
    ("\u200b", "a player name may not be empty: '\\u200b' shows only invisible characters"),
    ("\u2800", "a player name may not be empty: '\\u2800' shows only invisible characters"),
    ("\u3164\u3164", "a player name may not be empty: '\\u3164\\u3164' shows only invisible characters"),
    ("\u200b \ufeff", "a player name may not be empty: '\\u200b \\ufeff' shows only invisible characters"),
    ("   ", "a player name may not be empty"),
    ("Bruno\u200b", "a player name may not hold invisible characters: 'Bruno\\u200b'"),
    ("Br\u2060uno", "a player name may not hold invisible characters: 'Br\\u2060uno'"),
    ("Bruno\u00ad", "a player name may not hold invisible characters: 'Bruno\\u00ad'"),
])
def test_invisible_names_are_refused_like_blank_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    path = _with_name(tmp_path, "bad.json", name)
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out == f"bad: {path}, game 1: players[1].name: {message}\n"


def test_names_that_are_fine() -> None:
    for name in ("Ana", "Jos\u00e9", "\u0410\u043d\u043d\u0430", "\u674e\u96f7", "Ana Maria", "\U0001f469\u200d\U0001f4bb Ann",
                 "\u0410na"):
        assert check_player_name(name) == name


def test_render_name_tells_look_alikes_apart() -> None:
    # Latin "Ana" and "Ana" with a Cyrillic capital A look the same; rendered, they do not.
    assert render_name("Ana") == "Ana"
    assert render_name("\u0410na") == "\\u0410na"
    assert scripts("\u0410na") == ["LATIN", "CYRILLIC"]
    # One script, accents or not, stays as it is.
    assert render_name("Jos\u00e9") == "Jos\u00e9"
    assert render_name("\u0410\u043d\u043d\u0430") == "\u0410\u043d\u043d\u0430"
    # Invisible characters and control characters are escapes.
    assert render_name("Bruno\u200b") == "Bruno\\u200b"
    assert render_name("\u3164") == "\\u3164"
    assert render_name("a\x1b[31mb") == "a\\x1b[31mb"
    assert render_name("\U0001f469\u200d\U0001f4bb") == "\U0001f469\u200d\U0001f4bb"
