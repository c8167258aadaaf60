"""The compiled engines (``replay.native``): used only when built from the current sources, and giving
exactly what the pure-Python engines give."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay import native

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "replay" / "native_probe.py"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (native.PURE_ENV, "GOVERNOR_NATIVE_DIR")}
    return env | extra


def _python(code: str, **env: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=_env(**env), cwd=ROOT).stdout.strip()


WHICH = "import replay, replay.san_juan.rules as r, replay.puerto_rico.rules as p; print(replay.native.status); print(r.__file__.endswith('.py'), p.__file__.endswith('.py'))"


def _needs_compiled() -> None:
    """These tests compare the compiled engines with the pure-Python ones: they run where setup could
    compile (CI must), and are not part of the run on the pure-Python engines (the Makefile's PURE_TESTS)."""
    if native.status != "compiled (mypyc)":
        if os.environ.get("CI") or os.environ.get(native.PURE_ENV):
            pytest.fail(f"the compiled engines are needed here, but: {native.status}")
        pytest.skip(f"missing optional dependency: the compiled engines ({native.status}; setup builds them "
                    "with a C compiler and mypy)")


def test_compiled_and_pure_engines_answer_the_same() -> None:
    _needs_compiled()
    runs = [subprocess.Popen([sys.executable, str(PROBE)], stdout=subprocess.PIPE, text=True, env=_env(**extra), cwd=ROOT)
            for extra in ({}, {native.PURE_ENV: "1"})]
    compiled, pure = (json.loads(run.communicate()[0]) for run in runs)
    assert compiled.pop("status") == "compiled (mypyc)"
    assert pure.pop("status") == "pure Python: GOVERNOR_PURE is set"
    assert compiled == pure
    # every section compared something: 60 samples, 54 simulated games, bad and mutated logs, 2 analyses
    assert compiled["simulated"]["items"] == 54
    assert compiled["analysis"]["items"] == 2
    assert compiled["samples"]["items"] > 2000 and compiled["errors"]["items"] > 600


def test_the_compiled_modules_are_the_ones_imported_when_current() -> None:
    _needs_compiled()
    assert _python(WHICH).splitlines() == ["compiled (mypyc)", "False False"]
    assert _python(WHICH, GOVERNOR_PURE="1").splitlines() == ["pure Python: GOVERNOR_PURE is set", "True True"]


def test_a_build_of_other_sources_is_never_used(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"digest": "0" * 64, "files": {}}))
    assert _python(WHICH, GOVERNOR_NATIVE_DIR=str(tmp_path)).splitlines() == [
        "pure Python: the compiled engines were built from other sources (governor native build)", "True True"]
    (tmp_path / "manifest.json").write_text("{not json")
    assert _python(WHICH, GOVERNOR_NATIVE_DIR=str(tmp_path)).splitlines()[0] == (
        f"pure Python: {tmp_path / 'manifest.json'} cannot be read")


def test_without_a_build_the_engines_are_pure_python(tmp_path: Path) -> None:
    assert _python(WHICH, GOVERNOR_NATIVE_DIR=str(tmp_path / "none")).splitlines() == [
        "pure Python: the compiled engines are not built (governor native build)", "True True"]
    out = subprocess.run([sys.executable, "-m", "governor.cli", "native"], capture_output=True, text=True,
                         env=_env(GOVERNOR_NATIVE_DIR=str(tmp_path / "none")), cwd=ROOT)
    assert (out.returncode, out.stdout) == (0, "engines: pure Python: the compiled engines are not built (governor native build)\n")


def test_a_machine_without_a_compiler_keeps_pure_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import sysconfig

    real = sysconfig.get_config_var
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: "no-such-cc -pthread" if name == "CC" else real(name))
    (tmp_path / "keep").mkdir()
    assert native.build(tmp_path / "keep") is False
    assert capsys.readouterr().out == "governor: no C compiler (no-such-cc): the engines run as pure Python (2 to 4 times slower)\n"
    assert list((tmp_path / "keep").iterdir()) == []
    monkeypatch.setitem(sys.modules, "mypyc", None)  # not installed
    assert native.build(tmp_path / "keep") is False
    assert capsys.readouterr().out == "governor: mypyc is not installed (pip install mypy): the engines run as pure Python\n"


def _unfinal_constants(source: str) -> list[str]:
    """The module-level constants (``NAME`` or ``_NAME`` in capitals) of ``source`` not declared Final."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            final = False
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
            note = node.annotation
            final = (isinstance(note, ast.Name) and note.id == "Final") or (
                isinstance(note, ast.Subscript) and isinstance(note.value, ast.Name) and note.value.id == "Final")
        else:
            continue
        found += [f"{name} (line {node.lineno})" for name in names
                  if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name) and not final]
    return found


def test_the_compiled_modules_constants_are_final() -> None:
    """Compiled, a module constant not declared Final is looked up in the module's dict at every use
    (18% of a Puerto Rico rollout once): every compiled module keeps its constants Final."""
    assert _unfinal_constants("A = 1\n_B: dict[str, int] = {}\nC: Final = 2\nD: Final[int] = 3\nlow = 4\n") == [
        "A (line 1)", "_B (line 2)"]
    missing = {name: _unfinal_constants((ROOT / Path(*name.split("."))).with_suffix(".py").read_text(encoding="utf-8"))
               for name in native.compiled_modules()}
    assert {name: names for name, names in missing.items() if names} == {}


def test_a_build_replaces_the_last_one_and_removes_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Compiling is faked (a file per module); what is checked is how the build is put in place: a
    folder named like the old fixed aside name (``.native.old``) is someone's and stays whole, and a
    link at the build's name is replaced without touching what it names."""
    import importlib.machinery

    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]

    def compiled(args: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
        for name in native.compiled_modules():
            built = Path(cwd).joinpath(*name.split(".")).with_suffix(suffix)
            built.write_bytes(b"compiled " + name.encode())
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(native.subprocess, "run", compiled)
    monkeypatch.setattr(native.shutil, "which", lambda name: "/usr/bin/" + name)
    out = tmp_path / ".native"
    theirs = tmp_path / ".native.old"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("someone's")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "manifest.json").write_text('{"digest": "other"}')
    out.symlink_to(elsewhere)
    assert native.build(out, quiet=True) is True
    assert not out.is_symlink() and json.loads((out / "manifest.json").read_text())["digest"] == native.source_digest()
    assert (elsewhere / "manifest.json").read_text() == '{"digest": "other"}'
    (out / "manifest.json").write_text('{"digest": "older"}')
    assert native.build(out, quiet=True) is True  # an earlier build replaced
    assert json.loads((out / "manifest.json").read_text())["digest"] == native.source_digest()
    assert (theirs / "keep.txt").read_text() == "someone's"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".native", ".native.old", "elsewhere"]
    assert sorted(p.name for p in (out / "replay" / "san_juan").iterdir()) == sorted(
        Path(*name.split(".")).with_suffix(suffix).name for name in native.compiled_modules() if name.startswith("replay.san_juan."))


DICE_INIT = '''
from replay.game import GameDeclaration

GAME = GameDeclaration(name="dice", title="Dice", min_players=2, max_players=2, engine="dice_game.rules:ENGINE",
                       view="dice_game.rules", catalogue="dice_game.rules", bots=(), log_schema="dc_",
                       log_schema_file="dice_game:log.schema.json", compiled=({compiled}))
'''


@pytest.fixture()
def installed_dice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A game ``dice`` in a package outside Governor, installed, declaring ``dice_game.rules`` compiled."""
    from replay import game
    from tests.replay.distributions import drop_modules, install_distribution

    package = tmp_path / "dice_game"
    package.mkdir()
    (package / "__init__.py").write_text(DICE_INIT.format(compiled='"dice_game.rules",'), encoding="utf-8")
    (package / "rules.py").write_text("SIDES: Final = 6\n", encoding="utf-8")
    (package / "helpers.py").write_text("", encoding="utf-8")
    install_distribution(tmp_path, "dice_game", "[governor.games]\ndice = dice_game:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    game.forget()
    yield package
    drop_modules("dice_game")
    monkeypatch.undo()
    game.forget()


def test_a_game_installed_elsewhere_is_compiled_and_its_edits_make_a_build_stale(
        installed_dice: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing in replay.native names a game: the modules come from the declarations, a game's package
    outside ``replay/`` is compiled beside it, and an edit of any of its source files (compiled or not)
    changes the digest, so its build is stale."""
    import importlib.machinery

    modules = native.compiled_modules()
    assert modules[0] == "replay.replayer" and modules[-1] == "dice_game.rules"
    assert [m.partition(".")[0] for m in modules].count("dice_game") == 1
    digest = native.source_digest()
    (installed_dice / "helpers.py").write_text("# edited\n", encoding="utf-8")
    edited = native.source_digest()
    (installed_dice / "rules.py").write_text("SIDES: Final = 8\n", encoding="utf-8")
    assert len({digest, edited, native.source_digest()}) == 3
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    compiled: list[str] = []

    def fake_mypyc(args: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
        compiled.extend(args[3:])
        for name in modules:
            assert Path(cwd).joinpath(*name.split(".")).with_suffix(".py").is_file()  # its source, copied beside replay
            Path(cwd).joinpath(*name.split(".")).with_suffix(suffix).write_bytes(b"compiled")
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(native.subprocess, "run", fake_mypyc)
    monkeypatch.setattr(native.shutil, "which", lambda name: "/usr/bin/" + name)
    assert native.build(tmp_path / "out", quiet=True) is True
    assert compiled[-1] == "dice_game/rules.py" and len(compiled) == len(modules)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["files"]["dice_game.rules"] == f"dice_game/rules{suffix}"
    assert manifest["digest"] == native.source_digest()
    assert list(installed_dice.glob(f"*{suffix}")) == []  # nothing compiled left beside the sources


def test_a_declared_module_without_a_source_is_named(installed_dice: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.game import GameDeclarationError

    (installed_dice / "__init__.py").write_text(DICE_INIT.format(compiled='"dice_game.rule",'), encoding="utf-8")
    monkeypatch.setattr(native.shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(GameDeclarationError, match=(
            f"^compiled module dice_game.rule: no source file {re.escape(str(installed_dice.resolve()))}/rule.py$")):
        native.build(tmp_path / "out", quiet=True)
    assert not (tmp_path / "out").exists()
