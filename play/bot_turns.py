"""The bots' turns of the games a store keeps: a bot's move at move index k is seeded from the game's
seed and k (built-in agents), so a game resumed after a restart goes on exactly as it would have; a
user's agent runs in a process of its own as in the arena (``play.hosted``), kept from one move to the
next, told when its game is over, and ended then.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from play.agents import built_in_agent
from play.hosted import HostedAgent
from play.session import Session
from play.views import seat_view as agent_view

#: Seconds a user's agent may take for a decision (the arena's default budget).
BUDGET = 1.0


def bot_seed(seed: int, index: int) -> int:
    """The seed of a bot's move at move index ``index`` (0-based) of a game of seed ``seed``."""
    return random.Random(f"play:{seed}:{index}").randrange(2**31)


class BotTurns:
    """The bots' moves, and the processes of users' agents they need (``hosted``: by game id and seat),
    each given ``budget`` seconds a decision. Safe to share between threads."""

    def __init__(self, budget: float = BUDGET) -> None:
        self.budget = budget
        self.hosted: dict[tuple[str, int], HostedAgent] = {}
        self._lock = threading.Lock()

    def move(self, session: Session, seat: int) -> tuple[Any, list[dict[str, str]]]:
        """The move of the bot at ``seat``, to act in ``session``, and the faults of a user's agent (each
        ``{"kind", "detail"}``: a fault plays a random legal move, seeded like a bot's)."""
        setup = session.setup
        spec = setup.bots[seat]
        assert spec is not None
        engine = session.engine
        index = len(session.moves)
        agent = built_in_agent(spec, setup.game)
        if agent is not None:
            agent.reset(bot_seed(setup.seed, index))
            return agent.choose_working(engine.working(session.state)), []
        faults: list[dict[str, str]] = []
        with self._lock:
            hosted = self.hosted.get((session.id, seat))
            fresh = hosted is None
            if hosted is None:
                hosted = self.hosted[(session.id, seat)] = HostedAgent(spec, setup.game, self.budget)
        if fresh:
            fault = hosted.begin(setup.game, seat, list(setup.names), setup.seed)
            if fault is not None:
                faults.append({"kind": fault[0], "detail": fault[1]})
        legal = list(engine.legal_moves(session.state))
        move = None
        if not hosted.out:
            move, fault, _ = hosted.decide(engine, agent_view(setup.game, session.state, seat, setup.names), legal)
            if fault is not None:
                faults.append({"kind": fault[0], "detail": fault[1]})
        if move is None:
            move = random.Random(f"play-fallback:{setup.seed}:{index}").choice(legal)
        return move, faults

    def ended(self, session: Session) -> None:
        """Once a game is over: each user's agent of it is told (``on_game_end``: the final view of its
        seat and the result; the game is recorded already, so what the hook does changes nothing) and
        its process let go."""
        if not session.over:
            return
        with self._lock:
            mine = [key for key in self.hosted if key[0] == session.id]
            agents = [(key[1], self.hosted.pop(key)) for key in mine]
        if not agents:
            return
        engine, setup = session.engine, session.setup
        result = {"scores": [s.total for s in engine.scores(session.state)],
                  "winners": list(engine.winners(session.state))}
        for seat, agent in agents:
            agent.end(agent_view(setup.game, session.state, seat, setup.names), result)
            agent.close()

    def forget(self, game_id: str) -> None:
        """End the processes of users' agents of the game ``game_id`` (abandoned), telling them nothing."""
        with self._lock:
            gone = [key for key in self.hosted if key[0] == game_id]
            agents = [self.hosted.pop(key) for key in gone]
        for agent in agents:
            agent.close()

    def close(self) -> None:
        """End every user's agent process started here."""
        with self._lock:
            hosted = list(self.hosted.values())
            self.hosted.clear()
        for agent in hosted:
            agent.close()
