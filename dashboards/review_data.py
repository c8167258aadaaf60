"""What the Review on the Replay page reads and computes, apart from any page: the game's decisions
(``analysis.decisions.decision_points``), how much of them the stored analysis already covers (a
review stopped half-way goes on from there), the stored analysis read back as ``Decision`` values,
and the estimate of a move the analysis did not roll out (the same rollouts, for that one move).

Nothing here draws; ``dashboards.review_panel`` and ``dashboards.drill_panel`` show it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.decisions import SAMPLINGS, Candidate, Decision, Options, decision_points
from analysis.rollouts import RolloutTask, run_task
from replay.logfile import GameLog
from replay.registry import engine_for, rollout_bot

#: The tags the review lists as mistakes (and the drill asks about), worst first.
MISTAKE_TAGS = ("blunder", "mistake")


@dataclass(frozen=True)
class Plan:
    """How far the review of a game is: its decisions (``(step, seat)``, in game order), how many the
    stored analysis holds, and the first step still to analyse (None when every decision is stored).
    A review goes on from ``resume_from`` to the last decision: a stored decision after it (a part
    of the game analysed out of order) is analysed again."""

    points: tuple[tuple[int, int], ...]
    stored: int
    resume_from: int | None

    @property
    def total(self) -> int:
        return len(self.points)

    @property
    def complete(self) -> bool:
        return self.resume_from is None

    @property
    def kept(self) -> int:
        """The stored decisions a review going on from ``resume_from`` keeps (those before it)."""
        if self.resume_from is None:
            return self.total
        return sum(1 for step, _ in self.points if step < self.resume_from)

    @property
    def last_step(self) -> int:
        return self.points[-1][0] if self.points else 0


def game_points(log: GameLog) -> tuple[tuple[int, int], ...]:
    """Every decision of the game as ``(step, seat)``, in the order the analysis gives them. Raises as
    ``replay.replayer.iter_replay`` for a bad log."""
    return tuple((point.step, point.seat) for point, _ in decision_points(log))


def plan(points: Sequence[tuple[int, int]], stored: set[tuple[int, int]]) -> Plan:
    """How far a review is, given the game's decisions (``game_points``) and the ``(step, seat)`` of
    the stored ones."""
    held = sum(1 for p in points if p in stored)
    missing = next((step for step, seat in points if (step, seat) not in stored), None)
    return Plan(tuple(points), held, missing)


def options_of(rows: pd.DataFrame, fallback: Options) -> Options:
    """The options the stored analysis was made with (its first row: rollouts, candidates, seed, bot
    and sampling), so that a review going on is made the same way; ``fallback`` when nothing is
    stored. An analysis stored before its sampling was recorded goes on with ``fallback``'s."""
    if rows.empty:
        return fallback
    first = rows.iloc[0]
    bot = first.get("rollout_bot")
    sampling = first.get("sampling")
    return Options(rollouts=int(first["rollouts_asked"]), top=int(first["top"]), seed=int(first["seed"]),
                   workers=fallback.workers, rollout_bot=str(bot) if isinstance(bot, str) and bot else None,
                   sampling=sampling if isinstance(sampling, str) and sampling in SAMPLINGS else fallback.sampling)


def decisions_from_rows(rows: pd.DataFrame, log: GameLog) -> list[Decision]:
    """The stored analysis of ``log``'s game (``analysis.store.LOAD_SQL``: every candidate, by step,
    then decision, then rank) as ``Decision`` values, each candidate's move typed again. A decision is
    a part of another seat's move when the move's seat (the log's) is not the deciding seat. Raises
    ``replay.errors.FieldError`` for a stored move the game cannot read."""
    if rows.empty:
        return []
    engine = engine_for(log.game)
    names = list(log.players)
    groups: dict[tuple[int, int], list[Any]] = {}
    for row in rows.itertuples(index=False):
        groups.setdefault((int(row.step), int(row.seat)), []).append(row)
    out = []
    for (step, seat), group in groups.items():
        candidates = tuple(
            Candidate(engine.parse_move(json.loads(r.move), f"analysis step {step}"), str(r.candidate), str(r.words),
                      bool(r.played), float(r.wins), int(r.rollouts),
                      _number(getattr(r, "score_share", None)), _number(getattr(r, "score_share_sd", None)))
            for r in sorted(group, key=lambda r: int(r.rank)))
        if not any(c.played for c in candidates):
            continue  # a decision stored without its move played cannot be judged
        first = group[0]
        mover = _mover(log, step)
        bot = getattr(first, "rollout_bot", None)
        bot = str(bot) if isinstance(bot, str) else ""
        version = getattr(first, "rollout_bot_version", None)
        version = str(version) if isinstance(version, str) else ""
        # Adaptive sampling tags a blunder's loss it is not sure of a mistake (``Decision.sure``): the
        # stored tag says which it was.
        tag = next((r.tag for r in group if bool(r.played)), None)
        sure = tag == "blunder" if isinstance(tag, str) else None
        if mover is None or mover == seat:
            out.append(Decision(step, seat, str(first.player), int(first.legal_moves), candidates, rollout_bot=bot,
                                sure=sure, rollout_version=version))
        else:
            out.append(Decision(step, seat, str(first.player), int(first.legal_moves), candidates, mover,
                                names[mover] if 0 <= mover < len(names) else None, bot, sure, version))
    return out


def _number(value: Any) -> float | None:
    """A stored number, None for a NULL (None or NaN in a data frame): a score share stored before
    schema version 10 is NULL, and the accuracy then reads the win chances."""
    return None if value is None or pd.isna(value) else float(value)


def _mover(log: GameLog, step: int) -> int | None:
    if not 1 <= step <= len(log.moves):
        return None
    seat = log.moves[step - 1].get("seat")
    return int(seat) if isinstance(seat, int) else None


def move_key(engine: Any, move: Any) -> str:
    """What tells two moves apart: the JSON of the form ``legal_moves`` lists (a decision written two
    ways has one key), as ``analysis.decisions`` compares them."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def mistakes(decisions: Sequence[Decision], seat: int | None = None) -> list[Decision]:
    """The decisions tagged mistake or blunder (of ``seat`` only, when given), in game order."""
    return [d for d in decisions if d.tag in MISTAKE_TAGS and (seat is None or d.seat == seat)]


def estimate_move(game: str, state: Any, step: int, seat: int, move: Any, rollouts: int, seed: int,
                  bot: str | None) -> tuple[float, int]:
    """The winning chance of ``seat`` after ``move`` from ``state`` (the position before the move of
    ``step``), by the rollouts the analysis runs for a candidate: the same seed, step, number and
    bot, so the same worlds (``analysis.rollouts.world_rng``) as the analysed candidates were played
    in. Returns the wins (a tie shared) and the rollouts that ended. Raises ``KeyError`` for a bot the
    game does not declare."""
    kind = bot or rollout_bot(game)
    result = run_task(RolloutTask(game, step, seat, state, (move,), seed, 0, rollouts, kind))
    return float(result.wins[0]), int(result.played[0])


def human_seats(log: GameLog) -> list[int]:
    """The seats a person played, when the log says which seats were bots (``meta.agents``: a game of
    ``governor play`` or the Play page lists its bots' seats; the arena lists every seat); empty when
    it does not say."""
    agents = (log.meta or {}).get("agents")
    if not isinstance(agents, list):
        return []
    bots = {a.get("seat") for a in agents if isinstance(a, dict)}
    return [s for s in range(len(log.players)) if s not in bots]


def takebacks(log: GameLog) -> int:
    """The moves taken back in the game (``meta.takebacks``; 0 when the log does not say)."""
    count = (log.meta or {}).get("takebacks")
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0

