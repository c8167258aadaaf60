"""Puerto Rico (3 to 5 players): catalogue, moves, state, rules, scoring, engine and bots."""
