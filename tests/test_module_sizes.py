"""Modules small enough to read in one sitting: no Python module of the product (the layers' packages,
the benchmarks and the scripts) is over ``MAX_LINES`` lines, a game's own package aside (its rules are
as long as the game: ``replay/<game>/``, a folder of ``replay/`` whose ``__init__.py`` declares
``GAME``). A module past the limit is split by job, as the log reader, the lake, the uploads and the
games in progress were."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The folders whose modules are counted: the layers (``tests/test_layers.py``), the benchmarks, the scripts.
FOLDERS = ("replay", "ingest", "analysis", "play", "dashboards", "governor", "bench", "scripts")
MAX_LINES = 500
#: Known exceptions, each with the most lines it may have: they must shrink, never grow, and an entry
#: goes as soon as its module is within the limit (the test says so). Each is to be split by job.
KNOWN: dict[str, int] = {}


def _declares_a_game(package: Path) -> bool:
    """Whether ``package`` is a game's package: its ``__init__.py`` assigns ``GAME`` at the top level."""
    init = package / "__init__.py"
    if not init.is_file():
        return False
    tree = ast.parse(init.read_text(encoding="utf-8"), filename=str(init))
    return any(isinstance(node, ast.Assign | ast.AnnAssign)
               and any(isinstance(t, ast.Name) and t.id == "GAME"
                       for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
               for node in tree.body)


def module_sizes(root: Path) -> dict[str, int]:
    """The lines of every Python module under ``root``'s ``FOLDERS`` (paths relative to ``root``,
    with ``/``), the games' packages under ``replay/`` left out."""
    games = [p for p in (root / "replay").iterdir() if p.is_dir() and _declares_a_game(p)] \
        if (root / "replay").is_dir() else []
    sizes: dict[str, int] = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            if any(path.is_relative_to(game) for game in games):
                continue
            sizes[path.relative_to(root).as_posix()] = len(path.read_text(encoding="utf-8").splitlines())
    return sizes


def oversized(root: Path) -> dict[str, int]:
    """The modules over ``MAX_LINES`` lines (see ``module_sizes``) with their lines."""
    return {path: lines for path, lines in module_sizes(root).items() if lines > MAX_LINES}


def test_no_module_is_over_the_limit() -> None:
    offenders = {path: lines for path, lines in oversized(ROOT).items() if path not in KNOWN}
    listed = ", ".join(f"{path} ({lines} lines)" for path, lines in sorted(offenders.items()))
    assert not offenders, f"modules over {MAX_LINES} lines (split each by job): {listed}"


def test_the_known_exceptions_only_shrink() -> None:
    sizes = module_sizes(ROOT)
    grown = [f"{path} ({sizes[path]} lines, at most {most})" for path, most in KNOWN.items()
             if path in sizes and sizes[path] > most]
    assert not grown, f"known exceptions that grew (they must shrink): {', '.join(grown)}"
    done = [path for path in KNOWN if sizes.get(path, 0) <= MAX_LINES]
    assert not done, f"within {MAX_LINES} lines now or gone: remove from KNOWN: {', '.join(done)}"


def test_the_checker_counts_every_module_but_a_games_rules(tmp_path: Path) -> None:
    game = tmp_path / "replay" / "some_game"
    game.mkdir(parents=True)
    (game / "__init__.py").write_text('GAME = "declared"\n', encoding="utf-8")
    (game / "rules.py").write_text("x = 1\n" * 900, encoding="utf-8")
    (tmp_path / "replay" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    (tmp_path / "ingest" / "deep").mkdir(parents=True)
    (tmp_path / "ingest" / "deep" / "long.py").write_text("x = 1\n" * 600, encoding="utf-8")
    (tmp_path / "ingest" / "short.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    assert oversized(tmp_path) == {"ingest/deep/long.py": 600, "replay/long.py": MAX_LINES + 1}
