"""A win-chance model file: data only, loaded without running any code from it.

The file is gzip'd JSON (written with no time stamp, so the same model is the same bytes):

- ``header``: the format and its version, the game and its player count, for each view the features'
  version, digest and names, the training's seed, games and bot, the learning package and its version, and the
  SHA-256 of the body;
- ``body``: for each view (``everything``, ``seat``), the gradient-boosted trees in LightGBM's text
  format (``Booster(model_str=...)``: a table of splits, not code) and the isotonic calibration as a
  table of breakpoints.

A file whose header does not match the game's current features, or whose body does not match the
header's hash, is refused with one line (``ModelError``): a model is never applied to columns it was
not made for."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from analysis.winchance.calibration import Calibration
from analysis.winchance.features import FEATURES_VERSION, VIEWS, Features, features_for

FORMAT = "governor win-chance model"
FORMAT_VERSION = 1
PACKAGE = "lightgbm"
#: The least chance a seat of a game still in play is given (and 1 less it, the most).
SURE = 0.001


class ModelError(Exception):
    """A model file that cannot be used: unreadable, not a model, tampered with, or made for other
    features. The message is one line naming the file."""


def model_name(game: str, players: int) -> str:
    """The file name of the shipped model of ``game`` with ``players`` seats."""
    return f"{game}-{players}.json.gz"


def shipped_path(game: str, players: int) -> Path:
    """Where the shipped model of ``game`` with ``players`` seats is (package data of this package):
    where ``governor train`` writes it by default."""
    return Path(str(resources.files("analysis.winchance") / "models" / model_name(game, players)))


def _body_digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def dumps(header: dict[str, Any], body: dict[str, Any]) -> bytes:
    """The file's bytes: ``header`` completed with the format and the body's hash, and ``body``."""
    full = {"format": FORMAT, "format_version": FORMAT_VERSION, **header, "body_sha256": _body_digest(body)}
    text = json.dumps({"header": full, "body": body}, sort_keys=True, separators=(",", ":"))
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


@dataclass
class ViewModel:
    """One view's trees and calibration."""

    booster: Any
    calibration: Calibration

    def chances(self, rows: np.ndarray, players: int, viewers: Sequence[int] | None = None) -> np.ndarray:
        """The calibrated chances of each seat (an array (positions, players), each row summing to 1):
        of the whole view's rows (one per seat, in seat order, for each position), or with ``viewers``
        (the viewing seat of each position) of the seat view's rows (one per position, whose classes
        are the seats counted from the viewer)."""
        raw = np.asarray(self.booster.predict(rows, num_threads=1), dtype=np.float64).reshape(-1, players)
        if viewers is not None:
            # Class k is the seat k places after the viewer: seat s is class (s - viewer) % players.
            order = (np.arange(players)[None, :] - np.asarray(viewers)[:, None]) % players
            raw = np.take_along_axis(raw, order, axis=1)
        shares = normalised(raw)
        # A game in play is never certain: a calibration fitted on few positions may say 0 or 1.
        return normalised(np.clip(self.calibration.apply(shares), SURE, 1 - SURE))


def normalised(chances: np.ndarray) -> np.ndarray:
    """Each row of ``chances`` divided by its sum (an even share where the sum is 0)."""
    total = chances.sum(axis=1, keepdims=True)
    even = np.full_like(chances, 1.0 / chances.shape[1])
    return np.where(total > 0, chances / np.where(total > 0, total, 1.0), even)


@dataclass
class WinModel:
    """A loaded model: its header, its features and its views."""

    header: dict[str, Any]
    features: Features
    views: dict[str, ViewModel]

    @property
    def players(self) -> int:
        return self.features.players


def _check_header(header: Any, features: Features, where: str) -> None:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelError(f"{where}: not a Governor win-chance model")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{where}: a model of format version {header.get('format_version')!r}; this Governor "
                         f"reads version {FORMAT_VERSION} (rebuild it with governor train)")
    declared = header.get("features")
    if not isinstance(declared, dict) or set(declared) != set(VIEWS):
        raise ModelError(f"{where}: the header does not declare the features of its views")
    for view in VIEWS:
        entry = declared[view]
        if not isinstance(entry, dict) or entry.get("version") != FEATURES_VERSION or \
                entry.get("digest") != features.digest(view) or entry.get("names") != features.names(view):
            raise ModelError(f"{where}: made for other features of {features.game} ({view} view) than this "
                             f"Governor's (version {FEATURES_VERSION}); rebuild it with governor train")


def loads(data: bytes, where: str, game: str, players: int) -> WinModel:
    """The model in ``data`` (a file's bytes; ``where`` names it in errors), checked to be a model of
    ``game`` with ``players`` seats made for the game's current features. Raises ``ModelError``, one
    line, for anything else (not gzip'd JSON, another game or count, other features, a body that does
    not match its header's hash, trees LightGBM refuses); ``KeyError`` for a game the registry does
    not know or one without an observation vector."""
    import lightgbm

    features = features_for(game, players)
    try:
        obj = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as err:
        raise ModelError(f"{where}: not a win-chance model (gzip'd JSON): {err}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("body"), dict):
        raise ModelError(f"{where}: not a Governor win-chance model")
    header, body = obj.get("header"), obj["body"]
    _check_header(header, features, where)
    assert isinstance(header, dict)
    if header.get("game") != game or header.get("players") != players:
        raise ModelError(f"{where}: a model of {header.get('game')!r} with {header.get('players')!r} players, "
                         f"not of {game!r} with {players}")
    if header.get("body_sha256") != _body_digest(body):
        raise ModelError(f"{where}: the model does not match its header's hash (the file was changed)")
    views: dict[str, ViewModel] = {}
    for view in VIEWS:
        part = body.get(view)
        if not isinstance(part, dict) or not isinstance(part.get("trees"), str):
            raise ModelError(f"{where}: the model has no trees for the {view} view")
        try:
            booster = lightgbm.Booster(model_str=part["trees"])
            calibration = Calibration.from_json(part.get("calibration"))
        except (ValueError, lightgbm.basic.LightGBMError) as err:
            raise ModelError(f"{where}: the {view} view's model is unreadable: {err}") from None
        if booster.num_feature() != len(features.names(view)):
            raise ModelError(f"{where}: the {view} view's trees read {booster.num_feature()} features, "
                             f"not the {len(features.names(view))} of {game}")
        views[view] = ViewModel(booster, calibration)
    return WinModel(header, features, views)


def load(game: str, players: int, path: str | Path | None = None) -> WinModel:
    """The model at ``path``, else the shipped model of ``game`` with ``players`` seats. Raises
    ``ModelError`` as ``loads``, and when there is no such file (naming ``governor train``)."""
    target = Path(path) if path is not None else shipped_path(game, players)
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"{target}: no win-chance model of {game} with {players} players (build it with "
                         f"governor train --game {game} --players {players})") from None
    except OSError as err:
        raise ModelError(f"{target}: {err.strerror or err}") from None
    return loads(data, str(target), game, players)
