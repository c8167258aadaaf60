"""Captain phase: compulsory loading, the ship rules, harbor, wharf, VP chips, storage, ships emptied."""

from __future__ import annotations

import pytest

from replay.errors import RuleViolation
from replay.puerto_rico import rules
from replay.puerto_rico.moves import WHARF, ChooseRole, Load, Pass, Store
from replay.puerto_rico.state import Stage

from .positions import C, I, K, S, T, at_role, defaults, goods, play, seat, supply


def refresher_start():
    """The refresher's worked example: four players, you (seat 0) take the captain."""
    players = [
        seat(goods={C: 3, I: 2, S: 1}),
        seat(goods={K: 2, I: 1}),
        seat(goods={T: 2}),
        seat(goods={T: 1}),
    ]
    # 4 players: ships of 5, 6 and 7; sugar with 1 space left, indigo with 3 left, the third empty.
    return at_role(players, 0, ships=[(S, 4), (I, 3), (None, 0)])


def test_refresher_captain_example() -> None:
    state = play(refresher_start(), ChooseRole("captain"))
    assert state.stage is Stage.CAPTAIN and state.current_seat == 0
    assert rules.legal_moves(state) == [Load(C, 2), Load(I, 1), Load(S, 0)]
    # You load the corn on the empty ship: 3 VP plus 1 for the captain.
    state = play(state, Load(C, 2))
    # To your left the coffee has nowhere to go, so the indigo is compulsory (done automatically);
    # neither tobacco player can load; it comes back to you.
    assert state.players[1].vp_chips == 1
    assert goods(state, 1) == {"coffee": 2}
    assert state.ship_good == (S, I, C) and state.ship_load == (4, 4, 3)
    assert state.current_seat == 0
    assert rules.legal_moves(state) == [Load(I, 1), Load(S, 0)]
    # Your 2 indigo fill the indigo ship (no second captain bonus); your sugar then fills the sugar
    # ship automatically, and nobody can load any more.
    state = play(state, Load(I, 1))
    assert [p.vp_chips for p in state.players] == [3 + 1 + 2 + 1, 1, 0, 0]
    # Storage from the captain, who holds nothing: the left player may keep a coffee or return both.
    assert state.stage is Stage.STORAGE and state.current_seat == 1
    assert rules.legal_moves(state) == [Store((), K), Store()]
    # A log that says nothing keeps the most: left keeps 1 coffee, each tobacco player a single
    # barrel; the full sugar and indigo ships are emptied; the corn ship (3 of 7) stays.
    state = defaults(state)
    assert goods(state, 0) == {}
    assert goods(state, 1) == {"coffee": 1}
    assert goods(state, 2) == {"tobacco": 1}
    assert goods(state, 3) == {"tobacco": 1}
    assert state.ship_good == (None, None, C) and state.ship_load == (0, 0, 3)
    assert supply(state, S) == 11 + 5 and supply(state, I) == 11 + 6
    assert supply(state, K) == 9 + 1 and supply(state, T) == 9 + 1
    assert state.stage is Stage.ROLE and state.current_seat == 1
    assert state.vp_chips_left == 100 - 8


def test_captain_must_load() -> None:
    state = play(refresher_start(), ChooseRole("captain"))
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Pass())
    assert err.value.rule == "captain.must_load"
    assert err.value.reason == (
        "must load when a cargo ship can take goods (can load: corn on the 7-ship, indigo on the 6-ship, "
        "sugar on the 5-ship)"
    )


def test_one_kind_one_ship() -> None:
    state = play(refresher_start(), ChooseRole("captain"))
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(I, 2))
    assert (err.value.rule, err.value.reason) == (
        "captain.one_ship", "indigo is already on the 6-ship: must load indigo on the 6-ship"
    )
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(C, 0))
    assert (err.value.rule, err.value.reason) == ("captain.ship_kind", "the 5-ship carries sugar, not corn")
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(K, 2))
    assert (err.value.rule, err.value.reason) == ("captain.goods", "has no coffee to load")
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(C, WHARF))
    assert (err.value.rule, err.value.reason) == ("wharf.owned", "loading on the wharf needs an occupied wharf")


def test_must_choose_ship_taking_most() -> None:
    state = play(at_role([seat(goods={K: 6}), seat(), seat()], 0), ChooseRole("captain"))
    # 6 coffee and three empty ships (4, 5, 6): only the 6-ship is legal, so it loads automatically.
    assert state.players[0].vp_chips == 7
    # The full 6-ship was emptied after storage.
    assert state.ship_good == (None, None, None) and supply(state, K) == 9 + 6
    state = at_role([seat(goods={K: 5, C: 1}), seat(), seat()], 0)
    state = play(state, ChooseRole("captain"))
    assert rules.legal_moves(state) == [Load(C, 0), Load(C, 1), Load(C, 2), Load(K, 1), Load(K, 2)]
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(K, 0))
    assert (err.value.rule, err.value.reason) == (
        "captain.most", "must load coffee on the 5-ship, which takes 5 (the 4-ship takes only 4)"
    )


def test_full_ship_blocks_its_kind() -> None:
    state = at_role([seat(goods={C: 2}), seat(goods={I: 1}), seat()], 0, ships=[(C, 4), (None, 0), (None, 0)])
    state = play(state, ChooseRole("captain"))
    # Corn may not go on another ship while the full corn ship holds corn; seat 1's indigo must go on
    # the ship that takes the most (5 and 6 both take 1: a choice).
    assert state.current_seat == 1
    assert rules.legal_moves(state) == [Load(I, 1), Load(I, 2)]
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(I, 0))
    assert (err.value.rule, err.value.reason) == ("captain.ship_kind", "the 4-ship carries corn, not indigo")


def test_captain_bonus_once_and_harbor() -> None:
    players = [
        seat(goods={C: 1, I: 1}, city=["Harbor"]),
        seat(goods={S: 1}, city=["Harbor"], workers=[0]),
        seat(),
    ]
    state = play(at_role(players, 0), ChooseRole("captain"))
    state = play(state, Load(C, 0))
    # Seat 0: 1 barrel + 1 captain + 1 harbor; seat 1's harbor is empty: 1 barrel (forced onto the
    # 5-ship or 6-ship? both take 1: a choice).
    assert state.players[0].vp_chips == 3
    assert state.current_seat == 1
    state = play(state, Load(S, 2))
    assert state.players[1].vp_chips == 1
    # Seat 0 loads indigo (forced onto the remaining empty ship): 1 + 1 harbor, no second bonus.
    assert state.players[0].vp_chips == 5
    assert state.ship_good == (C, I, S)


def test_wharf_once_per_phase_and_optional() -> None:
    players = [seat(goods={C: 7, I: 2}, city=["Wharf"]), seat(), seat()]
    state = at_role(players, 0, ships=[(S, 4), (T, 5), (K, 6)])
    state = play(state, ChooseRole("captain"))
    # Every ship is full of another kind: only the wharf, and passing is allowed.
    assert rules.legal_moves(state) == [Load(C, WHARF), Load(I, WHARF), Pass()]
    state = play(state, Load(C, WHARF))
    assert state.players[0].vp_chips == 7 + 1
    assert supply(state, C) == 10 + 7
    # Nobody else can load and the wharf is spent: storage, where saying nothing keeps 1 indigo.
    assert state.stage is Stage.STORAGE and rules.default_move(state) == Store((), I)
    state = defaults(state)
    assert goods(state, 0) == {"indigo": 1}
    assert state.stage is Stage.ROLE
    # A pass with only the wharf available ends the seat's turn without loading.
    state = play(at_role([seat(goods={C: 2}, city=["Wharf"]), seat(), seat()], 0, ships=[(S, 4), (T, 5), (K, 6)]),
                 ChooseRole("captain"), Pass())
    state = defaults(state)
    assert state.players[0].vp_chips == 0 and goods(state, 0) == {"corn": 1}
    # After the wharf takes the corn, the indigo may go on any of the three empty ships: a decision.
    state = play(at_role([seat(goods={C: 2, I: 1}, city=["Wharf"]), seat(), seat()], 0),
                 ChooseRole("captain"), Load(C, WHARF))
    assert rules.legal_moves(state) == [Load(I, 0), Load(I, 1), Load(I, 2)]
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Load(I, WHARF))
    assert (err.value.rule, err.value.reason) == ("wharf.used", "the wharf was already used this phase")


def test_wharf_beside_cargo_and_harbor() -> None:
    players = [seat(goods={C: 3, K: 4}, city=["Wharf", "Harbor"]), seat(), seat()]
    state = play(at_role(players, 0), ChooseRole("captain"))
    assert rules.legal_moves(state) == [Load(C, 0), Load(C, 1), Load(C, 2), Load(K, 0), Load(K, 1), Load(K, 2),
                                        Load(C, WHARF), Load(K, WHARF)]
    state = play(state, Load(K, WHARF))
    # 4 barrels + harbor + captain; then corn is compulsory on a cargo ship (three empty ships take 3).
    assert state.players[0].vp_chips == 6
    state = play(state, Load(C, 0))
    assert state.players[0].vp_chips == 6 + 3 + 1
    assert state.stage is Stage.ROLE


def test_last_vp_chip_ends_game_points_still_paid() -> None:
    players = [seat(goods={C: 3}), seat(goods={I: 2}), seat()]
    state = at_role(players, 0, vp_chips_left=3, roles_taken=(), round=5)
    state = play(state, ChooseRole("captain"))
    # Corn on any empty ship (3 each way): a choice.
    state = play(state, Load(C, 2))
    assert state.end == ("vp_chips",)
    assert state.vp_chips_left == -1
    state = play(state, Load(I, 1))
    assert [p.vp_chips for p in state.players] == [4, 2, 0]
    assert state.vp_chips_left == -3
    # The round is played out; the game ends after the third role.
    assert state.stage is Stage.ROLE
    state = play(state, ChooseRole("settler"), Pass(), Pass(), Pass())
    assert state.stage is Stage.ROLE
    # Nobody produces anything: the craftsman phase needs no decision, and the game ends.
    state = play(state, ChooseRole("craftsman"))
    assert state.stage is Stage.OVER
    assert state.role_doubloons == (0, 1, 1, 0, 1, 0)


def test_storage_warehouses() -> None:
    small = seat(goods={C: 3, I: 2, S: 1}, city=["Small warehouse"])
    large = seat(goods={C: 3, I: 2, S: 1, T: 2}, city=["Large warehouse"])
    both = seat(goods={C: 3, I: 2, S: 1, T: 2}, city=["Small warehouse", "Large warehouse"])
    state = at_role([small, large, both], 0, ships=[(T, 4), (K, 5), (S, 0)])
    state = play(state, ChooseRole("captain"))
    # Seat 0 loads its sugar (forced), seat 1 its sugar (forced), seat 2 its sugar (forced); tobacco
    # cannot go on the full tobacco ship. Then storage from the captain.
    assert state.stage is Stage.STORAGE and state.current_seat == 0
    # The outcomes keeping the most first (no default: two of them), then every smaller one.
    assert rules.legal_moves(state) == [
        Store((C,), I), Store((I,), C), Store((C,), None), Store((I,), None), Store((), C), Store((), I), Store(),
    ]
    assert rules.default_move(state) is None
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Store((C, I), None))
    assert (err.value.rule, err.value.reason) == (
        "storage.warehouse", "keeps 2 kinds whole but its occupied warehouses take 1 kind"
    )
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Store((C,), C))
    assert (err.value.rule, err.value.reason) == (
        "storage.keep", "corn is kept whole in a warehouse: the windrose keeps one barrel of another kind"
    )
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Store((K,), None))
    assert (err.value.rule, err.value.reason) == ("storage.goods", "has no coffee to keep in a warehouse")
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Store((C,), T))
    assert (err.value.rule, err.value.reason) == ("storage.goods", "has no tobacco to keep on the windrose")
    state = play(state, Store((C,), I))
    assert goods(state, 0) == {"corn": 3, "indigo": 1}
    assert state.current_seat == 1
    assert len(rules.legal_moves(state)) == 19
    state = play(state, Store((C, T), I))
    assert goods(state, 1) == {"corn": 3, "indigo": 1, "tobacco": 2}
    # Seat 2 can keep all three kinds it still holds: that is the default when the log says nothing.
    assert state.current_seat == 2 and len(rules.legal_moves(state)) == 20
    assert rules.default_move(state) == Store((C, I, T), None)
    state = defaults(state)
    assert goods(state, 2) == {"corn": 3, "indigo": 2, "tobacco": 2}
    assert state.stage is Stage.ROLE


def test_storage_single_barrel_choice() -> None:
    state = at_role([seat(goods={C: 1, I: 1}), seat(), seat()], 0, ships=[(T, 4), (K, 5), (S, 6)])
    state = play(state, ChooseRole("captain"))
    assert rules.legal_moves(state) == [Store((), C), Store((), I), Store()]
    assert rules.default_move(state) is None
    state = play(state, Store((), I))
    assert goods(state, 0) == {"indigo": 1}
    assert supply(state, C) == 11
