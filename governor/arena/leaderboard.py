"""The arena's ranking: per agent, its official win rate (a full tie split) with the Wilson 95%
interval, its OpenSkill rating, its average score, how often it finished in each place, its faults and
its time per decision; as a terminal table, JSON or CSV.

The rating is the player's, computed by ``ingest.ratings.Ratings`` (the importer's own computation)
over the arena's games in the order they were played, which is the order the importer rates them in
(undated games by their source id's number): once the arena's logs are imported, the Players page and
``player_ratings`` hold the same figures. A player is an agent name and version (``ingest.rows.
agent_identity``): the copies of one agent seated together (``heuristic``, ``heuristic#2``) share one
rating, and a game where one player holds several seats rates it once, at the mean of their ranks."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.errors import printable

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional: split ties).
    ``(0.0, 1.0)`` when there is no trial."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Standing:
    """One agent's line of the leaderboard."""

    name: str
    spec: str
    version: str
    games: int = 0
    wins: float = 0.0
    score_sum: int = 0
    places: list[int] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    decisions: int = 0
    #: Games this agent sat in that did not end within the move limit (not recorded, not rated).
    unfinished_games: int = 0
    #: The player the agent is (``ingest.rows.agent_identity``), whose rating ``mu`` and ``sigma`` are.
    player: str = ""
    mu: float = 25.0
    sigma: float = 25.0 / 3

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def ordinal(self) -> float:
        """The conservative OpenSkill rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    @property
    def average_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def ms_per_decision(self) -> float:
        return 1000 * self.seconds / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "agent": self.name, "spec": self.spec, "version": self.version, "player": self.player, "games": self.games,
            "wins": round(self.wins, 6), "win_rate": round(self.win_rate, 6),
            "win_rate_low": round(low, 6), "win_rate_high": round(high, 6),
            "mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "ordinal": round(self.ordinal, 4),
            "average_score": round(self.average_score, 4),
            "places": {str(i + 1): n for i, n in enumerate(self.places)},
            "faults": sum(self.faults.values()), "faults_by_kind": dict(sorted(self.faults.items())),
            "ms_per_decision": round(self.ms_per_decision, 4), "unfinished": self.unfinished_games,
        }


class Leaderboard:
    """Standings updated game by game (in game order, so that ratings are reproducible)."""

    def __init__(self, entries: Sequence[tuple[str, str, str]], players: int) -> None:
        # Imported here: the arena's worker processes, which import this module, never rate.
        from ingest.ratings import Ratings
        from ingest.rows import agent_identity

        self.ratings = Ratings()
        self.players = players
        #: Games that did not end within the move limit.
        self.unfinished_total = 0
        self.standings = {name: Standing(name, spec, version, places=[0] * players,
                                         player=agent_identity(name, version))
                          for name, spec, version in entries}

    def add(self, seated: Sequence[str], scores: Sequence[int], ranks: Sequence[int], shares: Sequence[float],
            faults: Sequence[tuple[int, str]], seconds: Sequence[float], decisions: Sequence[int]) -> None:
        """One game: the agent name in each seat, each seat's score, rank, win share, time and decisions
        counted, and the faults as ``(seat, kind)``."""
        from ingest.ratings import Seat

        lines = [self.standings[name] for name in seated]
        for seat, line in enumerate(lines):
            line.games += 1
            line.wins += shares[seat]
            line.score_sum += scores[seat]
            line.places[ranks[seat] - 1] += 1
            line.seconds += seconds[seat]
            line.decisions += decisions[seat]
        for seat, kind in faults:
            line = lines[seat]
            line.faults[kind] = line.faults.get(kind, 0) + 1
        # The game type and game id are the same for every game of one arena: only the order matters.
        self.ratings.rate("", "", [Seat(seat, line.player, ranks[seat], shares[seat] > 0, bot=True)
                                   for seat, line in enumerate(lines)])
        played = {line.player for line in lines}
        for line in self.standings.values():
            if line.player in played:  # every copy of a player that sat here, or sat out
                rating = self.ratings.get("", line.player, True)
                line.mu, line.sigma = rating.mu, rating.sigma

    def unfinished(self, seated: Sequence[str]) -> None:
        """A game of these agents that did not end: counted, neither scored nor rated."""
        self.unfinished_total += 1
        for name in set(seated):
            self.standings[name].unfinished_games += 1

    def rows(self) -> list[Standing]:
        """Best first: by win rate, then rating, then name."""
        return sorted(self.standings.values(), key=lambda s: (-s.win_rate, -s.ordinal, s.name))

    def to_json(self) -> list[dict[str, Any]]:
        return [s.to_json() for s in self.rows()]

    def to_csv(self) -> str:
        out = io.StringIO()
        fields = ["agent", "spec", "version", "games", "wins", "win_rate", "win_rate_low", "win_rate_high",
                  "mu", "sigma", "ordinal", "average_score"] + [f"place_{i + 1}" for i in range(self.players)] + [
                  "faults", "ms_per_decision", "unfinished"]
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(fields)
        for row in self.to_json():
            places = [row["places"][str(i + 1)] for i in range(self.players)]
            writer.writerow([row[f] for f in fields[:12]] + places + [row["faults"], row["ms_per_decision"],
                                                                      row["unfinished"]])
        return out.getvalue()

    def table(self) -> str:
        """The leaderboard for a terminal (agent names escaped)."""
        places = " ".join(f"{'#' + str(i + 1):>5}" for i in range(self.players))
        head = f"{'agent':<20} {'games':>6} {'win rate':>8} {'95% interval':>15} {'rating':>7} {'avg':>6} {places} {'faults':>6} {'ms/move':>8}"
        lines = [head, "-" * len(head)]
        for s in self.rows():
            low, high = s.interval
            share = " ".join(f"{(n / s.games if s.games else 0):>5.0%}" for n in s.places)
            lines.append(
                f"{printable(s.name)[:20]:<20} {s.games:>6} {s.win_rate:>8.1%} {f'{low:.1%}-{high:.1%}':>15} "
                f"{s.ordinal:>7.2f} {s.average_score:>6.1f} {share} {sum(s.faults.values()):>6} {s.ms_per_decision:>8.2f}"
            )
        if self.unfinished_total:
            lines.append(f"{self.unfinished_total} game(s) did not end within the move limit: not recorded, not counted")
        return "\n".join(lines)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)
