"""Playing: a game in progress, made durable, with agents in the seats no person holds.

- ``play.store``: the games a person plays against bots (or several people, hot-seat), one move at a
  time, every move on disk before it is shown (``Store``); ``play.session``: a game as one snapshot
  (``Session``) and as a log; ``play.line``: a game's journal folded; ``play.moves``: the moves a
  person gives; ``play.bot_turns``: the bots' moves; ``play.shown``: what a person is shown
  (``seat_view``); ``play.setup``, ``play.errors``: who sits where, and what can go wrong.
- ``play.agents``, ``play.host``, ``play.hosted``, ``play.wire``, ``play.views``, ``play.entries``:
  the agents (built-in and users' own, each of those in a process of its own), what a seat sees, and
  how agents are named; the arena (``governor.arena``) seats them too.

Nothing is imported here: an agent's host process loads only what it needs.
"""
