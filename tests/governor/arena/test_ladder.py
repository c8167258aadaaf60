"""The ladder's machinery: ``search`` is the documented default, an arena played in parts is the
arena played at once, the ladder's games are reproducible from their seed, and the benchmark
continues a results file where it stopped instead of starting again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench import bench_ladder
from governor.arena.play import GameRecord
from governor.arena.round_robin import ArenaError, run_arena
from play.agents import AnalysisSearchAgent, load_agent, make_engine_bot
from replay.logfile import dumps_game
from replay.registry import engine_for, rollout_bot
from tests.hostile import ROOT

#: Two cheap arenas of the ladder (no search: their games take milliseconds).
CHEAP = ["san_juan 2p heuristic vs random", "san_juan 3p expert vs heuristic"]


def digests(results: dict[str, Any]) -> dict[str, list[tuple[int, list[str], list[int], str]]]:
    """Per arena, each game's index, seats, scores and log digest (what does not depend on timing)."""
    return {key: [(g["index"], g["seated"], g["scores"], g["log_sha256"]) for g in run["games"]]
            for key, run in results["runs"].items()}


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_search_is_the_documented_default(game: str) -> None:
    """``search``: the expert's move unless the analysis' race, at most 100 rollouts a candidate,
    rolled out by the game's rollout bot, finds a better one; ``search:R`` is still the flat search."""
    agent = load_agent("search", game)
    assert isinstance(agent, AnalysisSearchAgent)
    assert (agent.name, agent.rollouts, agent.prior_kind, agent.bot) == ("search", 100, "expert", rollout_bot(game))
    assert load_agent("search:20", game).name == "search:20"


def test_search_plays_the_analysis_best_move_with_the_expert_move_as_played() -> None:
    """At a decision, ``search`` plays exactly what ``analyse_state`` names best, racing to choose a
    move (``purpose="play"``), when the expert's move is the move played, seeded by the agent's seed and
    its decision count."""
    from analysis.decisions import Options, analyse_state

    game = "san_juan"
    engine = engine_for(game)
    state = engine.simulation_state(engine.new_random_game(["A", "B"], 3, {}), 3)
    while len(engine.legal_moves(state)) < 3:
        state = engine.apply(state, engine.legal_moves(state)[0])
    agent = AnalysisSearchAgent(game, rollouts=8)
    agent.reset(11)
    move = agent.choose_working(engine.working(state))
    expert = engine.canonical_move(make_engine_bot(game, "expert", 11).choose_working(engine.working(state)))
    expected = analyse_state(game, state, ["seat 1", "seat 2"], expert,
                             Options(rollouts=8, seed=11, rollout_bot=rollout_bot(game), purpose="play"),
                             step=1).best.move
    assert move == expected and agent.decision == 1
    again = AnalysisSearchAgent(game, rollouts=8)
    again.reset(11)
    assert again.choose_working(engine.working(state)) == move


def test_an_arena_played_in_parts_is_the_arena_played_at_once() -> None:
    """``first``: games 3 to 5 of an arena are the very games of one run of 6 (same logs)."""
    logs: dict[int, str] = {}
    part: dict[int, str] = {}

    def keep(into: dict[int, str]) -> Callable[[int, GameRecord], None]:
        return lambda index, record: into.__setitem__(index, dumps_game(record.log))

    run_arena("san_juan", 2, ["heuristic", "random"], 6, 5, on_game=keep(logs))
    run_arena("san_juan", 2, ["heuristic", "random"], 3, 5, first=3, on_game=keep(part))
    assert part == {i: logs[i] for i in (3, 4, 5)}
    with pytest.raises(ArenaError, match=r"^the first game's index must be 0 or more, not -1$"):
        run_arena("san_juan", 2, ["heuristic", "random"], 3, 5, first=-1)


def test_the_ladders_games_are_reproducible_from_their_seed(tmp_path: Path) -> None:
    """Two runs of a tiny ladder with the same seed give the same games, log for log; another seed
    gives others. (``search``'s own moves are its seeded race's: the test above.)"""
    only = ["--only", *CHEAP, "--games", "2", "--batch", "2"]
    runs = []
    for name, seed in (("a.json", "4"), ("b.json", "4"), ("c.json", "5")):
        assert bench_ladder.main(["--results", str(tmp_path / name), "--seed", seed, *only]) == 0
        runs.append(json.loads((tmp_path / name).read_text()))
    assert sorted(runs[0]["runs"]) == sorted(CHEAP)
    assert digests(runs[0]) == digests(runs[1])
    assert [g["index"] for g in runs[0]["runs"][CHEAP[1]]["games"]] == [0, 1, 2]
    assert digests(runs[0]) != digests(runs[2])


def test_the_bench_continues_where_it_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A results file with some batches done is continued, not restarted: the batches kept as they
    were, the rest played after them, and the games the same as those of one uninterrupted run."""
    results = tmp_path / "ladder.json"
    args = ["--results", str(results), "--seed", "3", "--only", *CHEAP, "--games", "6", "--batch", "2"]
    assert bench_ladder.main([*args, "--max-batches", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "stopped after 3 batch(es): rerun to continue"
    first = json.loads(results.read_text())
    assert {k: [(b["first"], b["games"]) for b in r["batches"]] for k, r in first["runs"].items()} == {
        CHEAP[0]: [(0, 2), (2, 2)], CHEAP[1]: [(0, 3)]}
    assert bench_ladder.main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "the ladder is complete"
    done = json.loads(results.read_text())
    for key, run in first["runs"].items():
        assert done["runs"][key]["batches"][: len(run["batches"])] == run["batches"]
        assert done["runs"][key]["games"][: len(run["games"])] == run["games"]
    assert [g["index"] for g in done["runs"][CHEAP[0]]["games"]] == list(range(6))
    assert len(done["sessions"]) == 2
    once = tmp_path / "once.json"
    assert bench_ladder.main(["--results", str(once), "--seed", "3", "--only", *CHEAP, "--games", "6", "--batch", "6"]) == 0
    assert digests(json.loads(once.read_text())) == digests(done)
    # Complete: a rerun plays nothing and leaves the file as it was.
    before = results.read_bytes()
    assert bench_ladder.main(args) == 0
    assert json.loads(results.read_bytes())["runs"] == json.loads(before)["runs"]


def test_the_bench_refuses_to_mix_two_ladders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A results file of another seed, or not a ladder's, is one line and exit status 2, untouched."""
    results = tmp_path / "ladder.json"
    assert bench_ladder.main(["--results", str(results), "--seed", "3", "--only", CHEAP[0], "--games", "2"]) == 0
    before = results.read_bytes()
    capsys.readouterr()
    assert bench_ladder.main(["--results", str(results), "--seed", "4", "--only", CHEAP[0]]) == 2
    assert capsys.readouterr().err == (f"bench_ladder: {results}: played with --seed 3, not 4 "
                                       "(give another --results to start a ladder of another seed)\n")
    assert results.read_bytes() == before
    other = tmp_path / "other.json"
    other.write_text("[1, 2]\n")
    assert bench_ladder.main(["--results", str(other), "--only", CHEAP[0]]) == 2
    assert capsys.readouterr().err == (f"bench_ladder: {other}: not the results of this ladder benchmark "
                                       "(give another --results to start one)\n")
    assert bench_ladder.main(["--results", str(results), "--only", "no such arena"]) == 2
    assert capsys.readouterr().err == "bench_ladder: --only 'no such arena': no arena of the ladder matches\n"


def test_a_new_search_keeps_the_other_steps_and_plays_the_search_again(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A results file of another ``search`` is refused, naming both; with ``--new-search`` its arenas
    without search stay as they were, its search arenas move to its history, and it goes on."""
    results = tmp_path / "ladder.json"
    assert bench_ladder.main(["--results", str(results), "--seed", "3", "--only", *CHEAP, "--games", "2"]) == 0
    old = json.loads(results.read_text())
    searched = {"game": "san_juan", "players": 4, "strong": "search", "weak": "expert", "games": [],
                "unfinished": [], "batches": []}
    old["runs"]["san_juan 4p search vs expert"] = searched
    results.write_text(json.dumps(old))
    before = results.read_bytes()
    mine = {**bench_ladder.search_definition(), "version": "99"}
    monkeypatch.setattr(bench_ladder, "search_definition", lambda: mine)
    capsys.readouterr()
    args = ["--results", str(results), "--only", *CHEAP, "--games", "4"]
    assert bench_ladder.main(args) == 2
    assert capsys.readouterr().err == (
        f"bench_ladder: {results}: its search was {json.dumps(old['search'])}, this checkout's is "
        f"{json.dumps(mine)} (give another --results, or --new-search to keep its arenas without search and "
        "play the search arenas again)\n")
    assert results.read_bytes() == before
    assert bench_ladder.main([*args, "--new-search"]) == 0
    done = json.loads(results.read_text())
    assert done["search"] == mine and sorted(done["runs"]) == sorted(CHEAP)
    assert [(h["search"], h["runs"]) for h in done["history"]] == [(old["search"], {"san_juan 4p search vs expert": searched})]
    for key in CHEAP:
        assert done["runs"][key]["games"][: len(old["runs"][key]["games"])] == old["runs"][key]["games"]
        assert len(done["runs"][key]["games"]) == (4 if key == CHEAP[0] else 6)


def test_the_table_shows_win_share_interval_par_time_and_ratings(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--table`` prints every arena of the ladder, those played with their numbers; ``--docs``
    writes the same between a file's markers and leaves the rest of the file."""
    results = tmp_path / "ladder.json"
    assert bench_ladder.main(["--results", str(results), "--seed", "3", "--only", CHEAP[0], "--games", "4"]) == 0
    capsys.readouterr()
    assert bench_ladder.main(["--results", str(results), "--table", "--games", "4"]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.startswith("| San Juan | 2 |")]
    assert len(rows) == 3
    assert rows[0].startswith("| San Juan | 2 | heuristic vs 1 random | 4 | 100.0% [51.0%, 100.0%] | 50.0% | yes | ")
    assert rows[2] == "| San Juan | 2 | search vs 1 expert | 0 of 4 | - | 50.0% | - | - | - |"
    doc = tmp_path / "ladder.md"
    doc.write_text(f"before\n{bench_ladder.BEGIN}\nold\n{bench_ladder.END}\nafter\n")
    assert bench_ladder.main(["--results", str(results), "--docs", str(doc), "--games", "4"]) == 0
    assert doc.read_text() == f"before\n{bench_ladder.BEGIN}\n{text}{bench_ladder.END}\nafter\n"


def test_times_per_decision_are_cpu_time_whatever_else_ran_beside_the_bench() -> None:
    """A batch that waited for a core (its CPU time half its agents' wall-clock time) counts its
    games at half their time; a batch that had the core to itself counts them as measured (the
    arena's own work between decisions never raises a time above the wall clock's)."""
    def game(index: int) -> dict[str, Any]:
        return {"index": index, "seated": ["search", "expert"], "scores": [10, 5], "ranks": [1, 2],
                "shares": [1.0, 0.0], "seconds": [2.0, 0.02], "decisions": [10, 10], "faults": []}

    run = {"players": 2, "entries": [["search", "search", "3"], ["expert", "expert", "2"]], "unfinished": [],
           "games": [game(k) for k in range(4)],
           "batches": [{"first": 0, "games": 2, "seconds": 5.0, "cpu_seconds": 2.02},
                       {"first": 2, "games": 2, "seconds": 4.1, "cpu_seconds": 4.1}]}
    assert [bench_ladder.cpu_share(run, k) for k in range(4)] == [0.5, 0.5, 1.0, 1.0]
    summary = bench_ladder.summary(run)
    assert summary["ms_strong"] == pytest.approx(150.0) and summary["ms_weak"] == pytest.approx(1.5)


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_a_signal_stops_the_bench_keeping_the_batches_done(tmp_path: Path, sig: int, status: int, word: str) -> None:
    """SIGTERM or Ctrl-C between or inside batches: one line, exit status 143 or 130, and the results
    file holds whole batches only (the one in progress is lost, never half written), nothing else
    left in its folder; a rerun continues from it."""
    folder = tmp_path / "out"
    folder.mkdir()
    results = folder / "ladder.json"
    args = ["--results", str(results), "--seed", "3", "--only", CHEAP[0], "--batch", "2"]
    child = subprocess.Popen([sys.executable, "bench/bench_ladder.py", *args, "--games", "100000"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()  # the first batch is saved: the next ones are being played
        assert line.startswith(f"{CHEAP[0]}: games 0-1 in "), line + child.communicate()[1]
        child.send_signal(sig)
        stdout, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:  # not left running when it did not stop
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    assert (child.returncode, stderr) == (status, f"bench_ladder: {word}: the batch in progress is not saved; "
                                                  "rerun to continue\n")
    assert [p.name for p in folder.iterdir()] == ["ladder.json"]
    run = json.loads(results.read_text())["runs"][CHEAP[0]]
    assert [g["index"] for g in run["games"]] == list(range(2 * len(run["batches"])))
    assert len(run["batches"]) >= 1 + len(stdout.splitlines())
    assert bench_ladder.main([*args, "--games", str(2 * len(run["batches"]) + 2)]) == 0
    assert [g["index"] for g in json.loads(results.read_text())["runs"][CHEAP[0]]["games"]] == \
        list(range(2 * len(run["batches"]) + 2))
