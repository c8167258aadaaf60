"""Choices the rules leave to the player: the colonist powers (the hospice's, the university's and the
mayor's privilege colonist) used or declined, production taken or declined, storage keeping any part
the rules allow, and a whole log that declines each of them and keeps less than its warehouse allows."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from replay.errors import FieldError, RuleViolation
from replay.log_reader import read_records
from replay.puerto_rico import rules
from replay.puerto_rico.catalogue import GOODS, Good
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import Build, ChooseRole, ExtraGood, Pass, Produce, Settle, Store, parse_move
from replay.puerto_rico.state import Stage
from replay.replayer import fill_defaults, replay

from .positions import C, I, K, S, T, at_role, defaults, goods, play, seat, supply

NAMES = ("Ana", "Bruno", "Carla")
DECLINES_LOG = Path(__file__).with_name("declines_3p.json")
#: Every ship full of a kind nobody holds: no loading, the captain phase goes straight to storage.
FULL_SHIPS = [(T, 4), (K, 5), (S, 6)]


def _raises(state, move, rule: str, reason: str) -> None:
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, move)
    assert (err.value.rule, err.value.reason) == (rule, reason)


# -- the hospice -------------------------------------------------------------------------------------


def test_hospice_colonist_used_or_declined() -> None:
    players = [seat(city=["Hospice"]), seat(city=["Hospice"]), seat()]
    state = play(at_role(players, 0, colonist_supply=5, colonist_ship=3), ChooseRole("settler"))
    # Every tile (and the settler's quarry) with or without the colonist.
    assert rules.legal_moves(state) == [
        Settle("corn"), Settle("corn", hospice=False), Settle("indigo"), Settle("indigo", hospice=False),
        Settle("sugar"), Settle("sugar", hospice=False), Settle("coffee"), Settle("coffee", hospice=False),
        Settle("quarry"), Settle("quarry", hospice=False), Pass(),
    ]
    assert ENGINE.describe_move(state, Settle("coffee", hospice=False), NAMES) == (
        "Ana takes a coffee plantation and declines the hospice's colonist"
    )
    state = play(state, Settle("coffee", hospice=False))
    assert state.players[0].island == ("coffee",) and state.players[0].island_workers == (0,)
    assert (state.colonist_supply, state.colonist_ship) == (5, 3)
    # Seat 1 says nothing: the hospice's colonist comes from the supply.
    assert ENGINE.describe_move(state, Settle("corn"), NAMES) == "Bruno takes a corn plantation (hospice colonist)"
    state = play(state, Settle("corn"))
    assert state.players[1].island_workers == (1,)
    assert (state.colonist_supply, state.colonist_ship) == (4, 3)
    # Seat 2 owns no hospice: there is nothing to decline.
    assert Settle("indigo", hospice=False) not in rules.legal_moves(state)
    _raises(state, Settle("indigo", hospice=False), "hospice.owned",
            "declines the hospice's colonist but has no occupied hospice")


def test_hospice_decline_needs_an_occupied_hospice_and_a_colonist() -> None:
    empty_hospice = [seat(city=["Hospice"], workers=[0]), seat(), seat()]
    state = play(at_role(empty_hospice, 0), ChooseRole("settler"))
    assert rules.legal_moves(state)[:2] == [Settle("corn"), Settle("indigo")]
    _raises(state, Settle("corn", hospice=False), "hospice.owned",
            "declines the hospice's colonist but has no occupied hospice")
    # No colonist in the supply or on the ship: the power does not trigger, so it cannot be declined.
    state = play(at_role([seat(city=["Hospice"]), seat(), seat()], 0, colonist_supply=0, colonist_ship=0),
                 ChooseRole("settler"))
    assert Settle("corn", hospice=False) not in rules.legal_moves(state)
    _raises(state, Settle("quarry", hospice=False), "hospice.none",
            "declines the hospice's colonist but no colonist is left (supply and ship are empty)")


# -- the university ----------------------------------------------------------------------------------


def test_university_colonist_used_or_declined() -> None:
    players = [seat(doubloons=1, city=["University"]), seat(doubloons=1, city=["University"]), seat(doubloons=1)]
    state = play(at_role(players, 0, colonist_supply=5, colonist_ship=3), ChooseRole("builder"))
    # The builder pays 1 less: the two 1-doubloon and two 2-doubloon buildings, each with or without.
    assert rules.legal_moves(state) == [
        Build("Small indigo plant"), Build("Small indigo plant", university=False),
        Build("Small sugar mill"), Build("Small sugar mill", university=False),
        Build("Small market"), Build("Small market", university=False),
        Build("Hacienda"), Build("Hacienda", university=False),
        Build("Construction hut"), Build("Construction hut", university=False), Pass(),
    ]
    assert ENGINE.describe_move(state, Build("Small market", university=False), NAMES) == (
        "Ana builds Small market for 0 doubloons and declines the university's colonist"
    )
    state = play(state, Build("Small market", university=False))
    assert state.players[0].city == ("University", "Small market")
    assert state.players[0].city_workers == (1, 0)
    assert (state.colonist_supply, state.colonist_ship) == (5, 3)
    state = play(state, Build("Small market"))
    assert state.players[1].city_workers == (1, 1)
    assert (state.colonist_supply, state.colonist_ship) == (4, 3)
    _raises(state, Build("Small indigo plant", university=False), "university.owned",
            "declines the university's colonist but has no occupied university")


def test_university_decline_needs_an_occupied_university_and_a_colonist() -> None:
    players = [seat(doubloons=9, city=["University"], workers=[0]), seat(), seat()]
    state = play(at_role(players, 0), ChooseRole("builder"))
    _raises(state, Build("Harbor", university=False), "university.owned",
            "declines the university's colonist but has no occupied university")
    players = [seat(doubloons=9, city=["University"]), seat(), seat()]
    state = play(at_role(players, 0, colonist_supply=0, colonist_ship=0), ChooseRole("builder"))
    assert Build("Harbor", university=False) not in rules.legal_moves(state)
    _raises(state, Build("Harbor", university=False), "university.none",
            "declines the university's colonist but no colonist is left (supply and ship are empty)")


# -- the mayor's privilege ---------------------------------------------------------------------------


def test_mayor_privilege_used_or_declined() -> None:
    start = at_role([seat(), seat(), seat()], 1, colonist_ship=5, colonist_supply=10)
    assert rules.legal_moves(start) == [
        ChooseRole("settler"), ChooseRole("mayor"), ChooseRole("mayor", privilege=False), ChooseRole("builder"),
        ChooseRole("craftsman"), ChooseRole("trader"), ChooseRole("captain"),
    ]
    assert ENGINE.describe_move(start, ChooseRole("mayor", privilege=False), NAMES) == (
        "Bruno chooses the mayor and declines the privilege colonist"
    )
    used = play(start, ChooseRole("mayor"))
    assert [p.san_juan for p in used.players] == [1, 3, 2]
    assert (used.colonist_ship, used.colonist_supply) == (3, 6)
    # Declined: the mayor gets only his share of the ship (the 1st and 4th); the supply keeps one more.
    declined = play(start, ChooseRole("mayor", privilege=False))
    assert [p.san_juan for p in declined.players] == [1, 2, 2]
    assert (declined.colonist_ship, declined.colonist_supply) == (3, 7)


def test_declined_privilege_keeps_the_game_going() -> None:
    # 3 colonists in the supply and 3 needed to refill the ship: taking the privilege ends the game.
    start = at_role([seat(), seat(), seat()], 0, colonist_ship=3, colonist_supply=3)
    assert play(start, ChooseRole("mayor")).end == ("colonists",)
    declined = play(start, ChooseRole("mayor", privilege=False))
    assert declined.end == ()
    assert (declined.colonist_ship, declined.colonist_supply) == (3, 0)


def test_only_the_mayors_privilege_is_declined_and_only_with_a_colonist() -> None:
    start = at_role([seat(), seat(), seat()], 0, colonist_ship=3, colonist_supply=0)
    _raises(start, ChooseRole("builder", privilege=False), "role.privilege",
            "only the mayor's privilege (a colonist) can be declined; the builder's is a pure gain")
    assert ChooseRole("mayor", privilege=False) not in rules.legal_moves(start)
    _raises(start, ChooseRole("mayor", privilege=False), "mayor.privilege",
            "declines the privilege colonist but the colonist supply is empty")


def test_decline_fields_in_json_and_text() -> None:
    assert parse_move({"kind": "settle", "plantation": "coffee", "hospice": False}, "m") == Settle("coffee", False)
    assert parse_move({"kind": "settle", "plantation": "coffee", "hospice": True}, "m") == Settle("coffee")
    assert parse_move({"kind": "build", "building": "harbor", "university": False}, "m") == Build("Harbor", False)
    assert parse_move({"kind": "role", "role": "mayor", "privilege": False}, "m") == ChooseRole("mayor", False)
    assert Settle("coffee", False).to_json() == {"kind": "settle", "plantation": "coffee", "hospice": False}
    assert Settle("coffee").to_json() == {"kind": "settle", "plantation": "coffee"}
    assert Build("Harbor", False).to_json() == {"kind": "build", "building": "Harbor", "university": False}
    assert ChooseRole("mayor", False).to_json() == {"kind": "role", "role": "mayor", "privilege": False}
    assert ChooseRole("mayor").to_json() == {"kind": "role", "role": "mayor"}
    assert [m.text() for m in (Settle("coffee", False), Build("Harbor", False), ChooseRole("mayor", False))] == [
        "settle coffee -hospice", "build Harbor -university", "role mayor -privilege",
    ]
    with pytest.raises(FieldError) as err:
        parse_move({"kind": "settle", "plantation": "coffee", "hospice": "no"}, "moves[4]")
    assert (err.value.path, err.value.reason) == ("moves[4].hospice", "expected true or false, got 'no'")
    with pytest.raises(FieldError) as err:
        parse_move({"kind": "sell", "good": "corn", "privilege": False}, "moves[5]")
    assert (err.value.path, err.value.reason) == ("moves[5].privilege", "unknown field for a 'sell' move")


# -- production ----------------------------------------------------------------------------------------


def test_production_taken_or_declined() -> None:
    producer = seat(island=["corn", "coffee"], city=["Coffee roaster"], workers=[1])
    state = play(at_role([producer, producer, seat()], 1, goods_supply={K: 1}), ChooseRole("craftsman"))
    # Clockwise from the craftsman (seat 1); seat 2 makes nothing and is skipped later.
    assert state.stage is Stage.PRODUCTION and state.current_seat == 1
    assert rules.legal_moves(state) == [Produce(), Produce(take=False)]
    assert rules.default_move(state) == Produce()
    assert ENGINE.describe_move(state, Produce(False), NAMES) == "Bruno declines to produce (1 corn and 1 coffee)"
    state = play(state, Produce(False))
    assert goods(state, 1) == {} and supply(state, C) == 10 and supply(state, K) == 1
    # The coffee Bruno left in the supply goes to Ana.
    assert state.current_seat == 0
    assert ENGINE.describe_move(state, Produce(), NAMES) == "Ana produces 1 corn and 1 coffee"
    state = play(state, Produce())
    assert goods(state, 0) == {"corn": 1, "coffee": 1} and supply(state, K) == 0
    # Bruno produced nothing, so the craftsman has no extra good to take: the round goes on.
    assert state.stage is Stage.ROLE and state.current_seat == 2


def test_declined_production_earns_no_factory_and_no_extra_good() -> None:
    factory = seat(island=["corn", "indigo"], city=["Small indigo plant", "Factory"])
    start = play(at_role([factory, seat(), seat()], 0), ChooseRole("craftsman"))
    taken = play(start, Produce())
    assert goods(taken, 0) == {"corn": 1, "indigo": 1} and taken.players[0].doubloons == 1
    assert taken.stage is Stage.CRAFTSMAN and rules.legal_moves(taken) == [ExtraGood(C), ExtraGood(I), Pass()]
    declined = play(start, Produce(False))
    assert goods(declined, 0) == {} and declined.players[0].doubloons == 0
    assert declined.stage is Stage.ROLE
    # A log that says nothing takes the goods, as the engine always did.
    assert defaults(start) == rules.apply_default(start)
    assert goods(defaults(start), 0) == {"corn": 1, "indigo": 1} and defaults(start).stage is Stage.CRAFTSMAN


def test_production_from_an_empty_supply_is_no_decision() -> None:
    producer = seat(island=["coffee"], city=["Coffee roaster"], workers=[1])
    state = play(at_role([producer, seat(), seat()], 0, goods_supply={K: 0}), ChooseRole("craftsman"))
    # Ana would receive nothing: nothing to take or decline, and no extra good either.
    assert state.stage is Stage.ROLE
    assert ENGINE.automatic_events(None, None, state, NAMES)[0] == (
        "Ana produces 0 coffee (of 1: the supply ran out)"
    )


def test_production_decisions_only_in_the_craftsman_phase() -> None:
    state = at_role([seat(island=["corn"]), seat(), seat()], 0)
    _raises(state, Produce(False), "turn.kind", "seat 0 must choose a role, not 'produce -declined'")
    state = play(defaults(play(state, ChooseRole("craftsman"))))
    assert state.stage is Stage.CRAFTSMAN
    _raises(state, Produce(), "turn.kind", "seat 0 must take the craftsman's extra good or pass, not 'produce'")
    assert parse_move({"kind": "produce", "take": False}, "m") == Produce(False)
    assert parse_move({"kind": "produce"}, "m") == Produce()
    assert Produce(False).to_json() == {"kind": "produce", "take": False} and Produce().to_json() == {"kind": "produce"}


# -- storage -----------------------------------------------------------------------------------------


def test_storage_keeps_one_barrel_and_returns_the_other() -> None:
    """The issue's example: 2 corn and an occupied small warehouse; 1 corn kept on the windrose."""
    state = play(at_role([seat(goods={C: 2}, city=["Small warehouse"]), seat(), seat()], 0, ships=FULL_SHIPS),
                 ChooseRole("captain"))
    assert state.stage is Stage.STORAGE and state.current_seat == 0
    assert rules.legal_moves(state) == [Store((C,), None), Store((), C), Store()]
    assert rules.default_move(state) == Store((C,), None)
    assert ENGINE.describe_move(state, Store((), C), NAMES) == "Ana keeps 1 corn"
    after = play(state, Store((), C))
    assert goods(after, 0) == {"corn": 1} and supply(after, C) == 10 + 1
    assert after.stage is Stage.ROLE and after.current_seat == 1
    nothing = play(state, Store())
    assert goods(nothing, 0) == {} and supply(nothing, C) == 10 + 2
    assert ENGINE.describe_move(state, Store(), NAMES) == "Ana keeps nothing"


def test_every_storage_outcome_is_legal_and_listed_once() -> None:
    held = {C: 3, I: 2, S: 1, K: 4}
    state = play(at_role([seat(goods=held, city=["Large warehouse"]), seat(), seat()], 0, ships=FULL_SHIPS),
                 ChooseRole("captain"))
    assert state.stage is Stage.STORAGE
    kinds = [C, I, S, K]
    expected: set[tuple[int, ...]] = set()
    for size in range(3):
        for whole in combinations(kinds, size):
            for keep in [g for g in kinds if g not in whole] + [None]:
                after = play(state, Store(tuple(whole), keep))
                outcome = after.players[0].goods
                assert outcome == tuple(
                    held.get(g, 0) if g in whole else (1 if g is keep else 0) for g in GOODS
                ), (whole, keep)
                # Everything not kept went back to the supply (as did the full ships' barrels).
                shipped = {g: load for g, load in zip(state.ship_good, state.ship_load)}
                assert [after.goods_supply[i] - state.goods_supply[i] for i in range(5)] == [
                    held.get(g, 0) - outcome[i] + shipped.get(g, 0) for i, g in enumerate(GOODS)
                ]
                expected.add(outcome)
    legal = rules.legal_moves(state)
    outcomes = [_outcome(held, m) for m in legal]
    assert len(outcomes) == len(set(outcomes)) and set(outcomes) == expected
    # 2 kinds whole and 1 barrel of another: 6 x 2 = 12 outcomes keeping the most, listed first; 35 in
    # all, since the single sugar is the same kept whole or on the windrose.
    assert len(legal) == len(expected) == 35
    assert all(len(m.warehouse) == 2 and m.keep is not None for m in legal[:12])
    assert rules.default_move(state) is None


def _outcome(held: dict[Good, int], move: Store) -> tuple[int, ...]:
    return tuple(held.get(g, 0) if g in move.warehouse else (1 if g is move.keep else 0) for g in GOODS)


def test_storage_keeping_more_than_allowed_is_illegal() -> None:
    state = play(at_role([seat(goods={C: 2, I: 1}), seat(), seat()], 0, ships=FULL_SHIPS), ChooseRole("captain"))
    _raises(state, Store((C,), None), "storage.warehouse", "keeps 1 kind whole but its occupied warehouses take 0 kinds")
    empty = seat(goods={C: 2, I: 1, S: 1}, city=["Small warehouse"], workers=[0])
    state = play(at_role([empty, seat(), seat()], 0, ships=FULL_SHIPS), ChooseRole("captain"))
    _raises(state, Store((C,), I), "storage.warehouse", "keeps 1 kind whole but its occupied warehouses take 0 kinds")
    both = seat(goods={C: 2, I: 1, S: 1, K: 1}, city=["Small warehouse", "Large warehouse"])
    state = play(at_role([both, seat(), seat()], 0, ships=FULL_SHIPS), ChooseRole("captain"))
    _raises(state, Store((C, I, S, K), None), "storage.warehouse",
            "keeps 4 kinds whole but its occupied warehouses take 3 kinds")
    _raises(state, Store((C, I, S), C), "storage.keep",
            "corn is kept whole in a warehouse: the windrose keeps one barrel of another kind")


# -- replay: logs that leave storage out, keep less, and decline ---------------------------------------


def test_fill_defaults_takes_storage_the_log_leaves_out() -> None:
    players = [seat(goods={C: 2}, city=["Small warehouse"]), seat(goods={I: 3}), seat()]
    state = play(at_role(players, 0, ships=FULL_SHIPS), ChooseRole("captain"))
    assert state.current_seat == 0 and rules.default_move(state) == Store((C,), None)
    # A store naming this seat, or no seat, is this seat's decision.
    assert fill_defaults(ENGINE, state, Store((), C), 0) is state
    assert fill_defaults(ENGINE, state, Store((), C), None) is state
    # A store naming seat 1: seat 0 said nothing and keeps both corn.
    later = fill_defaults(ENGINE, state, Store(), 1)
    assert later.current_seat == 1 and goods(later, 0) == {"corn": 2}
    # The next role: both seats said nothing (seat 1 keeps 1 indigo).
    role = fill_defaults(ENGINE, state, ChooseRole("settler"), 1)
    assert role.stage is Stage.ROLE and goods(role, 0) == {"corn": 2} and goods(role, 1) == {"indigo": 1}
    # The end of the log takes every default left.
    assert fill_defaults(ENGINE, state, None, None) == role


def test_log_declining_every_power_and_keeping_less_replays() -> None:
    """A whole game in which Ana declines the hospice's, the university's and the mayor's colonist and
    keeps less than her warehouse allows, while the other seats leave their storage out where it has a
    default; its recorded result is checked by the replay."""
    (record,) = list(read_records(DECLINES_LOG))
    assert record.log is not None, record.error
    game = replay(record.log)
    seen = set()
    for step in game.steps:
        before, after, move = game.state_at(step.number - 1), step.state, step.move
        if isinstance(move, Produce) and not move.take:
            seen.add("production")
            assert step.seat == 0 and step.words == "Ana declines to produce (2 indigo)"
            assert after.players[0].goods == before.players[0].goods == (0, 0, 0, 0, 0)
        elif isinstance(move, Settle) and not move.hospice:
            seen.add("hospice")
            assert step.words == f"Ana takes {'an' if move.tile == 'indigo' else 'a'} {move.tile} plantation" \
                " and declines the hospice's colonist"
            assert after.players[0].island[-1] == move.tile and after.players[0].island_workers[-1] == 0
            assert (after.colonist_supply, after.colonist_ship) == (before.colonist_supply, before.colonist_ship)
        elif isinstance(move, Build) and not move.university:
            seen.add("university")
            assert step.words.endswith(" and declines the university's colonist")
            assert after.players[0].city[-1] == move.building and after.players[0].city_workers[-1] == 0
            assert (after.colonist_supply, after.colonist_ship) == (before.colonist_supply, before.colonist_ship)
        elif isinstance(move, ChooseRole) and not move.privilege:
            seen.add("privilege")
            assert step.words.startswith("Ana chooses the mayor") and step.words.endswith(" and declines the privilege colonist")
            # Ana gets only her share of the ship, dealt clockwise from her: no privilege colonist.
            share = -(-before.colonist_ship // 3)
            assert after.players[0].colonists == before.players[0].colonists + share
        elif isinstance(move, Store) and step.seat == 0:
            # The seats before Ana said nothing: their defaults are taken before her move.
            at = fill_defaults(ENGINE, before, move, 0)
            default = rules.default_move(at)
            if default is None:
                continue
            # Where a log saying nothing would keep the most, Ana keeps less: 1 barrel, warehouse unused.
            seen.add("keeps less")
            held = at.players[0].goods
            assert rules.storage_slots(at.players[0]) >= 1 and not move.warehouse and move.keep is not None
            assert after.players[0].goods == tuple(1 if g is move.keep else 0 for g in GOODS) != held
            assert step.words == f"Ana keeps 1 {move.keep.value}"
    assert seen == {"production", "hospice", "university", "privilege", "keeps less"}
    # Bruno and Carla leave out every storage that has a default: the log records only real choices.
    stores = [m for m in record.log.moves if m["kind"] == "store"]
    assert len(stores) == 15 and len(game.steps) == len(record.log.moves) == 170
    assert ENGINE.is_over(game.final) and record.log.result == {"scores": [43, 49, 36], "winners": [1]}
    # Move 87 is the example: 2 indigo and an occupied small warehouse, 1 indigo kept.
    assert game.steps[86].move == Store((), I) and game.steps[86].words == "Ana keeps 1 indigo"
    assert game.state_at(86).players[0].goods == (0, 2, 0, 0, 0) and goods(game.steps[86].state, 0) == {"indigo": 1}
