"""``governor replay`` shows what the rules did by themselves after the last move, in text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governor.cli import main as governor_main

GAME = Path(__file__).resolve().parents[2] / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0006.json"


def test_replay_text_lists_the_automatic_events_under_the_last_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert governor_main(["replay", str(GAME), "--step", "52"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "Last move (52/150): Ana chooses the captain (+1 doubloon)\n"
        "  then: Ana loads 1 indigo on the 4-ship, the only possible load: 2 VP (1 for the captain's privilege)\n"
        "  then: Bruno loads 1 sugar on the 6-ship, the only possible load: 1 VP\n"
    )
    assert governor_main(["replay", str(GAME), "--step", "51"]) == 0
    assert capsys.readouterr().out.endswith("Last move (51/150): Bruno builds Sugar mill for 4 doubloons\n")


def test_replay_json_has_the_events_of_the_last_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert governor_main(["replay", str(GAME), "--step", "54", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["last_move"] == "Bruno chooses the mayor"
    assert view["last_move_events"] == [
        "Bruno takes 1 colonist from the supply (mayor's privilege)",
        "The colonist ship's 4 colonists go to Bruno 2, Carla 1 and Ana 1",
    ]
    assert governor_main(["replay", str(GAME), "--step", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["last_move_events"] == []
