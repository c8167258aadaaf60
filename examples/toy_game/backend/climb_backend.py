"""The example game's build backend (PEP 517, and PEP 660 for ``pip install -e``), made of the standard
library alone, so that pip installs the example with nothing else: no network, no setuptools (which
builds a wheel only with the ``wheel`` package beside it, or from version 70.1), nothing added to the
environment Governor runs in. That is how the test suite installs it (``tests/examples/``).

A game of your own may use any backend (setuptools, hatchling, flit...): all Governor needs is what
every backend writes into an installed distribution's metadata, its entry point of the group
``governor.games``. This one reads the ``[project]`` table of ``pyproject.toml`` (name, version,
description, readme, requires-python, entry-points) and puts the one package ``toy_game``, every file
of it, into the wheel.

pip runs each hook in the project's folder (PEP 517), which is where the files are read from.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

#: The import package the wheel holds.
PACKAGE = "toy_game"
#: What is never a file of the package: Python's caches and compiled leftovers.
_CACHE = "__pycache__"
_BUILT = frozenset({".pyc", ".so", ".pyd"})
#: Every file of a wheel and an archive is dated so, and the same sources give the same bytes.
_DATE = (2020, 1, 1, 0, 0, 0)
_TAG = "py3-none-any"


def _project() -> dict[str, Any]:
    """The ``[project]`` table of ``pyproject.toml``. Raises ``KeyError`` when it lacks a name or a
    version, and ``tomllib.TOMLDecodeError`` for a file that is not TOML."""
    project: dict[str, Any] = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    for key in ("name", "version"):
        if key not in project:
            raise KeyError(f"pyproject.toml: the [project] table has no {key}")
    return project


def _normal(name: str) -> str:
    """The distribution's name as file names spell it (``governor_toy_game``)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata(project: dict[str, Any]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    readme = project.get("readme")
    if isinstance(readme, str):
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + Path(readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


def _entry_points(project: dict[str, Any]) -> str:
    groups = project.get("entry-points", {})
    return "".join(f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items()) + "\n"
                   for group, points in groups.items())


def _package_files() -> dict[str, bytes]:
    """Every file of ``PACKAGE`` by its path in the wheel, in name order."""
    return {path.as_posix(): path.read_bytes() for path in sorted(Path(PACKAGE).rglob("*"))
            if path.is_file() and _CACHE not in path.parts and path.suffix not in _BUILT}


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}\n"


def _wheel(directory: str, files: dict[str, bytes]) -> str:
    """Write a wheel of ``files`` and the distribution's metadata into ``directory``; its file name."""
    project = _project()
    base = f"{_normal(project['name'])}-{project['version']}"
    info = f"{base}.dist-info"
    files = {**files,
             f"{info}/METADATA": _metadata(project).encode("utf-8"),
             f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: climb_backend\nRoot-Is-Purelib: true\nTag: {_TAG}\n".encode(),
             f"{info}/entry_points.txt": _entry_points(project).encode("utf-8")}
    record = "".join(_record_line(name, data) for name, data in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode("utf-8")
    name = f"{base}-{_TAG}.whl"
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, _DATE)
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return name


# -- the hooks pip calls ----------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """Nothing: the standard library builds it."""
    return []


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    """Nothing: the standard library builds it."""
    return []


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    """Nothing: the standard library builds it."""
    return []


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    """The wheel: the package's files and the metadata (its entry points among them). Raises
    ``OSError`` for a file that cannot be read or written."""
    return _wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """The editable wheel: the metadata, and a ``.pth`` file that puts the project's folder on the
    path, so the package is imported from the checkout (an edit needs no new install). Raises
    ``OSError`` for a file that cannot be written."""
    pth = f"__editable__.{_normal(_project()['name'])}.pth"
    return _wheel(wheel_directory, {pth: f"{Path.cwd()}\n".encode()})


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    """The source archive: ``pyproject.toml``, the readme, this backend and the package. Raises
    ``OSError`` for a file that cannot be read or written."""
    project = _project()
    base = f"{_normal(project['name'])}-{project['version']}"
    sources = {"PKG-INFO": _metadata(project).encode("utf-8"),
               "pyproject.toml": Path("pyproject.toml").read_bytes(),
               "backend/climb_backend.py": Path(__file__).read_bytes(), **_package_files()}
    if isinstance(project.get("readme"), str):
        sources[project["readme"]] = Path(project["readme"]).read_bytes()
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path, data in sorted(sources.items()):
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 1577836800
            archive.addfile(entry, io.BytesIO(data))
    return name
