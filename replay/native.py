"""The optional compiled engines: the replay loop and the catalogue, move, state, rule, scoring, bot,
row, view and observation modules of both games compiled to C with mypyc, used automatically when they are built and match the
sources.

The Python modules stay the one source of the rules; the compiled ones are the same modules, built
from them by ``governor native build`` (which ``scripts/setup.sh`` runs) into ``.native/`` beside
the package, with a manifest holding a digest of every source file of ``replay``. On ``import replay``,
``activate`` puts a finder in front of the import system that loads these modules from ``.native/``,
but only when the digest still matches: after any edit of ``replay`` the pure-Python modules are used
until the next build, so a stale build never runs. ``GOVERNOR_PURE=1`` forces the pure-Python path
(the tests run both and compare them); a machine without a C compiler simply has no build.

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

#: The modules compiled: the hot path of replay, ``legal_moves``, the bots' rollouts (the heuristic and
#: the expert bots: the expert plays the analysis' rollouts) and the importer's rows (``rows``: the row
#: layout lives there, not in the engine classes, to be compiled), and what a seat sees and its
#: observation vector (``view``, ``spaces``: the environments compute one at every step). Not the
#: engines' classes (``engine.py``: interpreted subclasses of ``Engine``, which a compiled base would
#: forbid), nor ``replay.san_juan.thawed`` (it subclasses ``list``, which compiled classes cannot).
MODULES = (
    "replay.replayer",
    "replay.san_juan.cards",
    "replay.san_juan.moves",
    "replay.san_juan.state",
    "replay.san_juan.rules",
    "replay.san_juan.scoring",
    "replay.san_juan.bots",
    "replay.san_juan.expert",
    "replay.san_juan.rows",
    "replay.san_juan.view",
    "replay.san_juan.spaces",
    "replay.puerto_rico.catalogue",
    "replay.puerto_rico.moves",
    "replay.puerto_rico.state",
    "replay.puerto_rico.arrangements",
    "replay.puerto_rico.rules",
    "replay.puerto_rico.scoring",
    "replay.puerto_rico.bots",
    "replay.puerto_rico.expert",
    "replay.puerto_rico.rows",
    "replay.puerto_rico.view",
    "replay.puerto_rico.spaces",
)

PACKAGE = Path(__file__).resolve().parent
#: Where the build goes: ``.native`` beside the ``replay`` package (the checkout), or ``$GOVERNOR_NATIVE_DIR``.
NATIVE_DIR = Path(os.environ.get("GOVERNOR_NATIVE_DIR") or PACKAGE.parent / ".native")
PURE_ENV = "GOVERNOR_PURE"

#: What ``activate`` found: ``compiled``, or why the pure-Python modules are used.
status = "pure Python: not activated"


def source_digest() -> str:
    """A digest of every source file of the ``replay`` package, the Python version and the platform:
    a build is used only while this is the digest it was built from."""
    digest = hashlib.sha256(f"{sys.version}|{sysconfig.get_platform()}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class _NativeFinder:
    """Finds the compiled modules (and mypyc's shared library) in the build folder."""

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
    if any(name in sys.modules for name in MODULES):
        return "pure Python: the engine modules were imported before replay.native could activate"
    if not all(file.exists() for file in files.values()):
        return f"pure Python: files of the build in {NATIVE_DIR} are missing"
    if not any(isinstance(f, _NativeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _NativeFinder(files))
    return "compiled (mypyc)"


def _module_file(name: str) -> Path:
    return PACKAGE.parent.joinpath(*name.split(".")).with_suffix(".py")


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
    """Compile ``MODULES`` with mypyc into ``out`` (replacing an earlier build only once this one is
    complete). Returns False, saying why, when it cannot (no mypyc, no C compiler, a failed compile):
    the pure-Python engines are then used."""

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
        # A copy of the sources, so that nothing compiled is ever left beside them.
        shutil.copytree(PACKAGE, work / "replay", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        config = PACKAGE.parent / "pyproject.toml"
        if config.exists():
            shutil.copy(config, work / "pyproject.toml")
        sources = [str(_module_file(name).relative_to(PACKAGE.parent)) for name in MODULES]
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
        for name in MODULES:
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
    say(f"compiled engines built in {out} ({len(MODULES)} modules, {time.monotonic() - started:.0f} s)")
    return True
