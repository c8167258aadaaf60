"""Playing: a game in progress, made durable, with agents in the seats no person holds.

- ``play.session``: a game a person plays against bots (or several people, hot-seat), one move at a
  time, every move on disk before it is shown (``Store``, ``Session``, ``Setup``, ``seat_view``).
- ``play.agents``, ``play.host``, ``play.hosted``, ``play.wire``, ``play.views``, ``play.entries``:
  the agents (built-in and users' own, each of those in a process of its own), what a seat sees, and
  how agents are named; the arena (``governor.arena``) seats them too.

Nothing is imported here: an agent's host process loads only what it needs.
"""
