"""San Juan scoring: printed VP, chapel cards, each bonus building, the palace counted last, the
worked 42-VP example and the tie-break (hand plus goods)."""

from __future__ import annotations

import pytest

from replay.san_juan.engine import ENGINE
from replay.san_juan.scoring import score_player, scores
from replay.san_juan.state import Stage

from .positions import CR, IP, SM, SS, TS, position, seat

PARTS = ("buildings", "chapel", "guild_hall", "city_hall", "triumphal_arch", "palace")


def parts(player):
    score = score_player(player)
    return score.total, [score.parts[k] for k in PARTS]


def test_printed_vp_of_every_building_is_added():
    player = seat(buildings=(IP, SM, TS, CR, SS, "Smithy", "Tower", "Library", "Statue", "Victory column", "Hero"))
    assert parts(player) == (1 + 1 + 2 + 2 + 3 + 1 + 2 + 3 + 3 + 4 + 5, [27, 0, 0, 0, 0, 0])


def test_chapel_cards_are_one_vp_each_whatever_they_are():
    player = seat(buildings=(IP, "Chapel"), chapel=("Palace", IP, "Hero"))
    assert parts(player) == (1 + 2 + 3, [3, 3, 0, 0, 0, 0])


def test_chapel_cards_still_count_when_the_chapel_is_covered():
    player = seat(buildings=(IP, "Tower", "Crane"), covered=("Chapel",), chapel=("Hero", "Hero"))
    assert parts(player) == (1 + 2 + 1 + 2, [4, 2, 0, 0, 0, 0])


def test_covered_buildings_and_goods_and_hand_score_nothing():
    player = seat(hand=("Hero",) * 5, buildings=(SS, "Crane"), goods={0: "Hero"}, covered=("Hero", "Palace"))
    assert parts(player) == (3 + 1, [4, 0, 0, 0, 0, 0])


def test_guild_hall_two_per_production_building():
    player = seat(buildings=(IP, IP, SS, "Guild hall", "Smithy"))
    assert parts(player) == (1 + 1 + 3 + 0 + 1 + 6, [6, 0, 6, 0, 0, 0])


def test_city_hall_one_per_violet_building_itself_included():
    player = seat(buildings=(IP, SM, "City hall", "Smithy", "Hero"))
    assert parts(player) == (1 + 1 + 0 + 1 + 5 + 3, [8, 0, 0, 3, 0, 0])


@pytest.mark.parametrize(
    ("monuments", "bonus"),
    [((), 0), (("Statue",), 4), (("Statue", "Hero"), 6), (("Statue", "Victory column", "Hero"), 8)],
)
def test_triumphal_arch_by_monuments(monuments, bonus):
    player = seat(buildings=(IP, "Triumphal arch", *monuments))
    printed = 1 + sum({"Statue": 3, "Victory column": 4, "Hero": 5}[m] for m in monuments)
    assert parts(player) == (printed + bonus, [printed, 0, 0, 0, bonus, 0])


def test_monuments_score_nothing_extra_without_the_arch():
    player = seat(buildings=(IP, "Statue", "Victory column", "Hero"))
    assert parts(player) == (13, [13, 0, 0, 0, 0, 0])


def test_palace_one_per_full_four_vp():
    assert parts(seat(buildings=(SS, "Palace")))[0] == 3  # 3 // 4 = 0
    assert parts(seat(buildings=(SS, IP, "Palace")))[0] == 5  # 4 + 1
    assert parts(seat(buildings=(SS, SS, IP, IP, "Palace")))[0] == 8 + 2  # 8 + 2
    assert parts(seat(buildings=(SS, SS, SS, IP, IP, "Palace")))[0] == 11 + 2  # 11 + 2 (rounded down)


def test_palace_counts_last_after_every_other_bonus():
    player = seat(
        buildings=(IP, "City hall", "Palace", "Hero", "Victory column", "Statue", "Triumphal arch", "Chapel"),
        chapel=("Hero",),
    )
    # Printed 1 + 5 + 4 + 3 + 2 = 15, chapel 1, city hall 7 violets, arch 8: 31; palace 31 // 4 = 7.
    assert parts(player) == (38, [15, 1, 0, 7, 8, 7])


def test_worked_example_forty_two():
    """3 production and 8 violet buildings worth 25 VP, guild hall and palace among them, 3 chapel
    cards: 25 + 6 + 3 = 34, palace 34 // 4 = 8, total 42."""
    buildings = (SS, CR, CR, "Guild hall", "Palace", "Chapel", "Hero", "Victory column", "Statue", "Library", "Smithy")
    player = seat(buildings=buildings, chapel=(IP, "Hero", "Palace"))
    assert sum(1 for b in buildings if b in (SS, CR)) == 3 and len(buildings) == 11
    assert parts(player) == (42, [25, 3, 6, 0, 0, 8])


def _game_over(*players):
    return position(players, stage=Stage.OVER)


def test_winner_has_the_most_vp():
    state = _game_over(seat(buildings=(SS,)), seat(buildings=(CR,), hand=("Hero",) * 5))
    assert [s.total for s in scores(state)] == [3, 2]
    assert ENGINE.winners(state) == [0]


def test_tie_break_cards_in_hand_plus_goods():
    state = _game_over(
        seat(buildings=(SS,), hand=("Hero",) * 2),
        seat(buildings=(IP, TS), hand=("Hero",), goods={0: "Well", 1: "Crane"}),
    )
    assert [(s.total, s.tiebreak) for s in scores(state)] == [(3, 2), (3, 3)]
    assert ENGINE.winners(state) == [1]


def test_full_tie_shares_the_win():
    state = _game_over(seat(buildings=(SS,), hand=("Hero",)), seat(buildings=(SS,), goods={0: "Well"}), seat())
    assert ENGINE.winners(state) == [0, 1]
