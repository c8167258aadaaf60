"""Climb's rules, each once: the setup, the legal moves, the checked and pure ``apply``, and the
scores (see the README's page of rules)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from replay.engine_base import winners_of
from replay.errors import FieldError, RuleViolation
from replay.protocol import Score
from toy_game.cards import HAND_LIMIT, HAND_START, MAX_PLAYERS, MIN_PLAYERS, ROUNDS, deck
from toy_game.moves import Climb, Draw, Rest, Stay, ToyMove
from toy_game.state import Seat, Stage, ToyState


def random_setup(players: int, rng: random.Random) -> dict[str, Any]:
    """A setup of a shuffled deck (the log records the whole order: every chance outcome of a game)."""
    del players  # every game uses the whole deck
    cards = deck()
    rng.shuffle(cards)
    return {"deck": cards}


def new_game(players: int, options: dict[str, Any], setup: dict[str, Any], shuffle_seed: int | None = None) -> ToyState:
    """The state before the first move: hands dealt from the top of the setup's deck, in seat order.
    Raises ``FieldError`` for an unknown option, a player count out of range, or a deck that is not
    the game's 36 cards."""
    del shuffle_seed  # the deck is the only chance, and the setup holds it
    if options:
        name = sorted(options)[0]
        raise FieldError(f"options.{name}", "unknown option (Climb has none)")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise FieldError("players", f"Climb is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    extra = sorted(set(setup) - {"deck"})
    if extra:
        raise FieldError(f"setup.{extra[0]}", "unknown field (the setup holds the deck only)")
    cards = setup.get("deck")
    if not isinstance(cards, list) or any(type(c) is not int for c in cards):
        raise FieldError("setup.deck", "expected a list of card values")
    if Counter(cards) != Counter(deck()):
        raise FieldError("setup.deck", "the deck must hold the values 1 to 9, four of each, once")
    hands = tuple(Seat(tuple(sorted(cards[HAND_START * k:HAND_START * (k + 1)]))) for k in range(players))
    return ToyState(players=hands, pile=tuple(cards[HAND_START * players:]))


def legal_moves(state: ToyState) -> list[ToyMove]:
    """Every legal decision of the seat to act, in a fixed order (draw before stay, climbs by card);
    empty once the game is over."""
    seat = state.current_seat
    if seat is None:
        return []
    player = state.players[seat]
    if state.stage is Stage.DRAW:
        can_draw = bool(state.pile) and len(player.hand) < HAND_LIMIT
        return [Draw(), Stay()] if can_draw else [Stay()]
    moves: list[ToyMove] = [Climb(card) for card in sorted(set(player.hand)) if card > player.top]
    return moves + [Rest()]


def apply(state: ToyState, move: ToyMove) -> ToyState:
    """The state after ``move``. Raises ``RuleViolation`` saying why an illegal move is illegal."""
    seat = state.current_seat
    if seat is None:
        raise RuleViolation("over", "the game is over")
    player = state.players[seat]
    if state.stage is Stage.DRAW:
        if isinstance(move, Draw):
            if not state.pile:
                raise RuleViolation("draw.empty", "the pile is empty")
            if len(player.hand) >= HAND_LIMIT:
                raise RuleViolation("draw.limit", f"a hand of {HAND_LIMIT} cards cannot draw")
            drawn = Seat(tuple(sorted(player.hand + state.pile[:1])), player.ladder)
            events = ("pile_empty",) if len(state.pile) == 1 else ()
            return replace(state, players=_with(state.players, seat, drawn), pile=state.pile[1:],
                           stage=Stage.CLIMB, step=state.step + 1, events=events)
        if isinstance(move, Stay):
            return replace(state, stage=Stage.CLIMB, step=state.step + 1, events=())
        raise RuleViolation("turn.order", f"{move.text()}: the seat must draw or stay first")
    if isinstance(move, Climb):
        if move.card not in player.hand:
            raise RuleViolation("climb.card", f"climb {move.card}: no {move.card} in hand")
        if move.card <= player.top:
            raise RuleViolation("climb.height", f"climb {move.card}: not higher than the ladder's top card {player.top}")
        hand = list(player.hand)
        hand.remove(move.card)
        players = _with(state.players, seat, Seat(tuple(hand), player.ladder + (move.card,)))
    elif isinstance(move, Rest):
        players = state.players
    else:
        raise RuleViolation("turn.order", f"{move.text()}: the seat must climb or rest now")
    return _next_turn(replace(state, players=players), seat)


def _with(players: tuple[Seat, ...], seat: int, player: Seat) -> tuple[Seat, ...]:
    return players[:seat] + (player,) + players[seat + 1:]


def _next_turn(state: ToyState, seat: int) -> ToyState:
    """After ``seat``'s climb or rest: the next seat draws, or, at the end of a round, the game ends
    (round 8 played, or the pile empty) or the next round starts."""
    nxt = (seat + 1) % len(state.players)
    step = state.step + 1
    if nxt != 0:
        return replace(state, current_seat=nxt, stage=Stage.DRAW, step=step, events=())
    if state.round >= ROUNDS or not state.pile:
        return replace(state, current_seat=None, stage=Stage.OVER, step=step, events=("over",))
    return replace(state, current_seat=0, stage=Stage.DRAW, round=state.round + 1, step=step, events=())


def describe_pending(state: ToyState) -> str:
    """What the game waits for, in words."""
    if state.current_seat is None:
        return "nothing: the game is over"
    if state.stage is Stage.DRAW:
        return f"seat {state.current_seat} must draw or stay"
    return f"seat {state.current_seat} must climb or rest"


def score_of(player: Seat) -> Score:
    """A seat's score: its ladder minus its hand; the tie-break is the ladder's length."""
    ladder, hand = sum(player.ladder), sum(player.hand)
    return Score(total=ladder - hand, parts={"ladder": ladder, "hand": -hand}, tiebreak=len(player.ladder))


def scores(state: ToyState) -> list[Score]:
    """Each seat's score as if the game ended now."""
    return [score_of(p) for p in state.players]


def winners(state: ToyState) -> list[int]:
    """The seats with the highest score, then the longest ladder (several on a full tie)."""
    return winners_of(scores(state))


def rounds_left(state: ToyState) -> int:
    """Rounds still to play after the current one, as far as the seat to act can tell (0 in the last
    round: round 8, or the pile empty)."""
    return 0 if not state.pile else ROUNDS - state.round
