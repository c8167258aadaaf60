"""The command is a thin dispatcher over one module per subcommand: ``governor/cli.py`` puts the parser
together and runs the subcommand, each module of ``governor/commands/`` holds a subcommand's arguments
and its run, and no module of the command is longer than one sitting's reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from governor import commands
from governor.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_dispatcher_is_thin_and_no_module_is_long() -> None:
    assert _lines(ROOT / "governor" / "cli.py") < 200
    long = {path.relative_to(ROOT).as_posix(): _lines(path) for path in sorted((ROOT / "governor").rglob("*.py"))
            if _lines(path) > 500}
    assert long == {}


@pytest.mark.parametrize("argv", [["validate", "x"], ["replay", "x"], ["simulate", "--game", "g", "--out", "o"],
                                  ["golden"], ["schema"], ["import", "x"], ["query", "SELECT 1"],
                                  ["export", "--parquet", "o"], ["dashboard"], ["native"], ["analyse", "x"],
                                  ["analyze", "x"], ["arena", "--game", "g", "--players", "2", "--agents", "a"],
                                  ["play"]])
def test_each_subcommand_runs_a_function_of_its_own_module(argv: list[str]) -> None:
    """Each subcommand runs the ``run`` of its module in ``governor.commands``, or of the layer that
    holds it (the analysis' and the arena's own command modules)."""
    func = build_parser().parse_args(argv).func
    module = getattr(func, "__module__", "")
    assert module in {"analysis.cli", "governor.arena.cli"} or (
        module.startswith(f"{commands.__name__}.") and module.rpartition(".")[2].rstrip("_") == argv[0]), module
