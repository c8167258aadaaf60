"""The mayor's choices: every way to place a seat's colonists, as a lazy sequence.

A late-game seat may have hundreds of thousands of arrangements, so ``legal_moves`` returns this
sequence rather than a list: it has a length, indexes in a fixed order (unranking through a table of
counts), iterates, and tests membership without building the list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, overload

from replay.puerto_rico.catalogue import BUILDING_ORDER, BUILDINGS, TILE_KINDS, TILE_ORDER
from replay.puerto_rico.moves import Mayor
from replay.puerto_rico.state import MPlayer, PlayerState


def bins_of(player: PlayerState | MPlayer) -> list[tuple[str, int, bool]]:
    """The places a colonist can go: ``(name, capacity, is_tile)``, tiles by kind first (tile order),
    then buildings (catalogue order)."""
    counts = [0] * len(TILE_KINDS)
    for kind in player.island:
        counts[TILE_ORDER[kind]] += 1
    out = [(TILE_KINDS[i], n, True) for i, n in enumerate(counts) if n]
    out += [(b, BUILDINGS[b].circles, False) for b in sorted(player.city, key=BUILDING_ORDER.__getitem__)]
    return out


def colonists_to_place(player: PlayerState | MPlayer) -> tuple[int, int, int]:
    """``(owned, circles, to_place)``: every colonist owned, the circles on the seat's tiles and
    buildings, and how many must be placed (all of them, or every circle when there are more)."""
    owned = player.san_juan + sum(player.island_workers) + sum(player.city_workers)
    circles = len(player.island) + sum(BUILDINGS[b].circles for b in player.city)
    return owned, circles, min(owned, circles)


@lru_cache(maxsize=4096)
def _ways(caps: tuple[int, ...], count: int) -> tuple[tuple[int, ...], ...]:
    """``ways[i][c]``: the ways to place ``c`` colonists on bins ``i..`` (bin ``i`` holding up to
    ``caps[i]``). Seats keep the same few layouts, so tables are shared between calls (read only)."""
    ways: list[tuple[int, ...]] = [(1,) + (0,) * count]
    for cap in reversed(caps):
        nxt = ways[-1]
        # row[c] = nxt[c] + nxt[c-1] + ... + nxt[c-cap]: a running window sum.
        row = []
        window = 0
        for c in range(count + 1):
            window += nxt[c]
            if c > cap:
                window -= nxt[c - cap - 1]
            row.append(window)
        ways.append(tuple(row))
    ways.reverse()
    return tuple(ways)


class Arrangements(Sequence[Mayor]):
    """Every legal ``Mayor`` move of one seat, in a fixed order (earlier places filled first)."""

    def __init__(self, bins: list[tuple[str, int, bool]], count: int) -> None:
        self.bins = bins
        self.to_place = count
        self._ways = _ways(tuple(cap for _, cap, _ in bins), count)

    def __len__(self) -> int:
        return self._ways[0][self.to_place]

    def _unrank(self, index: int) -> Mayor:
        plantations: dict[str, int] = {}
        buildings: dict[str, int] = {}
        left = self.to_place
        for i, (name, cap, is_tile) in enumerate(self.bins):
            nxt = self._ways[i + 1]
            for v in range(min(cap, left), -1, -1):
                ways = nxt[left - v]
                if index < ways:
                    break
                index -= ways
            if v:
                (plantations if is_tile else buildings)[name] = v
            left -= v
        return Mayor.of(plantations, buildings)

    @overload
    def __getitem__(self, index: int) -> Mayor: ...

    @overload
    def __getitem__(self, index: slice) -> list[Mayor]: ...

    def __getitem__(self, index: int | slice) -> Mayor | list[Mayor]:
        if isinstance(index, slice):
            return [self._unrank(i) for i in range(*index.indices(len(self)))]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("arrangement index out of range")
        return self._unrank(index)

    def __iter__(self) -> Iterator[Mayor]:
        for i in range(len(self)):
            yield self._unrank(i)

    def __contains__(self, move: Any) -> bool:
        if not isinstance(move, Mayor):
            return False
        caps = {name: cap for name, cap, _ in self.bins}
        tiles = {name for name, _, is_tile in self.bins if is_tile}
        total = 0
        for name, n in move.plantations:
            if name not in tiles or n > caps[name]:
                return False
            total += n
        for name, n in move.buildings:
            if name in tiles or name not in caps or n > caps[name]:
                return False
            total += n
        return total == self.to_place

    def __repr__(self) -> str:
        return f"Arrangements({len(self)} ways to place {self.to_place})"
