"""The fill's fast path gives the shipped models' very numbers: the whole view's rows made from every
seat's vector at once are ``Features.everything``'s byte for byte, and the chances of a sample game of
each game and player count are the ones the fill gave before it was made fast (their SHA-256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from analysis.winchance.fill import Encoder, Models, game_chances
from analysis.winchance.model import load
from analysis.winchance.predict import result_shares
from replay.logfile import parse_game
from replay.registry import engine_for, spaces_for
from replay.replayer import iter_replay

SAMPLES = Path(__file__).resolve().parents[3] / "sample_logs"

#: The chances (float64, little-endian, (steps + 1, players)) of the shipped models at every step of one
#: sample game of each, as the fill computed them one game and one seat's vector at a time (models
#: rebuilt give other numbers: then these are rewritten from ``the_fill_gives_what_one_game_alone_gives``,
#: which holds for any model).
BEFORE = {
    "puerto_rico/puerto_rico-3p-seed2026-0000.json": ((155, 3), "63e9a966614ab7c3edee5c2da6703f25af41ac823b19104a1f13373203754ec5"),
    "puerto_rico/puerto_rico-4p-seed2026-0001.json": ((211, 4), "9c673d46f4d4d387b952270482ed87545adfac94a084fa45b8bb47f42d9d17b3"),
    "puerto_rico/puerto_rico-5p-seed2026-0002.json": ((241, 5), "b2415499f3e31801f7e7281d4b789b321e58d4ad93297080e0ee0bfcaa5872c5"),
    "san_juan/san_juan-2p-seed2026-0000.json": ((118, 2), "8eea8127a8f8901d186aa99eb767cc02839e43f8b285fdc49456644d87515354"),
    "san_juan/san_juan-3p-seed2026-0001.json": ((187, 3), "61afdf1aa2c635152f5b7bd2b67692a68a0928f01dd8445d68ef2658179ca12e"),
    "san_juan/san_juan-4p-seed2026-0002.json": ((230, 4), "f93a4bd8cbdda0a7e44de309c093e0036a39ca830c6c716d5130be5ead33bea0"),
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_the_shipped_models_give_a_sample_games_numbers_as_before(name: str) -> None:
    found = game_chances(Models(None), (SAMPLES / name).read_text())
    assert found is not None
    shape, digest = BEFORE[name]
    assert found[1].shape == shape
    assert hashlib.sha256(np.ascontiguousarray(found[1], dtype="<f8").tobytes()).hexdigest() == digest


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_the_fill_gives_what_one_game_alone_gives(name: str) -> None:
    # The fill before it was made fast: every position's rows from Features.everything, one call of the
    # trees for the game, the result at its end.
    text = (SAMPLES / name).read_text()
    log = parse_game(json.loads(text))
    model = load(log.game, len(log.players))
    engine = engine_for(log.game)
    states = [state for state, _ in iter_replay(log, require_complete=False, describe=False, steps=False)]
    playing = [i for i, state in enumerate(states) if not engine.is_over(state)]
    expected = np.zeros((len(states), model.players))
    for i, state in enumerate(states):
        if engine.is_over(state):
            expected[i] = result_shares(engine, state)
    rows = np.concatenate([model.features.everything(states[i]) for i in playing])
    expected[playing] = model.views["everything"].chances(rows, model.players)
    found = game_chances(Models(None), text)
    assert found is not None and found[1].tobytes() == expected.tobytes()


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_the_whole_views_rows_from_every_seats_vector_are_the_features_rows(name: str) -> None:
    log = parse_game(json.loads((SAMPLES / name).read_text()))
    features = load(log.game, len(log.players)).features
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    codec = spaces_for(log.game)
    fast = features.whole_rows(np.stack([codec.encode_seats(state) for state in states]))
    assert fast.tobytes() == np.concatenate([features.everything(state) for state in states]).tobytes()


def test_an_encoding_that_does_not_give_the_features_rows_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # Should the features change and a game's encode_seats not follow, the features' own rows are used.
    name = "san_juan/san_juan-2p-seed2026-0000.json"
    log = parse_game(json.loads((SAMPLES / name).read_text()))
    model = load(log.game, len(log.players))
    engine = engine_for(log.game)
    states = [state for state, _ in iter_replay(log, describe=False, steps=False) if not engine.is_over(state)]
    encoder = Encoder(model)
    assert encoder.seats is not None
    encoder.seats = lambda state: spaces_for(log.game).encode_seats(state)[::-1].copy()  # seats in another order
    assert encoder.rows(states).tobytes() == np.concatenate([model.features.everything(s) for s in states]).tobytes()
    assert encoder.seats is None
