"""Variations in the Replay page's move list: several what-if lines at once, each under the move it
starts from with its own result, kept in the URL (``var``) so a reload or a shared link brings them
back, each downloadable as a log ``governor validate`` accepts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis import variation as V
from dashboards.whatif_panel import MAX_LINES, MAX_URL_CHARS, Line, parse_lines
from replay.logfile import parse_game

from .conftest import alerts

ROOT = Path(__file__).resolve().parents[2]
GAME_FILE = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _log():
    return parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))


def _game(at) -> dict:
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)["game"]


def _played(line: Line) -> V.Variation:
    """The variation a line describes, played here with the analysis module alone."""
    variation = V.start(_log(), line.branch)
    for pick in line.picks:
        variation = V.play(variation, V.choices(variation)[pick].move)
    return V.finish(variation, seed=variation.seed) if line.finished else variation


def _result(variation: V.Variation, names: list[str]) -> str:
    result = V.to_log(variation)["result"]
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(result["scores"]))
    return f"{scores}: winner " + ", ".join(names[w] for w in result["winners"])


def test_two_variations_in_the_move_list_and_in_the_url(open_page: Callable, dash_db: Path) -> None:
    log = _log()
    names = list(log.players)
    at = open_page(dash_db, "views/replay.py", game=log.game_id, step=10)
    at.button(key="whatif_play_10_0").click().run()
    # The viewer shows the unfinished variation: no winner yet, its own moves marked after the branch.
    game = _game(at)
    assert game["unfinished"] is True and game["winners"] == [] and game["branch_after"] == 10
    at.button(key="whatif_finish").click().run()
    at.button(key="whatif_back").click().run()
    at.number_input(key="whatif_branch").set_value(20).run()
    at.button(key="whatif_play_20_0").click().run()
    at.button(key="whatif_back").click().run()
    assert not at.exception
    first, second = at.session_state["whatif_lines"][log.game_id]
    assert (first.branch, first.finished, second.branch, second.finished) == (10, True, 20, False)
    assert at.query_params["var"] == f"{first.code()}~{second.code()}"
    listed = _game(at)["variations"]
    finished = _played(first)
    assert [(v["k"], v["branch"], v["result"], v["active"]) for v in listed] == [
        (0, 10, _result(finished, names), False), (1, 20, "unfinished", False)]
    assert listed[0]["words"] == V.moves_words(finished) and len(listed[1]["words"]) == 1
    # Each is listed under the panel with its result.
    texts = [t.value for t in at.text]
    assert f"1. after move 10, {len(finished.moves)} moves: {_result(finished, names)}" in texts
    assert "2. after move 20, 1 move: unfinished" in texts


def test_a_reload_brings_the_variations_back(open_page: Callable, dash_db: Path) -> None:
    log = _log()
    lines = [Line(10, (0,), True), Line(30, (1, 0))]
    code = "~".join(line.code() for line in lines)
    at = open_page(dash_db, "views/replay.py", game=log.game_id, step=5, var=code)
    assert not at.exception and alerts(at, "warning") == []
    assert at.session_state["whatif_lines"][log.game_id] == lines
    listed = _game(at)["variations"]
    assert [(v["branch"], v["words"]) for v in listed] == [(10, V.moves_words(_played(lines[0]))),
                                                           (30, V.moves_words(_played(lines[1])))]
    assert listed[1]["result"] == "unfinished"


def test_a_bad_link_is_one_warning_and_the_rest_is_kept(open_page: Callable, dash_db: Path) -> None:
    log = _log()
    legal = len(V.choices(V.start(log, 10)))
    at = open_page(dash_db, "views/replay.py", game=log.game_id, var="10_999_u~abc~12_0_u")
    assert not at.exception
    assert alerts(at, "warning") == [("The link's variations: variation 2 is not of the form branch_moves_f. "
                             f"The link's variation 1 was dropped: move 1 after move 10: move 999 is not one of "
                             f"the {legal} legal moves.")]
    assert at.session_state["whatif_lines"][log.game_id] == [Line(12, (0,))]
    assert at.query_params["var"] == "12_0_u"


def test_parse_lines_bounds() -> None:
    assert parse_lines("", 100) == ([], None)
    assert parse_lines("x" * (MAX_URL_CHARS + 1), 100) == (
        [], f"The link's variations ({MAX_URL_CHARS + 1} characters, at most {MAX_URL_CHARS}) were not read.")
    many = "~".join(f"{i}_0_u" for i in range(MAX_LINES + 2))
    lines, note = parse_lines(many, 100)
    assert lines == [Line(i, (0,)) for i in range(MAX_LINES)]
    assert note == f"The link's variations: variations past the first {MAX_LINES} were dropped."
    assert parse_lines("101_0_f~5__u~5__f", 100) == ([Line(5, (), True)], (
        "The link's variations: variation 1 branches after move 101, but the game has 100 moves; "
        "variation 2 has no move."))
    assert parse_lines("5_" + ".".join(["0"] * 61) + "_u", 100)[1] == (
        "The link's variations: variation 1 has 61 moves by hand (at most 60).")


@pytest.mark.parametrize("line", [Line(10, (0,), True), Line(40, (2, 0), True)])
def test_a_variations_log_passes_governor_validate(line: Line, tmp_path: Path) -> None:
    variation = _played(line)
    assert variation.over
    path = tmp_path / "variation.json"
    path.write_text(V.to_text(variation))
    done = subprocess.run([sys.executable, "-m", "governor.cli", "validate", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    # The summary goes to the error stream, as every count of governor validate.
    assert (done.returncode, done.stderr.strip()) == (0, "1 good, 0 bad game(s) in 1 file(s)"), done.stdout
