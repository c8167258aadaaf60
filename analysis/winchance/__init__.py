"""The learned win chance: for a position of a game, the chance that each seat wins, summing to 1 over
the seats (docs/winchance.md).

One model per game and player count, learned from self-play games of the game's strongest bot
(``train``), stored as data only (``model``: LightGBM's text format and an isotonic calibration as a
JSON table, never a pickle), evaluated from the features the game's own observation vector gives
(``features``: the whole view of a finished game, or only what one seat may see), and written for
every step of a database's games (``fill``)."""
