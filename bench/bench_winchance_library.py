"""Which gradient boosting for the win chance? LightGBM against scikit-learn's HistGradientBoosting on
the whole view of San Juan, 3 players (docs/winchance.md, "Choosing the library"): 400 self-play
games of the expert bot, 20 positions each, the first 300 games learnt from and the last 100 held out,
the same settings for both, one thread.

    pip install scikit-learn   # not a dependency of Governor: only this measurement needs it
    OMP_NUM_THREADS=1 nice python bench/bench_winchance_library.py   # prints the results as JSON
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.winchance.features import features_for  # noqa: E402
from analysis.winchance.train import PARAMS, ROUNDS, collect, self_play, strongest_bot  # noqa: E402

GAME, PLAYERS = "san_juan", 3


def log_loss(chances: np.ndarray, shares: np.ndarray) -> float:
    """The log loss of the seats' shares of the win, the chances divided by their sum first."""
    p = chances.reshape(-1, PLAYERS)
    p = p / p.sum(axis=1, keepdims=True)
    return float(np.mean(-(shares.reshape(-1, PLAYERS) * np.log(np.clip(p, 1e-6, 1))).sum(axis=1)))


def timed(work: Any) -> tuple[Any, float]:
    start = time.process_time()
    result = work()
    return result, time.process_time() - start


def main() -> int:
    import lightgbm
    import sklearn
    from sklearn.ensemble import HistGradientBoostingClassifier

    features = features_for(GAME, PLAYERS)
    found = collect(features, self_play(GAME, PLAYERS, 400, 77, strongest_bot(GAME)), 77, per_game=20)
    x = np.concatenate(found.rows["everything"]).astype(np.float32)
    y = np.asarray(found.shares).ravel()
    games = np.repeat(np.asarray(found.games), PLAYERS)
    learn, test = games < 300, games >= 300
    out: dict[str, Any] = {"rows": {"learn": int(learn.sum()), "test": int(test.sum()), "features": x.shape[1]}}
    booster, fit = timed(lambda: lightgbm.train({**PARAMS, "seed": 1}, lightgbm.Dataset(x[learn], label=y[learn]), ROUNDS))
    chances, predict = timed(lambda: booster.predict(x[test], num_threads=1))
    out[f"lightgbm {lightgbm.__version__}"] = {"log_loss": round(log_loss(chances, y[test]), 4), "fit_cpu_s": round(fit, 1),
                                               "predict_rows_per_cpu_s": round(test.sum() / predict)}
    # scikit-learn's classifier needs classes: a tie is counted as a win.
    model = HistGradientBoostingClassifier(max_iter=ROUNDS, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=40,
                                           l2_regularization=1.0, max_bins=63, early_stopping=False, random_state=1)
    _, fit = timed(lambda: model.fit(x[learn], (y[learn] > 0).astype(int)))
    chances, predict = timed(lambda: model.predict_proba(x[test])[:, 1])
    out[f"scikit-learn {sklearn.__version__} HistGradientBoosting"] = {
        "log_loss": round(log_loss(chances, y[test]), 4), "fit_cpu_s": round(fit, 1),
        "predict_rows_per_cpu_s": round(test.sum() / predict)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
