"""The bot that plays the rollouts: the game's declared one (San Juan's expert, Puerto Rico's heuristic
bot) unless ``--rollout-bot`` asks for another; ``--rollout-bot heuristic`` gives exactly the output of the analysis before the choice
existed (goldens made then), and the JSON lines and the stored rows say which bot rolled out."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from analysis.decisions import Options, analyse, rollout_kind
from analysis.store import store
from ingest.db import writer
from ingest.schema import SCHEMA_VERSION
from replay.log_reader import read_records
from replay.logfile import GameLog

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"
PR_LOG = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"

#: Each golden with the command that made it, before the rollout bot was a choice (when every rollout
#: was played by the heuristic bots): ``governor analyse LOG <args> --workers 1 --json``. Sampling was
#: fixed then (every candidate gets --rollouts), which ``--sampling fixed`` keeps.
GOLDENS = [
    (SJ_LOG, ["--steps", "1:12", "--rollouts", "8", "--seed", "3", "--sampling", "fixed"],
     "heuristic-sj-2p-0000-steps1-12.jsonl"),
    (PR_LOG, ["--steps", "1:10", "--rollouts", "6", "--seed", "3", "--sampling", "fixed"],
     "heuristic-pr-3p-0000-steps1-10.jsonl"),
]


def _analyse(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``governor analyse ARGS --workers 1`` in this process (a started interpreter costs about a second
    of CPU): its status and output."""
    from governor.cli import main

    code = main(["analyse", *args, "--workers", "1"])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["governor", "analyse", *args], code, out, err)


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None
    return record.log


@pytest.mark.parametrize(("log", "args", "golden"), GOLDENS, ids=["san_juan", "puerto_rico"])
def test_heuristic_rollouts_give_the_output_of_before(log: Path, args: list[str], golden: str, capsys: pytest.CaptureFixture[str]) -> None:
    run = _analyse(capsys, str(log), *args, "--json", "--rollout-bot", "heuristic")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(x) for x in run.stdout.splitlines()]
    # The one addition to each line: which bot rolled out.
    assert [x.pop("rollout_bot") for x in lines] == ["heuristic"] * len(lines)
    expected = [json.loads(x) for x in (GOLDEN / golden).read_text().splitlines()]
    assert len(expected) in (13, 10)
    assert lines == expected
    # Key for key, in the same order, as before.
    assert [json.dumps(x) for x in lines] == (GOLDEN / golden).read_text().splitlines()


def test_puerto_rico_rolls_out_with_the_heuristic_bot_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    """Its expert is too slow for a game under a minute: the default output is the output of before."""
    log, args, golden = GOLDENS[1]
    run = _analyse(capsys, str(log), *args, "--json")
    assert run.returncode == 0, run.stderr
    assert "(6 rollouts per candidate by the heuristic bot, seed 3): " in run.stderr
    lines = [json.loads(x) for x in run.stdout.splitlines()]
    assert [x.pop("rollout_bot") for x in lines] == ["heuristic"] * 10
    assert [json.dumps(x) for x in lines] == (GOLDEN / golden).read_text().splitlines()


def test_the_declared_expert_rolls_out_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    run = _analyse(capsys, str(SJ_LOG), "--steps", "1:3", "--rollouts", "4", "--seed", "3", "--json")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(x) for x in run.stdout.splitlines()]
    assert [(x["step"], x["rollout_bot"]) for x in lines] == [(1, "expert"), (2, "expert"), (3, "expert")]
    assert "3 decisions analysed in " in run.stderr
    assert "(at most 4 rollouts per candidate by the expert bot, seed 3): " in run.stderr
    # The same decisions by the same API, with the same estimates (the CLI adds nothing of its own).
    api = [d.to_json() for d in analyse(_log(SJ_LOG), Options(rollouts=4, seed=3, steps=(1, 3)))]
    assert api == lines
    heuristic = [d.to_json() for d in analyse(_log(SJ_LOG), Options(rollouts=4, seed=3, steps=(1, 3),
                                                                     rollout_bot="heuristic"))]
    assert [c["wins"] for d in heuristic for c in d["candidates"]] != [c["wins"] for d in lines for c in d["candidates"]]


def test_an_unknown_rollout_bot_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    run = _analyse(capsys, str(SJ_LOG), "--rollout-bot", "<b>grandmaster</b>")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == (
        "governor analyse: argument --rollout-bot: expects one of expert, heuristic, random, "
        "not '<b>grandmaster</b>' (see governor analyse --help)\n")


def test_a_kind_the_game_lacks_raises_naming_its_bots() -> None:
    with pytest.raises(ValueError, match=r"^San Juan has no 'mcts' bot \(bots: heuristic, random, expert\)$"):
        rollout_kind("san_juan", Options(rollout_bot="mcts"))
    assert rollout_kind("puerto_rico", Options()) == "heuristic"
    assert rollout_kind("puerto_rico", Options(rollout_bot="expert")) == "expert"
    assert rollout_kind("puerto_rico", Options(rollout_bot="random")) == "random"


def test_stored_rows_say_which_bot_rolled_out(tmp_path: Path) -> None:
    log = _log(SJ_LOG)
    db = tmp_path / "a.duckdb"
    for bot, steps in (("heuristic", (1, 2)), (None, (3, 4))):
        options = Options(rollouts=2, seed=1, top=2, steps=steps, rollout_bot=bot)
        store(db, log.game_id, "1.0", list(analyse(log, options)), options)
    con = duckdb.connect(str(db), read_only=True)
    try:
        by_step = con.execute("SELECT step, min(rollout_bot), max(rollout_bot) FROM analysis GROUP BY step ORDER BY step").fetchall()
    finally:
        con.close()
    assert by_step == [(1, "heuristic", "heuristic"), (2, "heuristic", "heuristic"), (3, "expert", "expert"),
                       (4, "expert", "expert")]


def test_a_schema_7_database_keeps_its_analyses_as_heuristic_ones(tmp_path: Path) -> None:
    """A database of schema version 7 (no ``rollout_bot``) is migrated when next written: its stored
    analyses, all rolled out by the heuristic bots then, say so; new ones say their bot."""
    db = tmp_path / "old.duckdb"
    with writer(db):
        pass
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot")
    con.execute("ALTER TABLE analysis DROP COLUMN score_share")  # schema version 10's
    con.execute("ALTER TABLE analysis DROP COLUMN score_share_sd")
    con.execute("ALTER TABLE analysis DROP COLUMN sampling")  # schema version 11's
    con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot_version")  # schema version 12's
    con.execute("INSERT INTO analysis VALUES ('old', 1, 0, 'Ana', 'pass', '{}', 'Ana passes', true, 1, 10, 5.0, 0.5, "
                "0.2, 0.8, 0.0, NULL, 2, 10, 0, 6, '1.0', ?)", [datetime(2026, 1, 1, tzinfo=UTC)])
    con.execute("UPDATE governor_meta SET value = '7' WHERE key = 'schema_version'")
    con.close()
    log = _log(SJ_LOG)
    options = Options(rollouts=2, seed=1, top=2, steps=(1, 1))
    store(db, log.game_id, "1.0", list(analyse(log, options)), options)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT game_id, rollout_bot, count(*) FROM analysis GROUP BY ALL ORDER BY 2").fetchall() == [
            (log.game_id, "expert", 2), ("old", "heuristic", 1)]
        assert con.execute("SELECT value FROM governor_meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
    finally:
        con.close()
    assert SCHEMA_VERSION >= 8
