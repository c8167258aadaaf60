"""Analysis of played games: each decision's estimated winning chance by rollouts that never cheat."""
