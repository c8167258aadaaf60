"""``replay`` and ``analyse`` parse only the game asked for, and ``replay`` folds to the step it shows
instead of keeping every state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import replay.log_reader as log_reader
from governor.cli import main
from governor.commands.replay import fold_to
from replay.log_reader import read_game, read_records
from replay.registry import engine_for
from replay.replayer import replay
from tests.hostile import PR, SJ, line, sample


def test_only_the_game_asked_for_is_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    many = tmp_path / "many.jsonl"
    # Game 2 is the one asked for; the lines after it are not even JSON, and are never read.
    many.write_bytes(line(sample()) + line(sample("san_juan-2p-seed2026-0000.json")) + b"{not json\n" * 1000)
    parsed: list[int] = []
    real = log_reader._record

    def counted(file: str, index: int, data: bytes) -> log_reader.LogRecord:
        parsed.append(index)
        return real(file, index, data)

    monkeypatch.setattr(log_reader, "_record", counted)
    assert main(["replay", str(many), "--game", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] > 0
    assert parsed == [1]
    record, number = read_game(many, 2)
    assert number == 2 and record is not None and record.log is not None and len(record.log.players) == 2
    assert read_game(many, 5000) == (None, 1002)
    assert main(["replay", str(many), "--game", "5000"]) == 2
    assert capsys.readouterr().err == f"governor replay: {many} holds 1002 game(s); --game 5000 is out of range\n"


@pytest.mark.parametrize("path", [SJ / "san_juan-3p-seed2026-0001.json", PR / "puerto_rico-4p-seed2026-0001.json"])
def test_the_fold_gives_the_states_a_full_replay_gives(path: Path) -> None:
    (record,) = read_records(path)
    assert record.log is not None
    log = record.log
    game = replay(log)
    engine = engine_for(log.game)
    total = len(game.steps)

    def view(state: object) -> object:
        return None if state is None else engine.to_view(state, log.players)

    for step in (None, 0, 1, 7, total, -1, -2, -total - 1):
        count, at, before, state, move, final = fold_to(log, step)
        expected = total if step is None else (step if step >= 0 else total + 1 + step)
        assert (count, at) == (total, expected)
        assert view(state) == view(game.state_at(expected))
        assert view(before) == (view(game.state_at(expected - 1)) if expected else None)
        assert move == (game.steps[expected - 1].move if expected else None)
        assert view(final) == view(game.final)
    for step in (total + 1, -total - 2):
        assert fold_to(log, step)[1] == -1


def test_replay_out_of_range_steps(capsys: pytest.CaptureFixture[str]) -> None:
    path = SJ / "san_juan-2p-seed2026-0000.json"
    (record,) = read_records(path)
    assert record.log is not None
    total = len(replay(record.log).steps)
    assert main(["replay", str(path), "--step", str(total + 1)]) == 2
    assert capsys.readouterr().err == f"governor replay: --step must be from 0 to {total}, not {total + 1}\n"
    assert main(["replay", str(path), "--step", str(-total - 2)]) == 2
    assert capsys.readouterr().err == f"governor replay: --step must be from 0 to {total}, not {-total - 2}\n"


def test_ctrl_c_during_a_replay_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import governor.commands.replay as replay_command
    from replay import exits

    def interrupted(log: object, step: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(replay_command, "fold_to", interrupted)
    assert main(["replay", str(SJ / "san_juan-2p-seed2026-0000.json")]) == 130
    assert capsys.readouterr() == ("", "governor replay: interrupted\n")

    def terminated(log: object, step: object) -> object:
        raise exits.Terminated

    monkeypatch.setattr(replay_command, "fold_to", terminated)
    assert main(["replay", str(SJ / "san_juan-2p-seed2026-0000.json")]) == 143
    assert capsys.readouterr().err == "governor replay: terminated\n"
