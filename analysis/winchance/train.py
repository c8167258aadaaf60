"""Learning a win-chance model: positions of self-play games of the game's strongest bot (or of a
database's games), the chance each seat wins from each, gradient-boosted trees per view, and an
isotonic calibration fitted on games the trees did not learn from.

Reproducible: the same arguments give the same file, byte for byte (the games come from their seeds,
the positions from a generator seeded with them, LightGBM runs on one thread with its
``deterministic`` setting)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis.winchance import calibration
from analysis.winchance.features import FEATURES_VERSION, VIEWS, Features, features_for
from analysis.winchance.model import PACKAGE, ViewModel, dumps, normalised
from analysis.winchance.predict import result_shares
from replay.game import declaration
from replay.logfile import GameLog, parse_game
from replay.replayer import iter_replay
from replay.simulate import simulate_game

#: Self-play games a model learns from by default, and positions taken from each game.
DEFAULT_GAMES = 1000
POSITIONS_PER_GAME = 20
#: One game in this many is kept apart from the trees' learning to fit the calibration.
CALIBRATION_EVERY = 5
#: The trees' settings (chosen by bench/bench_winchance.py's measurements; docs/winchance.md).
ROUNDS = 200
PARAMS: dict[str, Any] = {
    "objective": "cross_entropy", "learning_rate": 0.05, "num_leaves": 31, "min_data_in_leaf": 40,
    "feature_fraction": 0.5, "lambda_l2": 1.0, "max_bin": 63, "num_threads": 1, "deterministic": True,
    "force_row_wise": True, "verbose": -1,
}

Progress = Callable[[int], None]


def strongest_bot(game: str) -> str:
    """The kind of bot ``game``'s models learn from: its ``expert`` when it declares one, else the bot
    its analysis rolls out with. Raises ``KeyError`` for a game the registry does not know."""
    found = declaration(game)
    kinds = [kind for kind, _ in found.bots]
    return "expert" if "expert" in kinds else found.rollout_kind


def self_play(game: str, players: int, games: int, seed: int, bot: str) -> Iterator[GameLog]:
    """``games`` games of ``bot`` against itself, each from its own seed (``seed``'s k-th game is the
    one ``governor simulate --seed seed`` plays k-th). Raises ``SimulationError`` as ``simulate_game``."""
    for k in range(games):
        obj = simulate_game(game, players, seed * 1_000_003 + k, bot)
        obj["source_id"] = f"winchance-{game}-{seed}-{k:06d}"
        yield parse_game(obj)


@dataclass
class Positions:
    """Sampled positions: their rows in each view (one per seat), the seats' shares of the win, the
    number of the game each comes from, its step and the game's length in steps."""

    rows: dict[str, list[np.ndarray]] = field(default_factory=lambda: {view: [] for view in VIEWS})
    shares: list[list[float]] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    viewers: list[int] = field(default_factory=list)


def collect(features: Features, logs: Iterable[GameLog], seed: int, per_game: int = POSITIONS_PER_GAME,
            progress: Progress | None = None) -> Positions:
    """Up to ``per_game`` positions of each game of ``logs`` still in play, drawn at random (seeded by
    ``seed`` and the game's number), each seen whole and by one seat drawn at random. Raises what
    ``iter_replay`` raises for a bad log."""
    found = Positions()
    for number, log in enumerate(logs):
        states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
        engine_state = states[-1]
        from replay.registry import engine_for

        engine = engine_for(log.game)
        shares = result_shares(engine, engine_state)
        playing = [step for step, state in enumerate(states) if not engine.is_over(state)]
        rng = random.Random(f"winchance:{seed}:{number}")
        chosen = sorted(rng.sample(playing, min(per_game, len(playing))))
        for step in chosen:
            viewer = rng.randrange(features.players)
            found.rows["everything"].append(features.everything(states[step]))
            found.rows["seat"].append(features.seat(states[step], viewer))
            found.shares.append(shares)
            found.games.append(number)
            found.steps.append(step)
            found.lengths.append(len(states) - 1)
            found.viewers.append(viewer)
        if progress is not None:
            progress(1)
    return found


def fit_view(view: str, rows: np.ndarray, shares: np.ndarray, viewers: np.ndarray, learn: np.ndarray,
             seed: int) -> ViewModel:
    """Trees learnt from the positions ``learn`` (a mask over positions), calibrated on the others.
    ``shares`` holds each position's shares of the win by seat. The whole view's ``rows`` are one per
    seat and position (seat order), each learning "this seat wins"; the seat view's are one per
    position (the observation of its seat in ``viewers``), learning which seat wins counted from the
    viewer (a multiclass model: a tie's winners each a row weighted by its share). Raises ``ValueError``
    when either part is empty."""
    import lightgbm

    if learn.all() or not learn.any():
        raise ValueError("too few games to learn from and calibrate on (give more games)")
    players = shares.shape[1]
    if view == "everything":
        per_row = np.repeat(learn, players)
        data = lightgbm.Dataset(rows[per_row], label=shares[learn].ravel(), free_raw_data=True,
                                params={"max_bin": PARAMS["max_bin"], "verbose": -1})
        booster = lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=ROUNDS)
        held = np.asarray(booster.predict(rows[~per_row], num_threads=1)).reshape(-1, players)
        relative = shares[~learn]
    else:
        # Seat k places after the viewer is class k.
        order = (viewers[:, None] + np.arange(players)[None, :]) % players
        relative_all = np.take_along_axis(shares, order, axis=1)
        at, label = np.nonzero(relative_all[learn] > 0)
        data = lightgbm.Dataset(rows[learn][at], label=label, weight=relative_all[learn][at, label],
                                free_raw_data=True, params={"max_bin": PARAMS["max_bin"], "verbose": -1})
        params = {**PARAMS, "objective": "multiclass", "num_class": players, "seed": seed}
        booster = lightgbm.train(params, data, num_boost_round=ROUNDS)
        held = np.asarray(booster.predict(rows[~learn], num_threads=1)).reshape(-1, players)
        relative = relative_all[~learn]
    fitted = calibration.fit(normalised(held).ravel(), relative.ravel())
    return ViewModel(booster, fitted)


def train(game: str, players: int, logs: Iterable[GameLog], *, seed: int, source: dict[str, Any],
          per_game: int = POSITIONS_PER_GAME, progress: Progress | None = None) -> bytes:
    """The model file of ``game`` with ``players`` seats learnt from ``logs`` (``source`` is recorded in
    its header: the bot and games of the self-play, or the database). Raises ``ValueError`` when the
    games are too few, ``KeyError`` for a game without an observation vector, and what ``collect``
    raises."""
    import lightgbm

    features = features_for(game, players)
    found = collect(features, logs, seed, per_game, progress)
    if not found.shares:
        raise ValueError("no position to learn from (no game still in play at any step)")
    shares = np.asarray(found.shares, dtype=np.float64)
    viewers = np.asarray(found.viewers)
    learn = np.asarray(found.games) % CALIBRATION_EVERY != CALIBRATION_EVERY - 1
    body: dict[str, Any] = {}
    for view in VIEWS:
        rows = np.concatenate(found.rows[view]).astype(np.float32, copy=False)
        found.rows[view] = []  # the rows are large: let them go once stacked
        model = fit_view(view, rows, shares, viewers, learn, seed)
        del rows
        body[view] = {"trees": model.booster.model_to_string(num_iteration=-1),
                      "calibration": model.calibration.to_json()}
    header = {
        "game": game, "players": players, "seed": seed, "positions": len(found.shares),
        "package": f"{PACKAGE} {lightgbm.__version__}", "params": {**PARAMS, "rounds": ROUNDS},
        "objectives": {"everything": PARAMS["objective"], "seat": "multiclass"},
        "features": {view: {"version": FEATURES_VERSION, "digest": features.digest(view),
                            "names": features.names(view)} for view in VIEWS},
        **source,
    }
    return dumps(header, body)


def database_logs(db: str, game: str, players: int) -> list[GameLog]:
    """The games of ``game`` with ``players`` seats stored in the database ``db``, in ``game_id`` order.
    Raises ``ingest.db.DatabaseError`` when it cannot be read, ``LogFormatError`` for a stored log
    that is not one."""
    from ingest.db import reader

    with reader(db) as con:
        texts = con.execute("SELECT log FROM games WHERE game = ? AND player_count = ? ORDER BY game_id",
                            [game, players]).fetchall()
    return [parse_game(json.loads(text)) for (text,) in texts]
