"""The words every game's descriptions share."""

from __future__ import annotations

from replay.engine_base import winners_of
from replay.protocol import Score
from replay.words import and_list, plural, seat_name


def test_a_list_is_joined_with_commas_and_a_last_and() -> None:
    assert and_list([]) == ""
    assert and_list([], empty="nothing") == "nothing"
    assert and_list(["corn"]) == "corn"
    assert and_list(["corn", "sugar"]) == "corn and sugar"
    assert and_list(iter(["Ana", "Bruno", "Carla"])) == "Ana, Bruno and Carla"


def test_a_count_takes_its_plural_past_one() -> None:
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]


def test_a_seat_the_names_do_not_cover_is_called_by_its_number() -> None:
    names = ["Ana", "Bruno"]
    assert [seat_name(names, s) for s in (0, 1, 2, -1, None)] == ["Ana", "Bruno", "Seat 2", "Seat -1", "Seat None"]


def test_the_winners_have_the_most_points_then_the_highest_tie_break() -> None:
    assert winners_of([Score(10, tiebreak=3), Score(12, tiebreak=0), Score(12, tiebreak=1)]) == [2]
    assert winners_of([Score(12, tiebreak=1), Score(9), Score(12, tiebreak=1)]) == [0, 2]
