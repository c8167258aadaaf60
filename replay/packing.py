"""The packing every game's observation vector shares (a game's ``spaces`` module, for the
environments): a part for the table, then one block per seat in turn order from the observer, made as
float32 bytes and viewed by numpy. The layout of each part (``replay.layout``) and what goes in it are
the game's; how the parts are packed, and the seat blocks already made kept for the next steps, are
here. Needs numpy (the environments' extra), as the spaces modules do."""

from __future__ import annotations

import struct
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np


def check_seat(seat: int, players: int) -> None:
    """Raise ``IndexError`` unless ``seat`` is a seat of a ``players``-player game."""
    if not 0 <= seat < players:
        raise IndexError(f"seat {seat} is not in a {players}-player game")


class SeatVector:
    """A vector of ``table_size`` values, then ``max_seats`` blocks of ``block_size`` values (a seat
    the game does not have is left zero).

    The vector is made as float32 bytes (``struct``: a third of numpy's cost of converting a list) and
    viewed by numpy. A move changes one or two seats; the others keep their (immutable) record and so
    their block, kept here by a key of the game's (the record's id, and whatever else the block depends
    on) beside the record itself, so the id is not reused while the entry lives; at most ``keep``
    blocks are kept (all are let go at once past that)."""

    def __init__(self, table_size: int, block_size: int, max_seats: int, *, keep: int = 4096) -> None:
        self.table_size = table_size
        self.block_size = block_size
        self._table = struct.Struct(f"={table_size}f")
        self._block = struct.Struct(f"={block_size}f")
        self._vector_bytes = 4 * (table_size + max_seats * block_size)
        self._zeros = bytes(self._vector_bytes)
        self._keep = keep
        self._blocks: dict[Hashable, tuple[Any, bytes]] = {}

    def known(self, key: Hashable, record: object) -> bytes | None:
        """The block kept for ``key`` if it was made for ``record`` itself, else None."""
        entry = self._blocks.get(key)
        if entry is not None and entry[0] is record:
            return entry[1]
        return None

    def keep(self, key: Hashable, record: object, values: Sequence[float]) -> bytes:
        """``values`` packed as a seat's block, kept for ``key`` and ``record``; returns the block."""
        block = self._block.pack(*values)
        if len(self._blocks) >= self._keep:
            self._blocks.clear()
        self._blocks[key] = (record, block)
        return block

    def vector(self, table: Sequence[float], blocks: Iterable[bytes]) -> np.ndarray:
        """The vector of the table's values and the seats' blocks (in turn order from the observer):
        a new array each call."""
        # One join and one copy into a zeroed buffer (a writable array: a caller may change it).
        packed = self._table.pack(*table) + b"".join(blocks)
        vector = bytearray(self._vector_bytes)
        vector[:len(packed)] = packed
        return np.frombuffer(vector, dtype=np.float32)

    def vectors(self, rows: Sequence[tuple[Sequence[float], Sequence[bytes]]]) -> np.ndarray:
        """The vectors of several observers at once, an array (len(rows), size) whose row ``i`` is
        ``vector(*rows[i])``: one buffer for all (a new, writable array each call)."""
        parts: list[bytes] = []
        for table, blocks in rows:
            parts.append(self._table.pack(*table))
            parts.extend(blocks)
            # The seats the game does not have (every block is ``block_size`` values): zeros.
            parts.append(self._zeros[:self._vector_bytes - 4 * (self.table_size + len(blocks) * self.block_size)])
        return np.frombuffer(bytearray(b"".join(parts)), dtype=np.float32).reshape(len(rows), -1)
