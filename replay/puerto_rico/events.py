"""What the Puerto Rico rules did by themselves after a move, in words.

``rules.apply`` records each automatic event in the new state's ``events`` as a small tuple (code
first): forced loads, ships and the trading house emptied, goods returned to the supply, colonists
handed out, plantations drawn, skipped seats, the round's end. This module only puts them in words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from replay.puerto_rico.catalogue import GOODS, role_of
from replay.puerto_rico.moves import WHARF
from replay.words import and_list, plural, seat_name

#: Why the game ends, by the trigger code the rules record.
END_REASONS = {
    "vp_chips": "the VP chips ran out",
    "colonists": "the colonists ran out",
    "city": "a city is full",
}

#: A seat with nothing to decide in a phase, by stage.
SKIPS = {
    "settler": "cannot take a plantation",
    "builder": "cannot build anything",
    "trader": "cannot sell anything",
    "craftsman": "cannot take an extra good",
    "captain": "cannot load anything",
}

BONUS_WORDS = {"harbor": "1 for the harbor", "privilege": "1 for the captain's privilege"}
#: The points a load earns, as ``_load`` ends its sentence: ``: 3 VP`` after a forced load, `` gets 3
#: VP`` after the seat's own, each maybe followed by its bonuses in brackets (no name comes after).
_POINTS = re.compile(r"(?P<lead>: | gets )\d+ VP(?: \([^()]*\))?$")
#: What a load's sentence says instead of its points where they lie face down (``without_points``).
FACE_DOWN = "takes VP chips, face down"


def _barrels(amounts: Sequence[int]) -> str:
    return and_list([f"{n} {g.value}" for g, n in zip(GOODS, amounts) if n])


def _ship(capacity: Any) -> str:
    return "the wharf" if capacity == WHARF else f"the {capacity}-ship"


def _placement(move: Any, owned: int) -> str:
    placed = [f"{n} on {k}" for k, n in move.plantations] + [f"{n} on {b}" for b, n in move.buildings]
    left = owned - sum(n for _, n in move.plantations) - sum(n for _, n in move.buildings)
    text = ", ".join(placed) or "none placed"
    return text + (f"; {left} in San Juan" if left > 0 else "")


def _kept(move: Any) -> str:
    parts = []
    if move.warehouse:
        parts.append(f"all {and_list([g.value for g in move.warehouse])} (warehouse)")
    if move.keep is not None:
        parts.append(f"1 {move.keep.value}")
    return and_list(parts) or "nothing"


def _load(event: tuple[Any, ...], names: Sequence[str]) -> str:
    _, seat, good, ship, amount, bonuses, forced = event
    who = seat_name(names, seat)
    points = amount + len(bonuses)
    vp = f"{points} VP"
    if bonuses:
        vp += f" ({and_list([BONUS_WORDS.get(b, b) for b in bonuses])})"
    if not forced:
        return f"{who} gets {vp}"
    verb = "ships" if ship == WHARF else "loads"
    where = "with the wharf" if ship == WHARF else f"on {_ship(ship)}"
    return f"{who} {verb} {amount} {good} {where}, the only possible load: {vp}"


def without_points(sentence: str) -> str:
    """``sentence`` without the VP a load earns, for a viewer from whom they lie face down: "Carla
    loads 3 corn on the 5-ship, the only possible load"; "Carla takes VP chips, face down" for
    "Carla gets 3 VP (1 for the harbor)". The shipment itself (who loaded what, where) stays: it is
    made in the open. Any other sentence is returned as it is."""
    found = _POINTS.search(sentence)
    if found is None:
        return sentence
    if found.group("lead") == ": ":
        return sentence[:found.start()]
    return f"{sentence[:found.start()]} {FACE_DOWN}"


def _store(event: tuple[Any, ...], names: Sequence[str]) -> str:
    _, seat, move, returned, forced = event
    who = seat_name(names, seat)
    back = f"returns {_barrels(returned)} to the supply" if any(returned) else ""
    if not forced:
        return f"{who} {back}"
    return f"{who} keeps {_kept(move)}" + (f" and {back}" if back else "")


def _produce(event: tuple[Any, ...], names: Sequence[str]) -> str:
    _, seat, received, made = event
    who = seat_name(names, seat)
    parts = []
    for good, got, want in zip(GOODS, received, made):
        if not want:
            continue
        if got == want:
            parts.append(f"{got} {good.value}")
        else:
            parts.append(f"{got} {good.value} (of {want}: the supply ran out)")
    return f"{who} produces {and_list(parts)}"


def sentence(event: tuple[Any, ...], names: Sequence[str]) -> str:
    """One recorded event in words ("Carla loads 3 corn on the 5-ship, the only possible load: 3 VP").

    Raises ``ValueError`` for an event code this module does not know (a rules change without words)."""
    code = event[0]
    if code == "load":
        return _load(event, names)
    if code == "store":
        return _store(event, names)
    if code == "produce":
        return _produce(event, names)
    if code == "skip":
        _, seat, stage = event
        return f"{seat_name(names, seat)} {SKIPS.get(stage, f'has nothing to do ({stage})')}"
    if code == "mayor":
        _, seat, move, owned = event
        return f"{seat_name(names, seat)}'s colonists are placed (the only arrangement): {_placement(move, owned)}"
    if code == "mayor_privilege":
        return f"{seat_name(names, event[1])} takes 1 colonist from the supply (mayor's privilege)"
    if code == "colonist_ship":
        _, chooser, dealt = event
        n = len(dealt)
        order = [(chooser + i) % n for i in range(n)]
        shares = [f"{seat_name(names, s)} {dealt[s]}" for s in order if dealt[s]]
        if not shares:
            return "The colonist ship is empty"
        return f"The colonist ship's {plural(sum(dealt), 'colonist')} go to {and_list(shares)}"
    if code == "colonist_ship_refilled":
        _, amount, need = event
        if amount == need:
            return f"The colonist ship is refilled with {plural(amount, 'colonist')}"
        return f"The colonist ship is refilled with only {plural(amount, 'colonist')} ({need} needed)"
    if code == "prospector":
        return f"{seat_name(names, event[1])} takes 1 doubloon from the bank (prospector)"
    if code == "factory":
        _, seat, amount = event
        return f"{seat_name(names, seat)}'s factory pays {plural(amount, 'doubloon')}"
    if code == "university":
        _, seat, building = event
        return f"{seat_name(names, seat)}'s university puts a colonist on the new {building}"
    if code == "ship_emptied":
        _, capacity, good, load = event
        return f"The full {capacity}-ship is emptied: {load} {good} go back to the supply"
    if code == "trading_house_emptied":
        return f"The full trading house is emptied: {and_list([str(g) for g in event[1]])} go back to the supply"
    if code == "trading_house_full":
        who = and_list([seat_name(names, s) for s in event[1]])
        return f"The trading house is full: {who} cannot sell"
    if code == "plantations_discarded":
        if not event[1]:
            return "No face-up plantation is left to discard"
        return f"The face-up plantations left ({and_list(list(event[1]))}) are discarded"
    if code == "plantations_drawn":
        if not event[1]:
            return "No plantations are left to turn face up"
        return f"New face-up plantations: {and_list(list(event[1]))}"
    if code == "reshuffle":
        return f"The {plural(event[1], 'discarded plantation')} are shuffled into a new stack"
    if code == "end_trigger":
        _, trigger, seat = event
        if trigger == "city":
            return f"{seat_name(names, seat)}'s city is full: the game ends after this round"
        if trigger == "vp_chips":
            return f"{seat_name(names, seat)} takes the last VP chips: the game ends after this round"
        return "The colonists cannot refill the ship: the game ends after this round"
    if code == "role_doubloons":
        cards = and_list([role_of(c).value for c in event[1]])
        return f"1 doubloon is put on each role card not chosen: {cards}"
    if code == "round":
        _, number, governor = event
        return f"Round {number} begins; {seat_name(names, governor)} is governor"
    if code == "over":
        reasons = and_list([END_REASONS.get(t, t) for t in event[1]])
        return f"The round is over and so is the game ({reasons})"
    raise ValueError(f"no words for the Puerto Rico event {event!r}")


def describe(events: Sequence[tuple[Any, ...]], names: Sequence[str]) -> list[str]:
    """Every recorded event in words, in the order they happened. A seat the captain phase passes over
    several times in one step is reported once."""
    out = []
    seen_skips: set[tuple[Any, ...]] = set()
    for event in events:
        if event[0] == "skip":
            if event in seen_skips:
                continue
            seen_skips.add(event)
        out.append(sentence(event, names))
    return out
