"""Each rule in one place: the rules modules' helpers are public and documented, nothing else in the
``replay`` package reaches for a private one, and the San Juan helpers the bot asks answer as the rules
apply them (build costs, black-market goods, limits)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from replay.errors import RuleViolation
from replay.san_juan import bots, rules
from replay.san_juan.cards import Good, Power, Role
from replay.san_juan.moves import Build, ChooseRole, Councillor, Pass
from replay.san_juan.state import Stage, Table
from tests.replay.san_juan.positions import IP, SM, SS, TS, at_role, play, position, seat

REPLAY = Path(__file__).resolve().parents[3] / "replay"
#: A private helper of a rules module named through the module (``rules._x``) or imported from it.
_PRIVATE_USE = re.compile(r"\brules\._[A-Za-z]|from\s+replay\.\w+\.rules\s+import\s+[^\n]*\b_[A-Za-z]")


def private_rules_uses(root: Path) -> list[str]:
    """``path:line: text`` of every use of a rules module's private helper outside the rules modules."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "rules.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _PRIVATE_USE.search(line):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return found


def test_no_module_outside_the_rules_calls_a_private_rules_helper():
    assert private_rules_uses(REPLAY) == []


def test_the_private_helper_check_finds_a_use(tmp_path):
    # Built here so that the check above is known to see what it looks for.
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "bots.py").write_text(
        "from replay.san_juan import rules\nlimit = rules._hand_limit(city)\n", encoding="utf-8"
    )
    (tmp_path / "game" / "rows.py").write_text(
        "from replay.puerto_rico.rules import build_cost, _loads\n", encoding="utf-8"
    )
    (tmp_path / "game" / "rules.py").write_text("x = rules._own_helper()\n", encoding="utf-8")
    assert private_rules_uses(tmp_path) == [
        f"{tmp_path.name}/game/bots.py:2: limit = rules._hand_limit(city)",
        f"{tmp_path.name}/game/rows.py:1: from replay.puerto_rico.rules import build_cost, _loads",
    ]


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_every_public_function_of_the_rules_says_what_it_answers_and_raises(game):
    source = (REPLAY / game / "rules.py").read_text(encoding="utf-8")
    undocumented = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            doc = ast.get_docstring(node) or ""
            if "raise" not in doc.lower():
                undocumented.append(node.name)
    assert undocumented == []


# -- the build cost and the black market, asked by the bot --------------------------------------


def _builder_table(**seat_kwargs: object) -> Table:
    """Seat 0 (built from ``seat_kwargs``) has chosen the builder; seat 1 owns an indigo plant."""
    players = [seat(**seat_kwargs), seat()]  # type: ignore[arg-type]
    return Table(play(at_role(players), ChooseRole(Role.BUILDER)))


def test_build_discounts_privilege_quarry_smithy_and_the_covered_building():
    t = _builder_table(hand=(SS,), buildings=(IP, "Quarry", "Smithy", "Crane"))
    assert rules.build_discounts(t, 0) == (2, 2)
    assert rules.build_discounts(t, 0, replace="Quarry") == (1, 2)
    assert rules.build_discounts(t, 0, replace="Smithy") == (2, 1)
    assert rules.build_discounts(t, 1) == (0, 0)
    assert rules.discounted_cost(SS, (2, 2)) == 3
    assert rules.discounted_cost("Palace", (2, 0)) == 4
    assert rules.discounted_cost(SS, (2, 2), replace=IP) == 2
    assert rules.discounted_cost(IP, (2, 2), replace=SM) == 0
    assert rules.build_cost(t, 0, SS, "Smithy") == 5 - 1 - 1
    assert rules.build_cost(t, 0, "Palace", None) == 6 - 2


def test_black_market_goods_count_and_cap():
    t = _builder_table(hand=(SS,), buildings=(IP, SM, TS, "Black market", "Crane"), goods={0: "Well", 1: "Hero", 2: "Statue"})
    assert rules.black_market_goods(t, 0) == {Good.INDIGO: 1, Good.SUGAR: 1, Good.TOBACCO: 1}
    assert rules.black_market_goods(t, 0, replace=SM) == {Good.INDIGO: 1, Good.TOBACCO: 1}
    assert rules.black_market_goods(t, 0, replace="Black market") == {}
    assert rules.black_market_count(t, 0) == 3
    assert rules.black_market_count(t, 1) == 0
    assert [rules.goods_payable(cost, 3) for cost in range(4)] == [0, 1, 2, 2]
    assert rules.goods_payable(5, 1) == 1
    assert rules.BLACK_MARKET_GOODS == 2


def test_three_black_market_goods_are_refused_with_the_cap():
    players = [seat(hand=("Palace", "Hero", "Tower", "Well"), buildings=(IP, SM, TS, "Black market"),
                    goods={0: "Well", 1: "Hero", 2: "Statue"}), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    # 6 - 1 (privilege) = 5: 2 goods and 3 cards may pay it, 3 goods and 2 cards may not.
    assert Build("Palace", ("Well", "Tower", "Hero"), (Good.INDIGO, Good.SUGAR)) in rules.legal_moves(state)
    with pytest.raises(RuleViolation) as err:
        play(state, Build("Palace", ("Well", "Tower"), (Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    assert (err.value.rule, err.value.reason) == ("black_market.limit", "the black market takes at most 2 goods, not 3")


def test_the_bot_builds_one_of_the_legal_builds_paying_goods_first():
    players = [seat(hand=("Palace", "Hero", "Statue", "Well"), buildings=(IP, SM, "Black market", "Quarry"),
                    goods={0: "Tower", 1: "Chapel"}), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    move = bots.HeuristicPlayer(seed=1).choose(state)
    # Palace 6 - 1 (privilege) - 1 (quarry) = 4: two goods (the cap) and two cards.
    assert move == Build("Palace", ("Well", "Statue"), (Good.INDIGO, Good.SUGAR))
    assert move in rules.legal_moves(state)


# -- limits ------------------------------------------------------------------------------------------


def test_hand_limit_councillor_keep_and_library():
    assert rules.hand_limit((IP,)) == 7
    assert rules.hand_limit((IP, "Tower")) == 12
    assert rules.councillor_keep((IP,)) == 1
    assert rules.councillor_keep((IP, "Prefecture")) == 2
    two = at_role([seat(buildings=(IP, "Library"), library_used=True), seat(buildings=(IP, "Library"))])
    assert (rules.library_usable(two, 0), rules.library_usable(two, 1)) == (False, True)
    three = at_role([seat(buildings=(IP, "Library"), library_used=True), seat(), seat()])
    assert (rules.library_usable(three, 0), rules.library_usable(three, 1)) == (True, False)
    assert rules.library_usable(Table(two), 0) is False


def test_produce_limit_is_the_limit_or_the_cards_left():
    players = [seat(buildings=(IP, SM, TS, "Aqueduct")), seat()]
    state = play(at_role(players, draw=("Hero", "Statue")), ChooseRole(Role.PRODUCER))
    city = state.players[0].buildings
    assert rules.max_produce(state, 0, city) == 3
    assert rules.max_produce(state, 1, state.players[1].buildings) == 1
    assert rules.produce_limit(state, 0, city) == 2
    assert rules.produce_limit(Table(state), 0, city) == 2
    assert max(len(m.goods) for m in rules.legal_moves(state) if m != Pass()) == 2


def test_privilege_counts_and_sell_limit():
    state = position([seat(buildings=(IP, "Trading post")), seat()], stage=Stage.PHASE, role=Role.TRADER,
                     chooser=0, library=True)
    assert (rules.privilege(state, 0), rules.privilege(state, 1)) == (2, 0)
    assert rules.max_sell(state, 0, state.players[0].buildings) == 4
    assert rules.max_sell(state, 1, state.players[1].buildings) == 1
    assert rules.empty_by_good((IP, SM, SM, "Library"), (None, "Hero", None, None)) == {Good.INDIGO: 1, Good.SUGAR: 1}
    assert rules.goods_by_kind((IP, SM, SM), ("Well", "Hero", None)) == {Good.INDIGO: 1, Good.SUGAR: 1}
    assert rules.goods_by_kind((IP, SM, SM), ("Well", "Hero", None), without_index=0) == {Good.SUGAR: 1}


def test_has_power_leaves_out_the_building_covered():
    t = Table(at_role([seat(buildings=(IP, "Smithy", "Crane")), seat()]))
    assert rules.has_power(t, 0, Power.SMITHY)
    assert not rules.has_power(t, 0, Power.SMITHY, without="Smithy")
    assert not rules.has_power(t, 1, Power.SMITHY)


def test_archive_discards_and_sale_income():
    assert rules.archive_discards(2, (IP, "Archive")) == (1, 2)
    assert rules.archive_discards(2, (IP, "Archive", "Prefecture")) == (0, 2)
    assert rules.archive_discards(7, (IP, "Archive")) == (6, 7)
    # Tile 1 pays 1, 1, 1, 2, 2 for indigo to silver.
    assert rules.sale_income(1, (Good.INDIGO, Good.SILVER, Good.SILVER)) == 5
    assert rules.sale_income(5, (Good.INDIGO, Good.COFFEE)) == 1 + 3
    with pytest.raises(KeyError):
        rules.sale_income(6, (Good.INDIGO,))


def test_an_archive_owner_discards_too_few_with_the_count_named():
    players = [seat(hand=("Well", "Hero"), buildings=(IP, "Archive")), seat()]
    state = play(at_role(players, draw=("Statue", "Tower", "Chapel", "Palace", "Crane", "Smithy", "Quarry")),
                 ChooseRole(Role.COUNCILLOR))
    # The councillor draws 5: he discards 4 to 5 of his hand and the drawn cards together.
    assert len(state.looking) == 5
    with pytest.raises(RuleViolation) as err:
        play(state, Councillor(discard=("Well", "Hero", "Statue")))
    assert (err.value.rule, err.value.reason) == ("councillor.discard_count", "must discard 4 to 5 of 5 drawn cards, not 3")
    move = bots.HeuristicPlayer(seed=2).choose(state)
    assert move.discard is not None and len(move.discard) == 4
    assert move in rules.legal_moves(state)


def test_the_rules_name_no_card_they_read_each_building_by_its_power() -> None:
    """The rules, the moves, the engine and the bot find a violet building by its power in the
    catalogue (``cards.HOLDER``), not by a name written in their code."""
    import re
    from pathlib import Path

    from replay.san_juan import cards

    quoted = re.compile("[\"'](" + "|".join(re.escape(name) for name in cards.CARDS) + ")[\"']")
    folder = Path(__file__).resolve().parents[3] / "replay" / "san_juan"  # the sources (a compiled build runs elsewhere)
    found = [f"{name}:{number}: {line.strip()}" for name in ("rules.py", "moves.py", "engine.py", "bots.py")
             for number, line in enumerate((folder / name).read_text(encoding="utf-8").splitlines(), 1)
             if quoted.search(line)]
    assert found == []
    assert (cards.GOLD_MINE, cards.TOWER, cards.WELL) == ("Gold mine", "Tower", "Well")
