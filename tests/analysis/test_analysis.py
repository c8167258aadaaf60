"""Analysis: determinisation never leaks, estimates are reproducible, a forced win ranks first, the
CLI prints and stores what it computed."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from analysis.decisions import Options, analyse, analyse_state, interval, tag_for
from analysis.rollouts import RolloutTask, run_task
from replay.log_reader import read_records
from replay.logfile import GameLog
from replay.registry import engine_for
from replay.san_juan.moves import Build, Pass
from replay.san_juan.state import Stage
from tests.replay.san_juan.positions import IP, TS, position, seat

ROOT = Path(__file__).resolve().parents[2]
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"
PR_LOG = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None
    return record.log


def _with_setup(log: GameLog, setup: dict) -> GameLog:
    return replace(log, setup=setup)


# -- determinisation ---------------------------------------------------------------------------


def _sj_swapped(log: GameLog) -> GameLog:
    """The same game with seat 1's first card swapped with a different card deep in the deck: seat 0
    sees exactly the same table."""
    setup = json.loads(json.dumps(log.setup))
    hand, deck = setup["hands"][1], setup["deck"]
    k = next(i for i in range(len(deck) - 1, 0, -1) if deck[i] != hand[0] and deck[i] not in hand)
    hand[0], deck[k] = deck[k], hand[0]
    deck[:10] = reversed(deck[:10])
    return _with_setup(log, setup)


def test_san_juan_determinisation_depends_only_on_what_the_seat_sees() -> None:
    log = _log(SJ_LOG)
    engine = engine_for("san_juan")
    one, two = engine.new_game(log), engine.new_game(_sj_swapped(log))
    assert one.players[1].hand != two.players[1].hand and one.draw_pile != two.draw_pile
    assert one.players[0] == two.players[0]
    seat_to_act = engine.current_seat(one)
    a = engine.determinise(one, seat_to_act, random.Random(7))
    b = engine.determinise(two, seat_to_act, random.Random(7))
    assert a == b
    # Nothing is created or lost, the seat's own hand and every size stay as they were.
    assert Counter(a.all_cards()) == Counter(one.all_cards())
    assert a.players[seat_to_act].hand == one.players[seat_to_act].hand
    assert [len(p.hand) for p in a.players] == [len(p.hand) for p in one.players]
    assert len(a.draw_pile) == len(one.draw_pile) and a.reshuffles == ()
    # A rollout's result does not change either.
    moves = tuple(engine.legal_moves(one))
    results = [run_task(RolloutTask("san_juan", 1, seat_to_act, s, moves, 3, 0, 4)) for s in (one, two)]
    assert results[0] == results[1]


def test_san_juan_determinisation_reshuffles_hidden_cards() -> None:
    log = _log(SJ_LOG)
    engine = engine_for("san_juan")
    state = engine.new_game(log)
    worlds = {engine.determinise(state, 0, random.Random(seed)).players[1].hand for seed in range(8)}
    assert len(worlds) > 1


def test_san_juan_keeps_the_seats_own_looked_at_cards() -> None:
    state = position([seat(hand=["Statue"]), seat(hand=["Well", "Smithy"])], draw=["Chapel", "Tower"],
                     stage=Stage.PHASE, chooser=0, queue=(0, 1), looking=["Library", "Palace"])
    from replay.san_juan.view import determinise

    world = determinise(state, 0, random.Random(1))
    assert world.looking == ("Library", "Palace")
    assert sorted(world.players[1].hand + world.draw_pile) == ["Chapel", "Smithy", "Tower", "Well"]
    seen_by_other = determinise(state, 1, random.Random(1))
    assert sorted(seen_by_other.looking + seen_by_other.players[0].hand + seen_by_other.draw_pile) == [
        "Chapel", "Library", "Palace", "Statue", "Tower"]


def test_puerto_rico_determinisation_shuffles_only_the_plantation_stack() -> None:
    log = _log(PR_LOG)
    engine = engine_for("puerto_rico")
    state = engine.new_game(log)
    swapped = replace(state, plantation_stack=tuple(reversed(state.plantation_stack)))
    a = engine.determinise(state, 1, random.Random(11))
    b = engine.determinise(swapped, 1, random.Random(11))
    assert a == b
    assert Counter(a.plantation_stack) == Counter(state.plantation_stack)
    assert replace(a, plantation_stack=state.plantation_stack, shuffle_seed=None) == replace(
        state, reshuffles=(), shuffle_seed=None)


# -- estimates ----------------------------------------------------------------------------------


def _endgame() -> tuple:
    """Seat 0 chooses the builder with 11 Indigo plants (11 VP) against seat 1's 10 Indigo plants and
    a Tobacco storage (12 VP). Building the Statue (3 VP, 2 cards with the privilege) wins: seat 1
    then builds its 12th (an Indigo plant, 1 VP) and the game ends 14 to 13. Passing, or building
    an Indigo plant (12 VP), loses: seat 1's 12th building ends the game with it ahead."""
    state = position(
        [seat(hand=["Statue", IP, IP], buildings=[IP] * 11), seat(hand=[IP, "Statue"], buildings=[IP] * 10 + [TS])],
        stage=Stage.PHASE, role=None, chooser=0,
    )
    from replay.san_juan.cards import Role

    state = replace(state, role=Role.BUILDER, roles_taken=((Role.BUILDER, 0),))
    return state


def test_a_forced_win_is_ranked_first() -> None:
    state = _endgame()
    decision = analyse_state("san_juan", state, ["Ana", "Bruno"], Pass(), Options(rollouts=6, seed=1, top=6))
    assert decision.best.move == Build("Statue", (IP, IP), ())
    assert decision.best.estimate == 1.0 and decision.best.rollouts == 6
    assert decision.played.estimate == 0.0
    assert decision.loss == 1.0 and decision.tag == "blunder"
    assert {c.text for c in decision.candidates} == {
        "build Statue pay [Indigo plant, Indigo plant]", "build Indigo plant pay []", "pass"}


def test_estimates_are_reproducible_and_independent_of_workers() -> None:
    log = _log(SJ_LOG)
    options = dict(rollouts=3, seed=5, top=3, steps=(1, 4))
    inline = [d.to_json() for d in analyse(log, Options(workers=1, **options))]
    again = [d.to_json() for d in analyse(log, Options(workers=1, **options))]
    pooled = [d.to_json() for d in analyse(log, Options(workers=2, **options))]
    assert inline == again == pooled
    assert [d["step"] for d in inline] == [1, 2, 3, 4]
    other_seed = [d.to_json() for d in analyse(log, Options(workers=1, **{**options, "seed": 6}))]
    assert other_seed != inline


def test_a_move_written_in_another_order_is_one_candidate_not_two() -> None:
    """San Juan's produced goods may be logged in any order (the order only says which building the
    face-down card goes under); the move played is not estimated beside its listed twin."""
    log = _log(SJ_LOG)
    (decision,) = analyse(log, Options(workers=1, rollouts=2, seed=1, top=6, steps=(74, 74)))
    assert decision.legal == 4
    assert sorted(c.text for c in decision.candidates) == [
        "pass", "produce coffee", "produce coffee, indigo", "produce indigo"]
    assert decision.played.text == "produce coffee, indigo"
    assert decision.played.move.to_json() == {"kind": "produce", "goods": ["coffee", "indigo"]}


def test_interval_and_tags() -> None:
    assert interval(0, 0) == (0.0, 1.0)
    low, high = interval(50, 100)
    assert round(low, 4) == 0.4038 and round(high, 4) == 0.5962
    assert tag_for(0.25, True) == "blunder"
    assert tag_for(0.12, True) == "mistake"
    assert tag_for(0.05, True) == "inaccuracy"
    assert tag_for(0.049, True) is None
    assert tag_for(0.5, False) is None


# -- command line and storage -------------------------------------------------------------------


def test_cli_prints_and_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In this process (a started interpreter costs about a second of CPU): the command's status,
    # output and rows are what is checked.
    from governor.cli import main

    db = tmp_path / "a.duckdb"
    code = main(["analyse", str(SJ_LOG), "--rollouts", "2", "--top", "2", "--steps", "1:3", "--workers", "1", "--json",
                 "--store", "--db", str(db), "--seed", "9"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    lines = [json.loads(x) for x in stdout.splitlines()]
    assert [d["step"] for d in lines] == [1, 2, 3]
    candidates = sum(len(d["candidates"]) for d in lines)
    assert f"stored {candidates} rows for game " in stderr
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT step, candidate, played, rollouts, seed, rollouts_asked FROM analysis ORDER BY step, rank").fetchall()
    assert len(rows) == candidates
    assert all(r[3] == 2 and r[4] == 9 and r[5] == 2 for r in rows)
    assert [r[1] for r in rows if r[2]] == [d["played"]["text"] for d in lines]
    con.close()
    # Storing again replaces the same steps instead of adding to them.
    assert main(["analyse", str(SJ_LOG), "--rollouts", "2", "--top", "2", "--steps", "1:3", "--workers", "1", "--store",
                 "--db", str(db), "--seed", "9"]) == 0, capsys.readouterr().err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM analysis").fetchone() == (candidates,)
    con.close()


def test_cli_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from governor.cli import main

    assert main(["analyse", str(SJ_LOG), "--game", "3"]) == 2
    assert capsys.readouterr().err.strip() == f"governor analyse: {SJ_LOG} holds 1 game(s), no game 3"


@pytest.mark.parametrize("path", [PR_LOG])
def test_puerto_rico_game_analyses(path: Path) -> None:
    log = _log(path)
    decisions = list(analyse(log, Options(rollouts=2, seed=1, top=2, steps=(1, 3))))
    assert [d.step for d in decisions] == [1, 2, 3]
    assert all(1 <= len(d.candidates) <= 3 and d.played in d.candidates for d in decisions)


def test_options_refuse_a_sampling_or_purpose_they_do_not_know() -> None:
    """A misspelt sampling or purpose is refused at once, naming the known ones (it used to be taken
    for adaptive sampling and for the analysis' race)."""
    with pytest.raises(ValueError, match=r"^unknown sampling 'Fixed' \(known: adaptive, fixed\)$"):
        Options(sampling="Fixed")
    with pytest.raises(ValueError, match=r"^unknown purpose 'Play' \(known: analysis, play\)$"):
        Options(purpose="Play")
    assert Options(sampling="fixed", purpose="play").adaptive is False
