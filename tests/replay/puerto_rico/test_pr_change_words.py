""""What changed" in Puerto Rico's words, from the stored rows of two steps (``dashboards.diff`` with
``replay/puerto_rico/change_words.py``): player names, no column names."""

from __future__ import annotations

from dashboards.diff import changes_text, step_changes
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import Build, ChooseRole, Load, Pass, Settle

from .positions import C, I, S, at_role, defaults, play, seat

NAMES = ["Ana", "Bruno", "Carla"]


def rows(state):
    return dict(ENGINE.global_row(state)), [dict(r, seat=i) for i, r in enumerate(ENGINE.player_rows(state))]


def changes(before, after, public=False):
    (g0, p0), (g1, p1) = rows(before), rows(after)
    return changes_text(step_changes("puerto_rico", g0, g1, p0, p1, NAMES, public=public))


def test_a_build_speaks_of_buildings_doubloons_and_the_bank():
    start = play(at_role([seat(doubloons=5), seat(), seat()], 0), ChooseRole("builder"))
    built = play(start, Build("Hacienda"))
    assert changes(start, built) == (
        "Table: role builder \u2192 \u2013, bank 50 \u2192 51\n"
        "Ana: +Hacienda, VP 0 \u2192 1, doubloons 5 \u2192 4"
    )


def test_a_load_speaks_of_ships_barrels_and_chips():
    players = [seat(goods={C: 2, I: 1}), seat(goods={S: 1}), seat()]
    start = play(at_role(players, 0, ships=[(None, 0), (None, 0), (None, 0)]), ChooseRole("captain"))
    loaded = play(start, Load(C, 0))
    assert changes(start, loaded) == (
        "Table: the 4-ship: empty \u2192 2 corn, VP chips left 75 \u2192 72\nAna: VP 0 \u2192 3, \u22122 corn"
    )
    assert changes(start, loaded, public=True) == (
        "Table: the 4-ship: empty \u2192 2 corn, VP chips left 75 \u2192 72\nAna: \u22122 corn"
    )


def test_a_settler_takes_a_plantation():
    start = play(at_role([seat(), seat(), seat()], 0), ChooseRole("settler"))
    settled = play(start, Settle("coffee"))
    assert changes(start, settled) == "Table: face-up plantations: \u2212coffee\nAna: +coffee plantation"


def test_round_end_and_production_speak_of_role_doubloons_and_the_supply():
    producer = seat(island=["corn"])
    start = at_role([producer, seat(), seat()], 1, roles_taken=(("builder", 1), ("mayor", 2)))
    # Ana's production is left to its default (taken) within the step, as a log that says nothing does.
    after = defaults(play(start, ChooseRole("craftsman")))
    assert changes(start, after) == (
        "Table: role \u2013 \u2192 craftsman, roles taken: +craftsman, supply of corn 10 \u2192 9\nAna: +1 corn"
    )
    ended = play(after, Pass())
    assert changes(after, ended) == (
        "Table: round 1 \u2192 2, governor Bruno \u2192 Carla, role craftsman \u2192 \u2013, roles taken: "
        "\u2212builder, \u2212mayor, \u2212craftsman, doubloons on settler 0 \u2192 1, doubloons on trader 0 \u2192 1, "
        "doubloons on captain 0 \u2192 1, bank 50 \u2192 47"
    )
