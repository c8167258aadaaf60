"""A decision's candidates vary only what its seat decides: a part of a move that another seat decides
(in San Juan, refraining from the councillor's draw or declining a gold mine's card) follows the move
played in the acting seat's candidates, and is that other seat's own decision, estimated for it.
Puerto Rico moves carry no other seat's choice, and decisions without such parts are unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from analysis.decisions import Decision, Options, analyse, analyse_state, decision_points, own_choices
from analysis.rollouts import RolloutTask, run_task
from analysis.store import load, store
from replay.log_reader import read_records
from replay.logfile import GameLog
from replay.registry import engine_for
from replay.replayer import iter_replay
from replay.san_juan.cards import Role
from replay.san_juan.moves import Build, ChooseRole

ROOT = Path(__file__).resolve().parents[2]
SJ_2P = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"
#: Seat 0 (Ana) chooses the prospector at move 160; only seat 2 (Carla) owns a gold mine.
SJ_4P_GOLD = ROOT / "sample_logs" / "san_juan" / "san_juan-4p-seed2026-0020.json"
PR_3P = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"
#: The first councillor of the 2-player sample: Ana chooses it at move 7, and Bruno draws.
FIRST_COUNCILLOR = 7


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None
    return record.log


def _before(log: GameLog, number: int) -> tuple[Any, Any, int]:
    """The state before move ``number``, the move played there and its seat."""
    before = None
    for state, step in iter_replay(log, describe=False):
        if step is not None and step.number == number:
            assert step.seat is not None
            return before, step.move, step.seat
        before = state
    raise AssertionError(f"no move {number}")


def _texts(decision: Decision) -> list[str]:
    return sorted(c.text for c in decision.candidates)


def _direct(game: str, step: int, seat: int, state: Any, decision: Decision, options: Options) -> list[tuple[float, int]]:
    """Each candidate's wins and rollouts as the rollouts of ``seat`` (by the decision's rollout bot)
    give them, run here directly."""
    moves = tuple(c.move for c in decision.candidates)
    result = run_task(RolloutTask(game, step, seat, state, moves, options.seed, 0, options.rollouts,
                                  decision.rollout_bot))
    return list(zip(result.wins, result.played, strict=True))


# -- the per-game hooks ---------------------------------------------------------------------------


def test_san_juan_hooks_say_who_decides_which_part() -> None:
    engine = engine_for("san_juan")
    state, _, mover = _before(_log(SJ_4P_GOLD), 160)
    assert mover == 0
    councillor, prospector = ChooseRole(Role.COUNCILLOR), ChooseRole(Role.PROSPECTOR)
    # Every other seat may refrain from the councillor's draw; only the other gold mine owner decides
    # a part of the prospector's move; nobody else's choice rides on a builder.
    assert engine.deciders(state, councillor) == (1, 2, 3)
    assert engine.deciders(state, prospector) == (2,)
    assert engine.deciders(state, ChooseRole(Role.BUILDER)) == ()
    played = ChooseRole(Role.COUNCILLOR, privilege=False, councillor_refrained=(1, 3))
    # The acting seat's own variant: the others' refrains follow the move played...
    assert engine.with_others_from(state, councillor, 0, played) == ChooseRole(Role.COUNCILLOR, councillor_refrained=(1, 3))
    # ... and the seat's own refrain is its own, kept as it was.
    own = ChooseRole(Role.COUNCILLOR, councillor_refrained=(0, 2))
    assert engine.with_others_from(state, own, 0, played) == ChooseRole(Role.COUNCILLOR, councillor_refrained=(0, 1, 3))
    # Parts that cannot apply (another role) or no source: the rules' default, nobody declines.
    declined = ChooseRole(Role.PROSPECTOR, gold_mine_declined=(2,))
    assert engine.with_others_from(state, declined, 0, played) == prospector
    assert engine.with_others_from(state, declined, 0, None) == prospector
    assert engine.with_others_from(state, own, 0, None) == ChooseRole(Role.COUNCILLOR, councillor_refrained=(0,))
    # A move written as the others would play it is returned itself (its logged form stays).
    assert engine.with_others_from(state, played, 0, played) is played
    # Another seat's part: the move played with only that seat's entry taken from the move given.
    assert engine.with_others_from(state, councillor, 1, played) == ChooseRole(
        Role.COUNCILLOR, privilege=False, councillor_refrained=(3,))
    assert engine.with_others_from(state, own, 2, played) == ChooseRole(
        Role.COUNCILLOR, privilege=False, councillor_refrained=(1, 2, 3))
    assert engine.with_others_from(state, declined, 2, prospector) == declined
    assert engine.with_others_from(state, ChooseRole(Role.TRADER), 2, declined) == prospector
    with pytest.raises(ValueError) as err:
        engine.with_others_from(state, councillor, 1, None)
    assert str(err.value) == "seat 1 does not make this move, so its other parts need a source move"


def test_puerto_rico_moves_carry_no_other_seats_choice() -> None:
    """Every legal move of every position of a whole Puerto Rico game: no other seat decides a part
    of it, and the hook is the identity for the seat to act."""
    engine = engine_for("puerto_rico")
    log = _log(PR_3P)
    before, positions, moves = None, 0, 0
    for state, step in iter_replay(log, describe=False):
        if step is not None and step.seat is not None and before is not None:
            positions += 1
            for move in engine.legal_moves(before):
                moves += 1
                assert engine.deciders(before, move) == ()
                assert engine.with_others_from(before, move, step.seat, step.move) is move
        before = state
    assert positions == len(log.moves) and moves > positions


# -- the acting seat's candidates ---------------------------------------------------------------


def test_first_role_choice_holds_no_refrain_of_the_other_seat() -> None:
    """Move 1 of the 2-player sample: Ana's candidates vary only her own choice; before, they held
    "role councillor -privilege -draw [1]" (Bruno refraining) beside "role councillor -privilege"."""
    log = _log(SJ_2P)
    options = Options(rollouts=2, seed=3, top=20, workers=1, steps=(1, 1))
    (decision,) = analyse(log, options)
    assert (decision.step, decision.seat, decision.player, decision.mover, decision.legal) == (1, 0, "Ana", None, 8)
    assert [c.text for c in sorted(decision.candidates, key=lambda c: c.text)] == [
        "role builder", "role councillor", "role councillor -draw [0]", "role councillor -privilege",
        "role producer", "role prospector", "role prospector -privilege", "role trader",
    ]
    assert not any(1 in c.move.councillor_refrained for c in decision.candidates)
    assert decision.played.text == "role builder"
    assert decision.to_json()["mover"] == 0 and decision.to_json()["mover_player"] == "Ana"


def test_top_and_pre_ranking_work_on_the_seats_own_choices() -> None:
    """With fewer candidates than choices, the pre-ranked moves and the bot's are own-part variants
    too, each once."""
    log = _log(SJ_2P)
    (decision,) = analyse(log, Options(rollouts=2, seed=3, top=4, workers=1, steps=(1, 1)))
    assert len(decision.candidates) == 4 and decision.legal == 8
    assert len({c.text for c in decision.candidates}) == 4
    assert not any(1 in c.move.councillor_refrained for c in decision.candidates)
    assert decision.played.text == "role builder"


# -- the other seats' parts as their own decisions -------------------------------------------------


def test_a_refrain_from_the_councillors_draw_is_the_other_seats_decision() -> None:
    log = _log(SJ_2P)
    options = Options(rollouts=4, seed=3, top=6, workers=1, steps=(FIRST_COUNCILLOR, FIRST_COUNCILLOR))
    ana, bruno = analyse(log, options)
    assert (ana.step, ana.seat, ana.mover) == (FIRST_COUNCILLOR, 0, None)
    assert ana.played.text == "role councillor"
    assert not any(1 in c.move.councillor_refrained for c in ana.candidates)
    assert (bruno.step, bruno.seat, bruno.player, bruno.mover, bruno.mover_player, bruno.legal) == (
        FIRST_COUNCILLOR, 1, "Bruno", 0, "Ana", 2)
    # Exactly Bruno's two choices: draw (as played) or refrain; Ana's part as she played it.
    assert _texts(bruno) == ["role councillor", "role councillor -draw [1]"]
    assert bruno.played.text == "role councillor"
    assert {c.words for c in bruno.candidates} == {
        "Ana chooses the councillor", "Ana chooses the councillor; Bruno refrains from the draw"}
    # Estimated for Bruno: his own determinisation and his own wins.
    state, played, mover = _before(log, FIRST_COUNCILLOR)
    assert (played, mover) == (ChooseRole(Role.COUNCILLOR), 0)
    assert [(c.wins, c.rollouts) for c in bruno.candidates] == _direct("san_juan", FIRST_COUNCILLOR, 1, state, bruno, options)
    assert [(c.wins, c.rollouts) for c in ana.candidates] == _direct("san_juan", FIRST_COUNCILLOR, 0, state, ana, options)
    line = bruno.to_json()
    assert (line["seat"], line["player"], line["mover"], line["mover_player"], line["legal_moves"]) == (1, "Bruno", 0, "Ana", 2)


def test_decision_points_list_the_acting_seat_first_then_the_others() -> None:
    points = [(p.step, p.seat, p.mover, n) for p, n in decision_points(_log(SJ_2P), (1, 10))]
    # Role choices count the seat's own choices (11, 10, 9 and 11 legal moves before, Bruno's refrain
    # included); the other decisions keep their counts.
    assert points == [
        (1, 0, 0, 8), (2, 0, 0, 6), (3, 1, 1, 4), (4, 1, 1, 7), (5, 1, 1, 2), (6, 0, 0, 2), (7, 0, 0, 6),
        (7, 1, 0, 2), (8, 0, 0, 6), (9, 1, 1, 3), (10, 1, 1, 8),
    ]


def test_a_declined_gold_mine_is_its_owners_decision() -> None:
    """Ana chooses the prospector and Carla, the only other gold mine owner, declines its card: Ana's
    candidates keep Carla's choice as played, and Carla decides only that."""
    log = _log(SJ_4P_GOLD)
    state, logged, mover = _before(log, 160)
    assert (logged, mover) == (ChooseRole(Role.PROSPECTOR), 0)
    played = ChooseRole(Role.PROSPECTOR, gold_mine_declined=(2,))
    options = Options(rollouts=3, seed=3, top=10, workers=1)
    ana = analyse_state("san_juan", state, log.players, played, options, step=160)
    assert (ana.seat, ana.mover, ana.legal) == (0, None, 8)
    assert _texts(ana) == [
        "role builder", "role councillor", "role councillor -draw [0]", "role councillor -privilege",
        "role producer", "role prospector -gold mine [2]", "role prospector -privilege -gold mine [2]",
        "role trader",
    ]
    assert ana.played.move is played
    carla = analyse_state("san_juan", state, log.players, played, options, step=160, seat=2)
    assert (carla.seat, carla.player, carla.mover, carla.mover_player, carla.legal) == (2, "Carla", 0, "Ana", 2)
    assert _texts(carla) == ["role prospector", "role prospector -gold mine [2]"]
    assert carla.played.move is played
    assert [(c.wins, c.rollouts) for c in carla.candidates] == _direct("san_juan", 160, 2, state, carla, options)
    assert all(c.rollouts == 3 for c in carla.candidates)
    with pytest.raises(ValueError) as err:
        analyse_state("san_juan", state, log.players, played, options, step=160, seat=1)
    assert str(err.value) == "seat 1 decides no part of 'role prospector -gold mine [2]', which seat 0 makes"


# -- unchanged where nobody else decides ---------------------------------------------------------------

#: ``governor analyse`` before candidates varied only the seat's own part, rollouts 8 by the heuristic
#: bots (the only rollout bot then), seed 3, top 6, sampling fixed (the only sampling then):
#: (step, seat, legal moves, [(candidate, wins)] best first). Puerto Rico's first three decisions (the
#: first with more moves than ``top``: pre-ranking and the bot's move) and a San Juan build.
BEFORE = {
    "puerto_rico": [
        (1, 0, 7, [("role builder", 6.0), ("role settler", 4.0), ("role craftsman", 1.0), ("role mayor", 1.0),
                   ("role trader", 1.0), ("role mayor -privilege", 0.0)]),
        (2, 0, 8, [("build Indigo plant", 4.0), ("build Small market", 3.0), ("build Small sugar mill", 3.0),
                   ("build Small indigo plant", 2.0), ("build Construction hut", 1.0), ("build Hacienda", 0.0)]),
        (3, 1, 6, [("build Small sugar mill", 1.0), ("build Construction hut", 1.0), ("build Small indigo plant", 1.0),
                   ("build Small market", 1.0), ("pass", 1.0), ("build Hacienda", 0.0)]),
    ],
    "san_juan": [
        (2, 0, 6, [("build Carpenter pay [Black market, Carpenter]", 6.0), ("build Black market pay [Carpenter]", 6.0),
                   ("build Carpenter pay [Black market, Guild hall]", 6.0),
                   ("build Carpenter pay [Carpenter, Guild hall]", 6.0), ("build Black market pay [Guild hall]", 5.0),
                   ("pass", 1.5)]),
    ],
}


def _summary(decisions: Iterator[Decision]) -> list[tuple[int, int, int, list[tuple[str, float]]]]:
    out = []
    for d in decisions:
        assert all(c.rollouts == 8 for c in d.candidates)
        out.append((d.step, d.seat, d.legal, [(c.text, c.wins) for c in d.candidates]))
    return out


def test_decisions_without_other_seats_parts_are_unchanged() -> None:
    options = Options(rollouts=8, seed=3, top=6, workers=1, rollout_bot="heuristic", sampling="fixed")
    pr = analyse(_log(PR_3P), Options(**{**options.__dict__, "steps": (1, 3)}))
    assert _summary(pr) == BEFORE["puerto_rico"]
    sj = analyse(_log(SJ_2P), Options(**{**options.__dict__, "steps": (2, 2)}))
    assert _summary(sj) == BEFORE["san_juan"]


# -- storing two decisions of one step ---------------------------------------------------------------


def test_two_decisions_of_one_step_are_stored_and_loaded_in_order(tmp_path: Path) -> None:
    log = _log(SJ_2P)
    options = Options(rollouts=2, seed=3, top=3, workers=1, steps=(FIRST_COUNCILLOR, FIRST_COUNCILLOR + 1))
    decisions = list(analyse(log, options))
    assert [(d.step, d.seat) for d in decisions] == [(7, 0), (7, 1), (8, 0)]
    db = tmp_path / "a.duckdb"
    written = store(db, log.game_id, "1.0", decisions, options)
    assert written == 3 + 2 + 3
    table = load(db, log.game_id).to_pylist()
    expected = [(d.step, d.seat, rank, c.text, c.played)
                for d in decisions for rank, c in enumerate(d.candidates, start=1)]
    assert [(r["step"], r["seat"], r["rank"], r["candidate"], r["played"]) for r in table] == expected
    played = [(r["step"], r["seat"], r["player"]) for r in table if r["played"]]
    assert played == [(7, 0, "Ana"), (7, 1, "Bruno"), (8, 0, "Ana")]
    # Bruno chooses the councillor at move 88: his decision comes before Ana's, seat 1 before seat 0.
    later = list(analyse(log, Options(rollouts=2, seed=3, top=3, workers=1, steps=(88, 88))))
    assert [(d.step, d.seat, d.mover) for d in later] == [(88, 1, None), (88, 0, 1)]
    store(db, log.game_id, "1.0", later, options)
    order = [(r["step"], r["seat"], r["rank"]) for r in load(db, log.game_id).to_pylist() if r["step"] == 88]
    assert order == [(88, 1, 1), (88, 1, 2), (88, 1, 3), (88, 0, 1), (88, 0, 2)]
    # Storing the same steps again replaces both decisions of the step, and the order holds.
    assert store(db, log.game_id, "1.0", decisions, options) == written
    again = load(db, log.game_id).to_pylist()
    assert [(r["step"], r["seat"], r["rank"]) for r in again] == [(s, t, k) for s, t, k, _, _ in expected] + order
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM analysis").fetchone() == (written + 5,)
    con.close()


def test_json_lines_of_a_step_with_two_decisions() -> None:
    log = _log(SJ_2P)
    options = Options(rollouts=2, seed=3, top=3, workers=1, steps=(FIRST_COUNCILLOR, FIRST_COUNCILLOR))
    lines = [json.loads(json.dumps(d.to_json())) for d in analyse(log, options)]
    assert [(x["step"], x["seat"], x["player"], x["mover"], x["mover_player"]) for x in lines] == [
        (7, 0, "Ana", 0, "Ana"), (7, 1, "Bruno", 0, "Ana")]
    assert lines[1]["played"]["move"] == {"kind": "role", "role": "councillor"}
    assert sorted(c["move"].get("councillor_refrained", []) == [1] for c in lines[1]["candidates"]) == [False, True]


def test_a_build_is_nobody_elses_decision() -> None:
    engine = engine_for("san_juan")
    state, _, _ = _before(_log(SJ_2P), 2)
    move = Build("Carpenter", ("Black market", "Carpenter"))
    assert engine.deciders(state, move) == ()
    assert [m.text() for m in own_choices(engine, state, 0, move)][:1] == ["build Black market pay [Carpenter]"]


def test_two_decisions_of_one_step_are_the_same_on_worker_processes() -> None:
    log = _log(SJ_2P)
    options = dict(rollouts=2, seed=5, top=3, steps=(FIRST_COUNCILLOR, FIRST_COUNCILLOR))
    inline = [d.to_json() for d in analyse(log, Options(workers=1, **options))]
    pooled = [d.to_json() for d in analyse(log, Options(workers=2, **options))]
    assert [(d["step"], d["seat"]) for d in inline] == [(7, 0), (7, 1)]
    assert pooled == inline
