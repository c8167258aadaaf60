"""Writes ``declines.json``: a complete San Juan game in which players decline every optional power at
least once (issue 9), and ``declines.txt``, its golden replay text.

Run ``python tests/replay/san_juan/data/make_declines_log.py`` to regenerate both. Every seat plays like the
heuristic bot, but prefers to build the buildings whose power can be declined and declines each kind
of power the first times it applies (the carpenter's, poor house's, well's, market stand's and market
hall's card, a gold mine, the councillor's and prospector's privileges, another seat's councillor draw,
the prefecture's second card and the archive). ``tests/replay/san_juan/test_sj_declines.py`` replays the log and checks each declined
power against the same move with the power used.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
# The decliner subclasses the heuristic bot, which a compiled class cannot be: pure-Python engines.
os.environ["GOVERNOR_PURE"] = "1"

from replay.golden import render_golden  # noqa: E402
from replay.logfile import parse_game, write_games  # noqa: E402
from replay.registry import engine_for  # noqa: E402
from replay.san_juan import rules  # noqa: E402
from replay.san_juan.bots import HeuristicPlayer  # noqa: E402
from replay.san_juan.cards import Role  # noqa: E402
from replay.san_juan.moves import Build, ChooseRole, Councillor, Produce, SanJuanMove, Sell  # noqa: E402
from replay.san_juan.state import SanJuanState, Stage  # noqa: E402

ENGINE = engine_for("san_juan")
NAMES = ("Ana", "Bruno", "Carla")
TARGETS = ("Carpenter", "Poor house", "Well", "Market stand", "Market hall", "Gold mine", "Prefecture", "Archive")
#: Every kind of decline the game must hold, and how often each may be declined (then powers are used).
KINDS = ("Carpenter", "Poor house", "Well", "Market stand", "Market hall", "Gold mine", "privilege councillor",
         "privilege prospector", "councillor draw", "Prefecture", "Archive")
TIMES = 2


class Decliner(HeuristicPlayer):
    """The heuristic player, steered towards the declinable buildings and declining their powers."""

    def __init__(self, seed: int, declined: Counter[str]) -> None:
        super().__init__(seed)
        self.declined = declined

    def _want(self, kind: str) -> bool:
        return self.declined[kind] < TIMES

    def choose(self, state: SanJuanState) -> SanJuanMove:
        move = super().choose(state)
        seat = state.current_seat
        assert seat is not None
        legal = rules.legal_moves(state)
        owned = state.players[seat].buildings
        if isinstance(move, Build):
            targets = [m for m in legal if isinstance(m, Build) and m.building in TARGETS and m.building not in owned
                       and not m.decline]
            if targets:
                move = targets[0]
            for kinds in (("Poor house", "Carpenter"), ("Carpenter",), ("Poor house",)):
                variant = replace(move, decline=tuple(k for k in kinds if self._want(k)))
                if variant.decline and variant in legal:
                    return self._note(variant, *variant.decline)
        if isinstance(move, (Produce, Sell)):
            for kinds in (("Market stand", "Market hall"), ("Well",), ("Market stand",), ("Market hall",)):
                variant = replace(move, decline=tuple(k for k in kinds if self._want(k)))
                if variant.decline and variant in legal:
                    return self._note(variant, *variant.decline)
        if isinstance(move, ChooseRole):
            owners = [s for s, p in enumerate(state.players) if "Gold mine" in p.buildings]
            if self._want("Gold mine") and owners and Role.PROSPECTOR in [m.role for m in legal]:
                return self._note(ChooseRole(Role.PROSPECTOR, gold_mine_declined=(owners[0],)), "Gold mine")
            if move.role is Role.COUNCILLOR and self._want("councillor draw"):
                # The next seat refrains from the councillor's action: it draws nothing this phase.
                variant = ChooseRole(Role.COUNCILLOR, councillor_refrained=((seat + 1) % len(state.players),))
                if variant in legal:
                    return self._note(variant, "councillor draw")
            for role in (Role.COUNCILLOR, Role.PROSPECTOR):
                variant = ChooseRole(role, privilege=False)
                if move.role is role and self._want(f"privilege {role.value}") and variant in legal:
                    return self._note(variant, f"privilege {role.value}")
        if isinstance(move, Councillor) and state.stage is Stage.PHASE:
            if "Archive" in owned and self._want("Archive"):
                keep = Councillor(keep=state.looking[:1])
                if keep in legal:
                    return self._note(keep, "Archive")
            if "Prefecture" in owned and self._want("Prefecture") and len(state.looking) >= 2 and "Archive" not in owned:
                return self._note(Councillor(keep=(move.keep or state.looking)[:1]), "Prefecture")
        return move

    def _note(self, move: SanJuanMove, *kinds: str) -> SanJuanMove:
        self.declined.update(kinds)
        return move


def play(seed: int) -> tuple[dict[str, Any], Counter[str]]:
    """One game from ``seed`` and the declines it holds."""
    log = ENGINE.new_random_game(NAMES, seed, {})
    state = ENGINE.simulation_state(log, seed)
    declined: Counter[str] = Counter()
    bots = [Decliner(seed * 10 + s, declined) for s in range(len(NAMES))]
    moves: list[dict[str, Any]] = []
    while not ENGINE.is_over(state) and len(moves) < 2000:
        seat = ENGINE.current_seat(state)
        move = bots[seat].choose(state)
        state = ENGINE.apply(state, move)
        moves.append({"seat": seat, **move.to_json()})
    obj = ENGINE.finish_log(log, state, moves)
    obj["source_id"] = f"declines-seed{seed}"
    obj["meta"] = {"generator": "tests/replay/san_juan/data/make_declines_log.py", "seed": seed}
    return obj, declined


def main() -> None:
    for seed in range(1, 500):
        obj, declined = play(seed)
        if all(declined[k] for k in KINDS):
            break
    else:
        raise SystemExit("no seed below 500 declines every power")
    write_games(HERE / "declines.json", [obj])
    record = parse_game(json.loads((HERE / "declines.json").read_text(encoding="utf-8")), file="declines.json")
    (HERE / "declines.txt").write_text(render_golden(record, source="tests/replay/san_juan/data/declines.json"), encoding="utf-8")
    print(f"seed {seed}: {dict(declined)}")


if __name__ == "__main__":
    main()
