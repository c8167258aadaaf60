"""Climb's engine: Governor's protocol (``replay.protocol.Engine``) over the rules of this package."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from replay.engine_base import RulesEngine
from replay.logfile import GameLog
from replay.protocol import Engine, Rules
from toy_game import GAME, rules
from toy_game.bots import HeuristicPlayer
from toy_game.moves import Climb, Draw, Rest, Stay, ToyMove, parse_move
from toy_game.state import Seat, Stage, ToyState

_values = pa.list_(pa.int8())

_EVENT_WORDS = {"pile_empty": "the pile is empty: this is the last round", "over": "the game ends; hands are shown"}


class _EventWords:
    """``describe`` for ``RulesEngine.automatic_events``: the events ``rules.apply`` records, in words."""

    @staticmethod
    def describe(events: Sequence[str], names: Sequence[str]) -> list[str]:
        del names
        return [_EVENT_WORDS[e] for e in events]


def _a(card: int) -> str:
    """The card with its article, as it is said: "a 7", "an 8"."""
    return f"an {card}" if card == 8 else f"a {card}"


def _name(names: Sequence[str], seat: int | None) -> str:
    return names[seat] if seat is not None and seat < len(names) else f"Seat {seat}"


class ToyEngine(RulesEngine):
    """Climb for 2 to 4 players."""

    declaration = GAME
    rules = rules
    scoring = rules
    event_words = _EventWords  # type: ignore[assignment]
    parse = staticmethod(parse_move)
    over = Stage.OVER
    change_words: dict[str, Any] = {
        "global": {"round": ("value", "round"), "pile": ("value", "pile")},
        "player": {"vp": ("value", "score"), "hand_size": ("value", "hand"), "hand": ("items", "hand cards"),
                   "ladder": ("items", "ladder")},
    }

    global_schema = pa.schema([("round", pa.int32()), ("stage", pa.string()), ("to_act", pa.int8()),
                               ("pile", pa.int32())])
    player_schema = pa.schema([("vp", pa.int32()), ("ladder", _values), ("ladder_top", pa.int8()),
                               ("hand", _values), ("hand_size", pa.int32())])

    def end_reason(self, state: ToyState) -> str | None:
        """``pile_empty`` or ``rounds`` once over, else None."""
        if state.stage is not Stage.OVER:
            return None
        return "pile_empty" if not state.pile else "rounds"

    def buildings_of(self, state: ToyState) -> list[list[str]]:
        """Climb has no buildings: an empty list for each seat."""
        return [[] for _ in state.players]

    def step_info(self, state: ToyState) -> dict[str, Any]:
        # Seat 0 starts every round; the moves table's ``role`` holds the decision (draw or climb).
        return {"round": state.round, "governor": 0, "role": state.stage.value if state.stage is not Stage.OVER else None}

    def deciders(self, state: ToyState, move: ToyMove) -> tuple[int, ...]:
        """No move of Climb carries another seat's choice."""
        return ()

    def with_others_from(self, state: ToyState, move: ToyMove, seat: int, source: ToyMove | None) -> ToyMove:
        """``move`` for the seat to act (no Climb move carries another seat's choice), ``source`` for
        another seat. Raises ``ValueError`` when the game is over, or when ``seat`` is not the seat to
        act and ``source`` is None."""
        if state.current_seat is None:
            raise ValueError("the game is over: nobody makes a move")
        if seat == state.current_seat:
            return move
        if source is None:
            raise ValueError(f"seat {seat} is not the seat to act and decides nothing of its move")
        return source

    # -- words ---------------------------------------------------------------------------------

    def describe_move(self, state: ToyState, move: ToyMove, names: Sequence[str]) -> str:
        """The move in words, from the state before it (a drawn card is named: the view hides it)."""
        who = _name(names, state.current_seat)
        if isinstance(move, Draw):
            return f"{who} draws {_a(state.pile[0])}" if state.pile else f"{who} draws"
        if isinstance(move, Stay):
            return f"{who} stays"
        if isinstance(move, Climb):
            return f"{who} climbs with {_a(move.card)}"
        if isinstance(move, Rest):
            return f"{who} rests"
        return f"{who}: {move.text()}"

    def to_view(self, state: ToyState, names: Sequence[str]) -> dict[str, Any]:
        """The whole state as JSON, with each seat's score so far."""
        lines = self.scores(state)
        over = state.stage is Stage.OVER
        return {
            "game": self.game,
            "step": state.step,
            "round": state.round,
            "stage": state.stage.value,
            "to_act": state.current_seat,
            "waiting_for": rules.describe_pending(state),
            "pile": len(state.pile),
            "over": over,
            "players": [{"seat": seat, "name": _name(names, seat), "hand": list(p.hand), "hand_size": len(p.hand),
                         "ladder": list(p.ladder), "score": lines[seat].total, "score_parts": lines[seat].parts}
                        for seat, p in enumerate(state.players)],
            "scores": [s.total for s in lines],
            "winners": self.winners(state) if over else [],
        }

    def render(self, state: ToyState, names: Sequence[str]) -> str:
        return self.render_view(self.to_view(state, names), names)

    def render_view(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """A view of a state as text: a hand the view leaves out shows its size only."""
        head = (f"Climb, step {view['step']}, round {view['round']}; pile {view['pile']}",
                "Game over; winner(s): " + ", ".join(names[s] for s in view["winners"]) if view["over"]
                else f"Waiting: {view['waiting_for']}", "")
        lines = list(head)
        for p in view["players"]:
            # A hand the view leaves out takes its score with it (the score counts the hand).
            hand = ", ".join(map(str, p["hand"])) if "hand" in p else "hidden"
            score = f"{p['score']} points" if "score" in p else "score hidden"
            lines.append(f"{p['name']} (seat {p['seat']}): {score}; ladder "
                         f"{' '.join(map(str, p['ladder'])) or '-'}; hand ({p['hand_size']}): {hand or '-'}")
        return "\n".join(lines)

    # -- rows ------------------------------------------------------------------------------------

    def global_row(self, state: ToyState) -> dict[str, Any]:
        return {"round": state.round, "stage": state.stage.value, "to_act": state.current_seat, "pile": len(state.pile)}

    def _player_row(self, player: Seat) -> dict[str, Any]:
        return {"vp": rules.score_of(player).total, "ladder": list(player.ladder), "ladder_top": player.top,
                "hand": list(player.hand), "hand_size": len(player.hand)}

    # -- simulation ----------------------------------------------------------------------------

    def new_random_game(self, players: Sequence[str], seed: int, options: dict[str, Any]) -> GameLog:
        """A log with a shuffled deck and no moves."""
        setup = rules.random_setup(len(players), random.Random(f"toy:{seed}"))
        return GameLog(game=self.game, players=tuple(players), setup=setup, moves=(), options=dict(options))


def heuristic_bot(engine: Rules, seed: int) -> HeuristicPlayer:
    """The heuristic bot (the declaration's ``heuristic``)."""
    return HeuristicPlayer(seed)


ENGINE = ToyEngine()
#: mypy checks here that the engine has every hook of the protocol, with its types.
_CONFORMS: Engine = ENGINE
