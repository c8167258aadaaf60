"""The mayor's lazy list of arrangements against brute force, and membership."""

from __future__ import annotations

from itertools import product

import pytest

from replay.puerto_rico.arrangements import Arrangements, bins_of, colonists_to_place
from replay.puerto_rico.moves import Mayor

from .positions import seat


def brute_force(player) -> set[Mayor]:
    bins = bins_of(player)
    to_place = colonists_to_place(player)[2]
    out = set()
    for counts in product(*(range(cap + 1) for _, cap, _ in bins)):
        if sum(counts) != to_place:
            continue
        tiles = {name: n for (name, _, is_tile), n in zip(bins, counts) if is_tile}
        buildings = {name: n for (name, _, is_tile), n in zip(bins, counts) if not is_tile}
        out.add(Mayor.of(tiles, buildings))
    return out


@pytest.mark.parametrize(
    "player, count",
    [
        (seat(island=["corn", "indigo"], occupied=[0, 0], city=["Indigo plant"], workers=[0], san_juan=2), 4),
        (seat(island=["corn", "corn", "coffee", "quarry"], city=["Coffee roaster", "Harbor", "Guild hall"],
              workers=[1, 0, 0], san_juan=1), 17),
        (seat(island=["sugar"] * 3 + ["tobacco"] * 2, occupied=[0] * 5,
              city=["Sugar mill", "Tobacco storage", "Small market", "Factory"], workers=[0, 0, 0, 0], san_juan=6),
         130),
    ],
)
def test_arrangements_match_brute_force(player, count: int) -> None:
    arrangements = Arrangements(bins_of(player), colonists_to_place(player)[2])
    listed = list(arrangements)
    assert len(arrangements) == len(listed) == count
    assert len(set(listed)) == count
    assert set(listed) == brute_force(player)
    assert arrangements[-1] == listed[-1] and arrangements[1:3] == listed[1:3]
    assert all(m in arrangements for m in listed[:: max(1, count // 7)])
    assert Mayor.of({"corn": 9}, {}) not in arrangements
    with pytest.raises(IndexError):
        arrangements[count]
