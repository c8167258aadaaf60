"""The game's text of a view (``Engine.render_view``): the whole state's text is the one ``governor
replay`` prints, and a seat's view of it shows nothing that seat may not see."""

from __future__ import annotations

import pytest

from ingest.sources import find_logs
from replay.log_reader import read_records
from replay.protocol import Viewer
from replay.registry import engine_for, view_for
from replay.replayer import iter_replay
from tests.hostile import ROOT


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_the_text_of_everything_is_render_and_a_seat_sees_its_own(game: str) -> None:
    engine, view = engine_for(game), view_for(game)
    record = next(read_records(find_logs([ROOT / "sample_logs" / game]).files[0]))
    assert record.log is not None
    names = list(record.log.players)
    for number, (state, _) in enumerate(iter_replay(record.log, describe=False)):
        assert engine.render_view(engine.to_view(state, names), names) == engine.render(state, names)
        if number % 10:
            continue
        for seat in range(len(names)):
            text = engine.render_view(view.view_state(state, Viewer.of_seat(seat), names), names)
            for other, player in enumerate(state.players):
                line = next(line for line in text.split("\n") if line.startswith(f"{names[other]} (seat {other})"))
                if game == "san_juan":
                    hand = text.split(line)[1].split("\n")[2]
                    assert hand == (f"  hand ({len(player.hand)}): {', '.join(player.hand) or '-'}" if other == seat
                                    else f"  hand ({len(player.hand)})")
                elif not engine.is_over(state):
                    assert ("VP chips face down" in line) == (other != seat)
