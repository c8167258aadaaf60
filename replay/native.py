"""The optional compiled engines: the replay loop and the modules every game declares for compiling
(``GameDeclaration.compiled``: its catalogue, moves, state, rules, scoring, bots, rows, view...)
compiled to C with mypyc, used automatically when they are built and match the sources.

The Python modules stay the one source of the rules; the compiled ones are the same modules, built
from them by ``governor native build`` (which ``scripts/setup.sh`` runs) into ``.native/`` beside
the package, with a manifest holding a digest of every source file of ``replay`` and of the package
of every compiled module outside it (a game installed from elsewhere). On ``import replay``,
``activate`` puts a finder in front of the import system that loads these modules from ``.native/``,
but only when the digest still matches: after any edit of these sources the pure-Python modules are
used until the next build, so a stale build never runs. ``GOVERNOR_PURE=1`` forces the pure-Python
path (the tests run both and compare them); a machine without a C compiler simply has no build.

This module names no game: the modules come from the games' declarations (``replay.game``), found
through their entry points; reading them imports each game's declaring package only.

In the compiled modules every module-level constant is declared ``Final``: compiled code then reads it
as a C static (or inlines a literal) instead of looking it up in the module's dict at every use
(``tests/replay/test_native.py`` checks it).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from replay.errors import printable
from replay.game import GameDeclarationError, declarations

#: The replay loop, compiled before every game's modules.
REPLAY_MODULES = ("replay.replayer",)

PACKAGE = Path(__file__).resolve().parent
#: Where the build goes: ``.native`` beside the ``replay`` package (the checkout), or ``$GOVERNOR_NATIVE_DIR``.
NATIVE_DIR = Path(os.environ.get("GOVERNOR_NATIVE_DIR") or PACKAGE.parent / ".native")
PURE_ENV = "GOVERNOR_PURE"

#: What ``activate`` found: ``compiled``, or why the pure-Python modules are used.
status = "pure Python: not activated"


def compiled_modules() -> tuple[str, ...]:
    """The modules a build compiles, in order: the replay loop, then each declared game's ``compiled``
    modules in the games' order. Raises ``GameDeclarationError`` when the games cannot be found, or
    when two games declare one module."""
    modules = list(REPLAY_MODULES)
    for game in declarations().values():
        for name in game.compiled:
            if name in modules:
                raise GameDeclarationError(f"game {game.name}: compiled module {name} is declared twice")
            modules.append(name)
    return tuple(modules)


def _package_roots(modules: tuple[str, ...]) -> dict[str, Path]:
    """The folder of each top-level package the compiled ``modules`` live in, by package name
    (``replay`` is this package; another is found without being imported again). Raises
    ``GameDeclarationError`` for a package that is not an ordinary folder of sources."""
    roots = {PACKAGE.name: PACKAGE}
    for top in sorted({name.partition(".")[0] for name in modules} - {PACKAGE.name}):
        spec = importlib.util.find_spec(top)
        locations = list(spec.submodule_search_locations or ()) if spec is not None else []
        if len(locations) != 1:
            raise GameDeclarationError(f"compiled modules of package {top}: it is not one folder of sources "
                                       f"({len(locations)} found)")
        roots[top] = Path(locations[0]).resolve()
    return roots


def _module_file(name: str, roots: dict[str, Path]) -> Path:
    top, _, rest = name.partition(".")
    return roots[top].joinpath(*rest.split(".")).with_suffix(".py")


def source_digest() -> str:
    """A digest of every source file of the ``replay`` package and of each other package holding a
    compiled module (a game installed from elsewhere), the Python version and the platform: a build is
    used only while this is the digest it was built from. Raises ``GameDeclarationError`` when the
    games cannot be found."""
    digest = hashlib.sha256(f"{sys.version}|{sysconfig.get_platform()}".encode())
    for top, root in _package_roots(compiled_modules()).items():
        # ``replay``'s paths are written as before (relative to it); another package's are prefixed
        # with its name, so that moving a file between packages changes the digest.
        prefix = "" if root == PACKAGE else f"{top}/"
        for path in sorted(root.rglob("*.py")):
            digest.update((prefix + path.relative_to(root).as_posix()).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class _NativeFinder:
    """Finds the compiled modules (and mypyc's shared object file) in the build folder."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Any = None, target: ModuleType | None = None) -> Any:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def activate() -> str:
    """Use the compiled modules if they are built for these sources; returns (and keeps in ``status``)
    which path is used and why. A build this user cannot read (a ``.native/`` of mode 700 made by
    another user) is one line on standard error, and the pure-Python modules are used: it never stops
    a command. Raises nothing."""
    global status
    try:
        status = _activate()
    except GameDeclarationError as err:
        # Said again, as the command's one line, when the command asks for the games.
        status = f"pure Python: the games cannot be found: {printable(str(err))}"
    except OSError as err:
        where = os.fsdecode(err.filename) if err.filename else str(NATIVE_DIR)
        status = f"pure Python: cannot read {printable(where)}: {err.strerror or err}"
        print(f"governor: {status.removeprefix('pure Python: ')} (the compiled engines): the engines run as pure Python",
              file=sys.stderr)
    return status


def _activate() -> str:
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return f"pure Python: {PURE_ENV} is set"
    manifest_path = NATIVE_DIR / "manifest.json"
    if not manifest_path.exists():
        return "pure Python: the compiled engines are not built (governor native build)"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files = {name: NATIVE_DIR / file for name, file in manifest["files"].items()}
    except PermissionError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return f"pure Python: {manifest_path} cannot be read"
    if manifest.get("digest") != source_digest():
        return "pure Python: the compiled engines were built from other sources (governor native build)"
    if any(name in sys.modules for name in compiled_modules()):
        return "pure Python: the engine modules were imported before replay.native could activate"
    if not all(file.exists() for file in files.values()):
        return f"pure Python: files of the build in {NATIVE_DIR} are missing"
    if not any(isinstance(f, _NativeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _NativeFinder(files))
    return "compiled (mypyc)"


def _install(staging: Path, out: Path) -> None:
    """Put the complete build ``staging`` in place of ``out``: the earlier build is first moved into a
    folder of a random name made for it beside ``out`` (never a guessable ``.native.old``, whose
    contents would have been removed), then removed with it. A link at ``out`` is replaced, never
    followed: nothing it names is removed. Raises ``OSError`` when a rename fails (the earlier build
    is then put back when it can be)."""
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
    try:
        moved = False
        if out.is_symlink():
            out.unlink()
        elif out.exists():
            os.replace(out, aside)  # a folder over the empty folder made for it
            moved = True
        try:
            os.replace(staging, out)
        except OSError:
            if moved:
                os.replace(aside, out)
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def build(out: Path = NATIVE_DIR, quiet: bool = False) -> bool:
    """Compile ``compiled_modules()`` with mypyc into ``out`` (replacing an earlier build only once this one is
    complete). Returns False, saying why, when it cannot (no mypyc, no C compiler, a failed compile):
    the pure-Python engines are then used. Raises ``GameDeclarationError`` when the games cannot be
    found, or a declared module has no source file."""

    def say(text: str) -> None:
        if not quiet:
            print(f"governor: {text}", flush=True)

    try:
        import mypyc  # noqa: F401
    except ImportError:
        say("mypyc is not installed (pip install mypy): the engines run as pure Python")
        return False
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        say(f"no C compiler ({compiler}): the engines run as pure Python (2 to 4 times slower)")
        return False
    started = time.monotonic()
    modules = compiled_modules()
    roots = _package_roots(modules)
    for name in modules:
        if not _module_file(name, roots).is_file():
            raise GameDeclarationError(f"compiled module {name}: no source file {_module_file(name, roots)}")
    digest = source_digest()
    try:
        if json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("digest") == digest:
            say(f"compiled engines up to date in {out}")
            return True
    except (OSError, ValueError, AttributeError):
        pass
    say("compiling the engines with mypyc (about 2 minutes, once for these sources)")
    with tempfile.TemporaryDirectory(prefix="governor-native-") as tmp:
        work = Path(tmp)
        # A copy of the sources (``replay`` and each other package holding a compiled module, side by
        # side, so that mypyc resolves the imports between them), so that nothing compiled is ever
        # left beside them.
        for top, root in roots.items():
            shutil.copytree(root, work / top, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        config = PACKAGE.parent / "pyproject.toml"
        if config.exists():
            shutil.copy(config, work / "pyproject.toml")
        sources = [str(Path(*name.split(".")).with_suffix(".py")) for name in modules]
        result = subprocess.run(
            [sys.executable, "-m", "mypyc", *sources],
            cwd=work, capture_output=True, text=True,
            env={**os.environ, "MYPYC_OPT_LEVEL": os.environ.get("MYPYC_OPT_LEVEL", "3"), PURE_ENV: "1"},
        )
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            say(f"compiling the engines failed: the engines run as pure Python\n{tail}")
            return False
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        files: dict[str, str] = {}
        for name in modules:
            built = work.joinpath(*name.split(".")).with_suffix(suffix)
            if not built.exists():
                say(f"compiling the engines gave no {built.name}: the engines run as pure Python")
                return False
            files[name] = str(Path(*name.split(".")).with_suffix(suffix))
        for shared in work.glob(f"*__mypyc{suffix}"):
            files[shared.name.removesuffix(suffix)] = shared.name
        if out.exists() and not out.is_symlink() and not out.is_dir():
            say(f"{out} is a file, not a build folder: the engines run as pure Python (nothing was replaced)")
            return False
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
        installed = False
        try:
            for file in files.values():
                (staging / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(work / file, staging / file)
            import mypy.version

            (staging / "manifest.json").write_text(json.dumps({
                "digest": digest, "files": files, "python": sys.version, "mypy": mypy.version.__version__,
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }, indent=1) + "\n", encoding="utf-8")
            _install(staging, out)
            installed = True
        finally:
            if not installed:  # once installed, its name is free again: whatever comes there is not ours
                shutil.rmtree(staging, ignore_errors=True)
    say(f"compiled engines built in {out} ({len(modules)} modules, {time.monotonic() - started:.0f} s)")
    return True
