"""Governor: replay, import and study the game logs of every game registered with it (``replay.game``)."""

__version__ = "0.1.0"
