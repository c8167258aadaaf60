"""``replay.frozen``: the fast constructors of the frozen snapshots and moves make exactly what the
classes' own constructors make, compiled or not, and every compiled builder stores every field."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from replay import frozen
from replay.puerto_rico import state as pr_state
from replay.registry import engine_for
from replay.san_juan import moves as sj_moves
from replay.san_juan import state as sj_state
from replay.san_juan.cards import Good


def _samples() -> list[Any]:
    sj = engine_for("san_juan")
    pr = engine_for("puerto_rico")
    sj_game = sj.simulation_state(sj.new_random_game(["a", "b", "c"], 5, {}), 5)
    pr_game = pr.simulation_state(pr.new_random_game(["a", "b", "c"], 5, {}), 5)
    return [
        sj_game, sj_game.players[0], pr_game, pr_game.players[1],
        sj_moves.Build("Smithy", ("Indigo plant", "Well"), (), None, ("Carpenter",)),
        sj_moves.Build("Smithy", (), (Good.SUGAR,), "Well", ()),
        sj_moves.Produce((Good.INDIGO, Good.COFFEE), ("Well",)),
        sj_moves.Sell((Good.SILVER,), ("Market stand",)),
        sj_moves.Councillor(("Smithy",), ("Well", "Tower")),
        sj_moves.Councillor(None, None),
        sj_moves.GoldMine("Smithy"),
        sj_moves.Chapel("Smithy"),
        sj_moves.HandLimit(("Smithy", "Well")),
        sj_moves.Draft(("Smithy",)),
    ]


SAMPLES = _samples()
#: The package's sources (``replay.frozen`` is never compiled).
REPLAY = Path(frozen.__file__).resolve().parent
#: Every class with a registered builder, and the module that registers it.
REGISTERED = {cls: module for module in (sj_state, pr_state, sj_moves) for cls in vars(module).values()
              if isinstance(cls, type) and cls in frozen._BUILDERS}


def test_every_sampled_class_has_a_builder() -> None:
    assert {type(sample) for sample in SAMPLES} == set(REGISTERED) == set(frozen._BUILDERS)
    assert len(REGISTERED) == 12


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
def test_the_fast_constructor_makes_what_the_class_makes(sample: Any) -> None:
    cls = type(sample)
    values = tuple(getattr(sample, f.name) for f in dataclasses.fields(cls))
    make = frozen.fast_constructor(cls)
    made = make(*values)
    assert type(made) is cls
    assert made == cls(*values) == sample
    assert hash(made) == hash(sample)
    assert repr(made) == repr(sample)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__(dataclasses.fields(cls)[0].name, values[0])
    # Compiled, the registered builder; interpreted, the unfrozen twin (a builder would meet the
    # frozen __setattr__).
    assert (make is frozen._BUILDERS[cls]) == (not hasattr(cls, "__slots__"))


@pytest.mark.parametrize("cls", list(REGISTERED), ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_a_builder_stores_every_field_in_order(cls: type) -> None:
    """Read from the source (the compiled function has no signature to inspect): the builder takes
    the fields in declaration order, with their types, and stores each one into the new object."""
    source = REPLAY.joinpath(*REGISTERED[cls].__name__.split(".")[1:]).with_suffix(".py")
    tree = ast.parse(source.read_text())
    builder = frozen._BUILDERS[cls]
    [func] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == builder.__name__]
    fields = dataclasses.fields(cls)
    # The field types as written in the class (compiled, ``dataclasses.fields`` holds evaluated types).
    [body] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    declared = [(n.target.id, ast.unparse(n.annotation)) for n in body.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    assert [name for name, _ in declared] == [f.name for f in fields]
    assert [(a.arg, ast.unparse(a.annotation)) for a in func.args.args] == declared
    stores = [(ast.unparse(s.targets[0]), ast.unparse(s.value)) for s in func.body[1:-1] if isinstance(s, ast.Assign)]
    assert stores == [(f"made.{f.name}", f.name) for f in fields]
    assert ast.unparse(func.body[0]) == f"made = {cls.__name__}.__new__({cls.__name__})"
    assert ast.unparse(func.body[-1]) == "return made"
    assert len(func.body) == len(fields) + 2
