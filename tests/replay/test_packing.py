"""replay/packing.py: the observation vectors' shared packing (a table, then a block per seat)."""

from __future__ import annotations

import numpy as np
import pytest

from replay.packing import SeatVector, check_seat


def test_a_vector_is_the_table_then_the_seats_blocks_and_zeros_for_seats_missing() -> None:
    packing = SeatVector(2, 3, max_seats=3)
    me, other = object(), object()
    blocks = [packing.keep(id(me), me, [1, 2, 3]), packing.keep(id(other), other, [4, 5, 6])]
    vector = packing.vector([7.5, 8], blocks)
    assert vector.dtype == np.float32
    assert vector.tolist() == [7.5, 8, 1, 2, 3, 4, 5, 6, 0, 0, 0]
    assert packing.vector([7.5, 8], blocks) is not vector  # a new array each call


def test_a_block_is_known_only_for_the_very_record_it_was_made_for() -> None:
    packing = SeatVector(1, 1, max_seats=2, keep=2)
    first, second, third = object(), object(), object()
    block = packing.keep("a", first, [3])
    assert packing.known("a", first) is block
    assert packing.known("a", second) is None  # the same key, another record (an id reused)
    assert packing.known("b", first) is None
    packing.keep("b", second, [4])
    packing.keep("c", third, [5])  # past ``keep``: the ones kept are let go
    assert (packing.known("a", first), packing.known("b", second)) == (None, None)
    assert packing.known("c", third) == np.float32(5).tobytes()


def test_a_seat_the_game_does_not_have_is_an_index_error() -> None:
    check_seat(0, 2)
    check_seat(1, 2)
    for seat in (-1, 2):
        with pytest.raises(IndexError, match=rf"^seat {seat} is not in a 2-player game$"):
            check_seat(seat, 2)


def test_the_vectors_of_several_observers_are_each_ones_vector() -> None:
    packing = SeatVector(2, 3, max_seats=3)
    me, other = object(), object()
    blocks = [packing.keep(id(me), me, [1, 2, 3]), packing.keep(id(other), other, [4, 5, 6])]
    rows = [([7.5, 8], blocks), ([9, 10], blocks[::-1])]
    both = packing.vectors(rows)
    assert both.dtype == np.float32 and both.flags.writeable
    assert both.tolist() == [packing.vector(*row).tolist() for row in rows]
    assert both.tolist()[1] == [9, 10, 4, 5, 6, 1, 2, 3, 0, 0, 0]
