"""The Puerto Rico rules said once: whether a building's power works, how many barrels a load ships
and the storage choices are public rules functions that the rules, the move words and the bot all
ask, and they answer as the rules apply them."""

from __future__ import annotations

from replay.puerto_rico import bots, rules
from replay.puerto_rico.catalogue import Power
from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.moves import WHARF, ChooseRole, Load, Produce, Settle, Store
from replay.puerto_rico.state import MPlayer, PuertoRicoState, Stage, Table

from .positions import C, I, K, S, T, at_role, play, seat

NAMES = ("Ana", "Bruno", "Carla")


def test_a_power_works_only_with_a_colonist_on_its_building() -> None:
    occupied = seat(city=["Harbor", "Small market"], workers=[1, 0])
    assert rules.power_active(occupied, Power.HARBOR)
    assert not rules.power_active(occupied, Power.SMALL_MARKET)
    assert not rules.power_active(occupied, Power.WHARF)
    # A table's working copy of the seat answers the same.
    assert rules.power_active(MPlayer(occupied), Power.HARBOR)
    assert not rules.power_active(MPlayer(occupied), Power.SMALL_MARKET)


def test_an_empty_harbor_gives_no_point() -> None:
    players = [seat(goods={C: 2}, city=["Harbor"], workers=[0]), seat(goods={C: 2}, city=["Harbor"]), seat()]
    state = play(at_role(players, 0), ChooseRole("captain"), Load(C, 2))
    # 2 barrels and the captain's point; the harbor is empty.
    assert state.players[0].vp_chips == 3
    # Seat 1's load on the corn ship is forced; its occupied harbor adds a point.
    assert state.players[1].vp_chips == 3


def test_load_amount_ship_room_and_wharf() -> None:
    players = [seat(goods={C: 5, I: 2}, city=["Wharf"]), seat(), seat()]
    state = play(at_role(players, 0, ships=[(C, 2), (None, 0), (None, 0)]), ChooseRole("captain"))
    pv = state.players[0]
    # 3 players: ships of 4, 5 and 6; the corn ship has room for 2 more.
    assert rules.load_amount(state, pv, Load(C, 0)) == 2
    assert rules.load_amount(state, pv, Load(I, 2)) == 2
    assert rules.load_amount(state, pv, Load(C, WHARF)) == 5
    assert rules.load_amount(Table(state), pv, Load(I, 1)) == 2
    assert ENGINE.describe_move(state, Load(C, 0), NAMES) == "Ana loads 2 corn on the 4-ship"
    assert ENGINE.describe_move(state, Load(C, WHARF), NAMES) == "Ana ships 5 corn with the wharf"
    after = play(state, Load(C, 0))
    assert after.ship_load[0] == 4 and after.players[0].goods[0] == 3
    assert after.players[0].vp_chips == 2 + 1


def test_the_bot_loads_the_biggest_load_the_rules_count() -> None:
    players = [seat(goods={S: 3, T: 1}), seat(), seat()]
    state = play(at_role(players, 0, ships=[(S, 3), (None, 0), (None, 0)]), ChooseRole("captain"))
    # The sugar ship has room for 1 and the single tobacco fits either empty ship: every load ships 1
    # barrel, and among equal loads the bot takes the cheaper kind.
    moves = rules.legal_moves(state)
    assert moves == [Load(S, 0), Load(T, 1), Load(T, 2)]
    choice = bots.HeuristicPlayer(seed=3).choose(state)
    assert choice == Load(S, 0)
    assert [rules.load_amount(state, state.players[0], m) for m in moves] == [1, 1, 1]


def test_hospice_words_ask_whether_it_works_and_a_colonist_is_left() -> None:
    players = [seat(city=["Hospice"]), seat(city=["Hospice"], workers=[0]), seat()]
    state = play(at_role(players, 0, colonist_supply=0, colonist_ship=1), ChooseRole("settler"))
    assert rules.colonist_available(state)
    assert ENGINE.describe_move(state, Settle("corn"), NAMES) == "Ana takes a corn plantation (hospice colonist)"
    state = play(state, Settle("corn"))
    # Bruno's hospice is empty: no colonist, in the words as in the rules.
    assert state.current_seat == 1
    assert ENGINE.describe_move(state, Settle("indigo"), NAMES) == "Bruno takes an indigo plantation"
    empty: PuertoRicoState = at_role(players, 0, colonist_supply=0, colonist_ship=0)
    assert not rules.colonist_available(empty)


def test_store_options_are_the_storage_moves_and_slots_count_occupied_warehouses() -> None:
    keeper = seat(goods={C: 3, K: 1}, city=["Small warehouse", "Large warehouse"], workers=[1, 0])
    assert rules.storage_slots(keeper) == 1
    assert rules.storage_slots(seat(city=["Small warehouse", "Large warehouse"])) == 3
    # The warehouse used to the full first (with the windrose, then without), then the smaller ones.
    assert rules.store_options(tuple(keeper.goods), 1) == (
        Store((C,), K), Store((K,), C), Store((C,)), Store((K,)), Store((), C), Store(),
    )
    players = [keeper, seat(), seat()]
    state = play(at_role(players, 0, ships=[(T, 4), (I, 5), (S, 6)]), ChooseRole("captain"))
    assert state.stage is Stage.STORAGE and state.current_seat == 0
    assert list(rules.legal_moves(state)) == list(rules.store_options(tuple(keeper.goods), rules.storage_slots(keeper)))


def test_settle_buildable_sellable_extra_goods_and_hacienda() -> None:
    players = [seat(doubloons=3, city=["Hacienda", "Office"], goods={C: 1}), seat(goods={C: 1}), seat()]
    state = at_role(players, 0, face_up=("corn", "indigo", "corn"), trading_house=(C,))
    settling = play(state, ChooseRole("settler"))
    assert rules.settle_options(settling, 0) == ["corn", "indigo", "quarry"]
    assert rules.settle_options(settling, 1) == ["corn", "indigo"]
    assert rules.hacienda_possible(settling, 0) and not rules.hacienda_possible(settling, 1)
    # Trader: the office sells corn twice; seat 1 may not.
    assert rules.sellable(state, 0) == [C] and rules.sellable(state, 1) == []
    # 3 doubloons (no builder's discount at a role choice), in catalogue order; the owned ones left out.
    assert rules.buildable(state, 0) == [
        "Small indigo plant", "Small sugar mill", "Indigo plant", "Small market", "Construction hut", "Small warehouse",
    ]
    assert rules.buildable(state, 2) == []
    assert rules.extra_goods(state) == []


def test_production_received_is_limited_by_the_supply() -> None:
    producer = seat(island=["corn", "indigo", "indigo"], city=["Small indigo plant", "Indigo plant"], workers=[1, 2])
    players = [producer, seat(), seat()]
    state = at_role(players, 0, goods_supply={I: 1})
    made = rules.production(producer)
    assert made == [1, 2, 0, 0, 0]
    assert rules.received(state, made) == [1, 1, 0, 0, 0]
    state = play(state, ChooseRole("craftsman"))
    assert ENGINE.describe_move(state, Produce(), NAMES) == "Ana produces 1 corn and 1 indigo"
    state = play(state, Produce())
    assert state.players[0].goods[:2] == (1, 1)
