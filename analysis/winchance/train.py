"""Learning a win-chance model: positions of self-play games of the game's strongest bot (or of a
database's games), the chance each seat wins from each, gradient-boosted trees per view, and an
isotonic calibration fitted on games the trees did not learn from.

What each view learns:

- the whole view learns each position's result (a seat's share of the game's win);
- the seat view, in self-play, learns the bot's own rollouts of the position from the viewer's seat
  (``ROLLOUTS`` of them from each of ``ROLLOUT_POSITIONS`` positions of a game, each rollout from a
  redeal of what the viewer cannot see, as ``analysis.rollouts`` plays them): the chance the analysis
  estimates, with a sixteenth of the noise of one result (a game's 20 positions share one result, so
  results teach the trees little of what tells a 60 % position from a 95 % one). From a database's
  games (people, not the bot) it learns the results, as the whole view does.

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
#: Of a self-play game's positions, how many the seat view learns from, and the rollouts of each.
ROLLOUT_POSITIONS = 4
ROLLOUTS = 16
#: One game in this many is kept apart from the trees' learning to fit the calibration.
CALIBRATION_EVERY = 5
#: The trees' settings (chosen by bench/bench_winchance.py's measurements; docs/winchance.md).
ROUNDS = {"everything": 200, "seat": 200}
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
    #: The rollouts' estimate of each seat's share of the win, from the viewer's redeal (None for a
    #: position without rollouts).
    estimates: list[list[float] | None] = field(default_factory=list)


@dataclass(frozen=True)
class Rollouts:
    """The rollouts the seat view learns from: ``count`` from each of ``positions`` positions of a
    game, played by ``bot``."""

    count: int
    positions: int
    bot: str


def estimate(game: str, state: Any, viewer: int, players: int, rollouts: int, bot: str, key: str) -> list[float] | None:
    """Each seat's share of the win over ``rollouts`` rollouts of ``state``, each from a redeal of what
    ``viewer`` cannot see, played to the end by ``bot`` at every seat (``analysis.rollouts``), seeded
    by ``key`` and the rollout's number; None when no rollout ended. Raises ``KeyError`` for a bot the
    game does not declare."""
    from analysis.rollouts import play_out, win_share
    from replay.registry import engine_for, view_for

    engine, view = engine_for(game), view_for(game)
    wins = [0.0] * players
    done = 0
    for number in range(rollouts):
        world = random.Random(f"{key}:{number}")
        winners = play_out(engine, engine.working(view.determinise(state, viewer, world)), players, world, bot)
        if winners is None:
            continue
        done += 1
        for seat in range(players):
            wins[seat] += win_share(winners, seat)
    return [w / done for w in wins] if done else None


def collect(features: Features, logs: Iterable[GameLog], seed: int, per_game: int = POSITIONS_PER_GAME,
            progress: Progress | None = None, rollouts: Rollouts | None = None) -> Positions:
    """Up to ``per_game`` positions of each game of ``logs`` still in play, drawn at random (seeded by
    ``seed`` and the game's number), each seen whole and by one seat drawn at random; with
    ``rollouts``, the first ``rollouts.positions`` of them drawn also get the rollouts' estimate from
    their viewer's seat. Raises what ``iter_replay`` raises for a bad log."""
    from replay.registry import engine_for

    found = Positions()
    for number, log in enumerate(logs):
        states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
        engine = engine_for(log.game)
        shares = result_shares(engine, states[-1])
        playing = [step for step, state in enumerate(states) if not engine.is_over(state)]
        rng = random.Random(f"winchance:{seed}:{number}")
        drawn = rng.sample(playing, min(per_game, len(playing)))
        # The first drawn are a random sample too: those get rollouts.
        rolled = set(drawn[:rollouts.positions]) if rollouts is not None else set()
        for step in sorted(drawn):
            viewer = rng.randrange(features.players)
            found.rows["everything"].append(features.everything(states[step]))
            found.rows["seat"].append(features.seat(states[step], viewer))
            found.shares.append(shares)
            found.games.append(number)
            found.steps.append(step)
            found.lengths.append(len(states) - 1)
            found.viewers.append(viewer)
            found.estimates.append(
                estimate(log.game, states[step], viewer, features.players, rollouts.count, rollouts.bot,
                         f"winchance:{seed}:{number}:{step}")
                if rollouts is not None and step in rolled else None)
        if progress is not None:
            progress(1)
    return found


def fit_view(view: str, rows: np.ndarray, shares: np.ndarray, viewers: np.ndarray, learn: np.ndarray,
             seed: int) -> ViewModel:
    """Trees learnt from the positions ``learn`` (a mask over positions), calibrated on the others.
    ``shares`` holds each position's shares of the win by seat (its result, or the rollouts'
    estimate). The whole view's ``rows`` are one per seat and position (seat order), each learning
    "this seat wins"; the seat view's are one per position (the observation of its seat in
    ``viewers``), learning which seat wins counted from the viewer (a multiclass model: each seat with
    a share of the win a row weighted by its share). Raises ``ValueError`` when either part is empty."""
    import lightgbm

    if learn.all() or not learn.any():
        raise ValueError("too few games to learn from and calibrate on (give more games)")
    players = shares.shape[1]
    if view == "everything":
        per_row = np.repeat(learn, players)
        data = lightgbm.Dataset(rows[per_row], label=shares[learn].ravel(), free_raw_data=True,
                                params={"max_bin": PARAMS["max_bin"], "verbose": -1})
        booster = lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=ROUNDS["everything"])
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
        booster = lightgbm.train(params, data, num_boost_round=ROUNDS["seat"])
        held = np.asarray(booster.predict(rows[~learn], num_threads=1)).reshape(-1, players)
        relative = relative_all[~learn]
    fitted = calibration.fit(normalised(held).ravel(), relative.ravel())
    return ViewModel(booster, fitted)


def train(game: str, players: int, logs: Iterable[GameLog], *, seed: int, source: dict[str, Any],
          per_game: int = POSITIONS_PER_GAME, progress: Progress | None = None,
          rollouts: Rollouts | None = None) -> bytes:
    """The model file of ``game`` with ``players`` seats learnt from ``logs`` (``source`` is recorded in
    its header: the bot and games of the self-play, or the database); with ``rollouts`` the seat view
    learns the rollouts' estimates of its positions, else their results. Raises ``ValueError`` when the
    games are too few, ``KeyError`` for a game without an observation vector, and what ``collect``
    raises."""
    import lightgbm

    features = features_for(game, players)
    found = collect(features, logs, seed, per_game, progress, rollouts)
    if not found.shares:
        raise ValueError("no position to learn from (no game still in play at any step)")
    results = np.asarray(found.shares, dtype=np.float64)
    games = np.asarray(found.games)
    body: dict[str, Any] = {}
    for view in VIEWS:
        keep = np.ones(len(found.shares), dtype=bool)
        shares = results
        if view == "seat" and rollouts is not None:
            # Only the positions the rollouts estimated, each learning their estimate.
            keep = np.asarray([e is not None for e in found.estimates])
            shares = np.asarray([e if e is not None else [0.0] * players for e in found.estimates],
                                dtype=np.float64)[keep]
        rows = np.concatenate([r for r, k in zip(found.rows[view], keep) if k]).astype(np.float32, copy=False)
        found.rows[view] = []  # the rows are large: let them go once stacked
        learn = games[keep] % CALIBRATION_EVERY != CALIBRATION_EVERY - 1
        model = fit_view(view, rows, shares, np.asarray(found.viewers)[keep], learn, seed)
        del rows
        body[view] = {"trees": model.booster.model_to_string(num_iteration=-1),
                      "calibration": model.calibration.to_json()}
    header = {
        "game": game, "players": players, "seed": seed, "positions": len(found.shares),
        "package": f"{PACKAGE} {lightgbm.__version__}", "params": {**PARAMS, "rounds": ROUNDS},
        "objectives": {"everything": PARAMS["objective"], "seat": "multiclass"},
        "targets": {"everything": "results",
                    "seat": (f"{rollouts.count} rollouts by {rollouts.bot} from {rollouts.positions} positions a game"
                             if rollouts is not None else "results")},
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
