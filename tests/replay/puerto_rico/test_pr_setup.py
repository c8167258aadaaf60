"""The catalogue against FACTS.md, setup by player count, malformed setups and moves."""

from __future__ import annotations

import pytest

from replay.errors import FieldError
from replay.logfile import GameLog
from replay.puerto_rico.catalogue import BUILDINGS, CATALOGUE, GOODS_SUPPLY, PLANTATION_TILES, PRICES, Good
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import WHARF, Build, ChooseRole, Load, Mayor, PuertoRicoMove, Settle, Store, parse_move
from replay.puerto_rico.state import Stage

# FACTS.md part 2: cost, VP, circles, quarry column, copies.
FACTS = {
    "Small indigo plant": (1, 1, 1, 1, 4), "Small sugar mill": (2, 1, 1, 1, 4), "Indigo plant": (3, 2, 3, 2, 3),
    "Sugar mill": (4, 2, 3, 2, 3), "Tobacco storage": (5, 3, 3, 3, 3), "Coffee roaster": (6, 3, 2, 3, 3),
    "Small market": (1, 1, 1, 1, 2), "Hacienda": (2, 1, 1, 1, 2), "Construction hut": (2, 1, 1, 1, 2),
    "Small warehouse": (3, 1, 1, 1, 2), "Hospice": (4, 2, 1, 2, 2), "Office": (5, 2, 1, 2, 2),
    "Large market": (5, 2, 1, 2, 2), "Large warehouse": (6, 2, 1, 2, 2), "Factory": (7, 3, 1, 3, 2),
    "University": (8, 3, 1, 3, 2), "Harbor": (8, 3, 1, 3, 2), "Wharf": (9, 3, 1, 3, 2),
    "Guild hall": (10, 4, 1, 4, 1), "Residence": (10, 4, 1, 4, 1), "Fortress": (10, 4, 1, 4, 1),
    "Customs house": (10, 4, 1, 4, 1), "City hall": (10, 4, 1, 4, 1),
}


def test_catalogue_matches_facts() -> None:
    assert {b.name: (b.cost, b.vp, b.circles, b.column, b.copies) for b in CATALOGUE} == FACTS
    assert [b.name for b in CATALOGUE if b.large] == ["Guild hall", "Residence", "Fortress", "Customs house", "City hall"]
    assert PLANTATION_TILES == {Good.COFFEE: 8, Good.TOBACCO: 9, Good.CORN: 10, Good.SUGAR: 11, Good.INDIGO: 12}
    assert GOODS_SUPPLY == {Good.COFFEE: 9, Good.TOBACCO: 9, Good.CORN: 10, Good.SUGAR: 11, Good.INDIGO: 11}
    assert PRICES == {Good.CORN: 0, Good.INDIGO: 1, Good.SUGAR: 2, Good.TOBACCO: 3, Good.COFFEE: 4}
    assert BUILDINGS["Coffee roaster"].good is Good.COFFEE


def _log(players: int, setup: dict, options: dict | None = None) -> GameLog:
    return GameLog(game="puerto_rico", players=tuple("ABCDE"[:players]), setup=setup, moves=(), options=options or {})


@pytest.mark.parametrize(
    "players, doubloons, starting, colonists, chips, ships, roles",
    [
        (3, 2, ["indigo", "indigo", "corn"], (3, 55), 75, (4, 5, 6), 6),
        (4, 3, ["indigo", "indigo", "corn", "corn"], (4, 75), 100, (5, 6, 7), 7),
        (5, 4, ["indigo", "indigo", "indigo", "corn", "corn"], (5, 95), 122, (6, 7, 8), 8),
    ],
)
def test_setup_by_player_count(players, doubloons, starting, colonists, chips, ships, roles) -> None:
    log = ENGINE.new_random_game(["P"] * players, 1, {})
    state = ENGINE.new_game(log)
    assert [p.doubloons for p in state.players] == [doubloons] * players
    assert [p.island for p in state.players] == [(k,) for k in starting]
    assert [p.island_workers for p in state.players] == [(0,)] * players
    assert (state.colonist_ship, state.colonist_supply) == colonists
    assert state.vp_chips_left == chips
    assert state.ship_capacity == ships
    assert len(state.role_cards) == roles
    assert state.quarries == 8
    assert state.face_up == tuple(log.setup["plantations"][: players + 1])
    assert len(state.plantation_stack) == 50 - players - (players + 1)
    assert state.stage is Stage.ROLE and state.current_seat == 0 and state.round == 1


def test_bad_setups() -> None:
    good = ENGINE.new_random_game(["P"] * 3, 1, {}).setup
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, {"plantations": good["plantations"][1:] + ["coffee"]}))
    assert err.value.path == "setup.plantations"
    first = good["plantations"][0]
    if first != "coffee":
        assert err.value.reason == (
            f"is not an order of the 47 plantation tiles left after the starting ones: missing 1x {first}; too many 1x coffee"
        )
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, {"plantations": ["banana"] + good["plantations"][1:]}))
    assert (err.value.path, err.value.reason) == (
        "setup.plantations[0]", "unknown plantation 'banana' (kinds: corn, indigo, sugar, tobacco, coffee, quarry)"
    )
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, {"plantations": ["quarry"] + good["plantations"][1:]}))
    assert (err.value.path, err.value.reason) == ("setup.plantations[0]", "quarries are not in the plantation stack")
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, {"plantations": good["plantations"], "deck": []}))
    assert (err.value.path, err.value.reason) == ("setup.deck", "unknown setup field (known: plantations, reshuffles)")
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, {}))
    assert (err.value.path, err.value.reason) == ("setup.plantations", "missing")
    with pytest.raises(FieldError) as err:
        ENGINE.new_game(_log(3, good, {"draft_start": True}))
    assert (err.value.path, err.value.reason) == ("options.draft_start", "unknown Puerto Rico option (there are none)")


def test_move_json_round_trip_and_errors() -> None:
    moves: list[PuertoRicoMove] = [
        ChooseRole("prospector_2"), Settle("quarry"), Build("Guild hall"), Load(Good.CORN, 2),
        Load(Good.COFFEE, WHARF), Store((Good.CORN,), Good.COFFEE), Store(),
        Mayor.of({"corn": 1, "quarry": 2}, {"Harbor": 1, "Indigo plant": 2}),
    ]
    for move in moves:
        assert parse_move(move.to_json(), "m") == move
    assert Mayor.of({"quarry": 2, "corn": 1}, {"Indigo plant": 2, "Harbor": 1}).to_json() == {
        "kind": "mayor", "plantations": {"corn": 1, "quarry": 2}, "buildings": {"Indigo plant": 2, "Harbor": 1}
    }
    assert parse_move({"kind": "build", "building": "harbor", "seat": 1}, "m") == Build("Harbor")
    cases = [
        ({"kind": "fly"}, "moves[3].kind",
         "unknown move kind 'fly' (kinds: role, hacienda, settle, mayor, build, produce, extra_good, sell, load, store, pass)"),
        ({"kind": "build", "building": "Harbour"}, "moves[3].building", "unknown building 'Harbour' (did you mean 'Harbor'?)"),
        ({"kind": "load", "good": "corn", "ship": 3}, "moves[3].ship", "expected a ship index 0, 1, 2 or \"wharf\", got 3"),
        ({"kind": "sell", "good": "gold"}, "moves[3].good", "unknown good 'gold' (goods: corn, indigo, sugar, tobacco, coffee)"),
        ({"kind": "mayor", "buildings": {"Harbor": -1}}, "moves[3].buildings.Harbor",
         "expected a count of colonists (0 or more), got -1"),
        ({"kind": "pass", "good": "corn"}, "moves[3].good", "unknown field for a 'pass' move"),
        ({"kind": "role", "role": "king"}, "moves[3].role",
         "unknown role 'king' (roles: settler, mayor, builder, craftsman, trader, captain, prospector, prospector_2)"),
        ("pass", "moves[3]", "a move must be an object, got str"),
    ]
    for obj, path, reason in cases:
        with pytest.raises(FieldError) as err:
            parse_move(obj, "moves[3]")
        assert (err.value.path, err.value.reason) == (path, reason)
