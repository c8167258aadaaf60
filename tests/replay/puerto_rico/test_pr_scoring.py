"""Scoring: chips, printed VP, each large building's bonus (only when occupied), and the tie-break."""

from __future__ import annotations

import pytest

from replay.puerto_rico import scoring
from replay.puerto_rico.engine import ENGINE

from .positions import C, I, at_role, seat

PARTS = ("chips", "buildings", "guild_hall", "residence", "fortress", "customs_house", "city_hall")


def parts(player) -> dict[str, int]:
    score = scoring.score_player(player)
    assert set(score.parts) == set(PARTS)
    assert score.total == sum(score.parts.values())
    return {k: v for k, v in score.parts.items() if v}


def test_guild_hall() -> None:
    city = ["Small indigo plant", "Small sugar mill", "Indigo plant", "Coffee roaster", "Guild hall"]
    assert parts(seat(city=city)) == {"buildings": 11, "guild_hall": 6}
    assert parts(seat(city=city, workers=[1, 1, 3, 2, 0])) == {"buildings": 11}


@pytest.mark.parametrize("tiles, bonus", [(0, 4), (9, 4), (10, 5), (11, 6), (12, 7)])
def test_residence(tiles: int, bonus: int) -> None:
    assert parts(seat(island=["corn"] * tiles, occupied=[0] * tiles, city=["Residence"])) == {
        "buildings": 4, "residence": bonus
    }


def test_fortress_counts_every_colonist() -> None:
    player = seat(island=["corn"] * 6, city=["Fortress"], san_juan=3)
    assert player.colonists == 10
    assert parts(player) == {"buildings": 4, "fortress": 3}
    assert parts(seat(island=["corn"] * 6, city=["Fortress"], workers=[0], san_juan=3)) == {"buildings": 4}


def test_customs_house() -> None:
    assert parts(seat(city=["Customs house"], vp_chips=17)) == {"chips": 17, "buildings": 4, "customs_house": 4}


def test_city_hall() -> None:
    player = seat(city=["City hall", "Small market", "Harbor", "Indigo plant"], workers=[1, 0, 0, 0])
    assert parts(player) == {"buildings": 4 + 1 + 3 + 2, "city_hall": 3}


def test_tie_break_doubloons_plus_goods() -> None:
    a = seat(doubloons=3, goods={C: 1, I: 1}, vp_chips=10)
    b = seat(doubloons=5, vp_chips=10)
    c = seat(doubloons=9, vp_chips=9)
    state = at_role([a, b, c], 0)
    assert [s.tiebreak for s in scoring.scores(state)] == [5, 5, 9]
    assert ENGINE.winners(state) == [0, 1]
    d = seat(doubloons=6, vp_chips=10)
    assert ENGINE.winners(at_role([a, b, d], 0)) == [2]
