"""The isotonic calibration of a win chance: a table of breakpoints, stored as JSON (data, not code).

``fit`` is centred isotonic regression: the pool-adjacent-violators algorithm (the least-squares
non-decreasing fit of the outcomes to the model's chances), each pooled block then one breakpoint at
the mean of its chances; ``Calibration.apply`` interpolates linearly between the breakpoints, so a
chance between two blocks gets a value between theirs, and the ends are held flat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Calibration:
    """Breakpoints: the chance ``x[i]`` becomes ``y[i]`` (both non-decreasing, in [0, 1])."""

    x: tuple[float, ...]
    y: tuple[float, ...]

    def apply(self, chances: np.ndarray) -> np.ndarray:
        """``chances`` calibrated (an array of the same shape)."""
        calibrated: np.ndarray = np.interp(chances, self.x, self.y)
        return calibrated

    def to_json(self) -> dict[str, list[float]]:
        """The table as JSON: ``{"x": [...], "y": [...]}``, rounded to 6 decimals."""
        return {"x": [round(v, 6) for v in self.x], "y": [round(v, 6) for v in self.y]}

    @classmethod
    def from_json(cls, obj: Any) -> Calibration:
        """The table ``to_json`` wrote. Raises ``ValueError`` saying what is wrong with another one
        (not two lists of as many numbers in [0, 1], non-decreasing)."""
        if not isinstance(obj, dict) or not isinstance(obj.get("x"), list) or not isinstance(obj.get("y"), list):
            raise ValueError("the calibration is not a table of breakpoints {x: [...], y: [...]}")
        x, y = obj["x"], obj["y"]
        if not x or len(x) != len(y):
            raise ValueError("the calibration's x and y are not two lists of the same length")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1 for v in x + y):
            raise ValueError("the calibration holds a value that is not a number in [0, 1]")
        if any(b < a for a, b in zip(x, x[1:])) or any(b < a for a, b in zip(y, y[1:])):
            raise ValueError("the calibration's breakpoints are not in increasing order")
        return cls(tuple(float(v) for v in x), tuple(float(v) for v in y))


def fit(chances: np.ndarray, outcomes: np.ndarray, *, points: int = 200) -> Calibration:
    """The isotonic fit of ``outcomes`` (in [0, 1]) to ``chances``, reduced to at most ``points``
    breakpoints. Raises ``ValueError`` for empty or unequal inputs."""
    chances = np.asarray(chances, dtype=np.float64).ravel()
    outcomes = np.asarray(outcomes, dtype=np.float64).ravel()
    if chances.size == 0 or chances.size != outcomes.size:
        raise ValueError("an isotonic fit needs as many outcomes as chances, and at least one")
    order = np.argsort(chances, kind="stable")
    xs, ys = chances[order], outcomes[order]
    # Pool adjacent violators over blocks (value, weight, sum of the chances in the block).
    values: list[float] = []
    weights: list[float] = []
    sums: list[float] = []
    for x, y in zip(xs.tolist(), ys.tolist()):
        values.append(y)
        weights.append(1.0)
        sums.append(x)
        while len(values) > 1 and values[-2] >= values[-1]:
            w = weights[-2] + weights[-1]
            v = (values[-2] * weights[-2] + values[-1] * weights[-1]) / w
            total = sums[-2] + sums[-1]
            del values[-1], weights[-1], sums[-1]
            values[-1], weights[-1], sums[-1] = v, w, total
    # Centred isotonic regression: one breakpoint per block, at the mean of its chances, and straight
    # lines between them. Flat steps from one block's first chance to its last would give every
    # position of a wide block the same chance, whatever the trees told apart inside it.
    bx = [total / weight for total, weight in zip(sums, weights)]
    by = list(values)
    if len(bx) > points:
        keep = np.unique(np.linspace(0, len(bx) - 1, points).round().astype(int))
        bx = [bx[i] for i in keep]
        by = [by[i] for i in keep]
    return Calibration(tuple(min(1.0, max(0.0, v)) for v in bx), tuple(min(1.0, max(0.0, v)) for v in by))
