"""The move list of the Replay page: the moves around the current step, grouped by round, with the
move that led to the current step highlighted."""

from __future__ import annotations

from html import escape

import pandas as pd


def move_window(moves: pd.DataFrame, step: int, before: int = 9, after: int = 8) -> pd.DataFrame:
    """The moves shown around ``step``: a few before and after it (more at either end of the game)."""
    if moves.empty:
        return moves
    first = max(1, step - before)
    last = first + before + after
    if last > int(moves["step"].max()):
        last = int(moves["step"].max())
        first = max(1, last - before - after)
    return moves[(moves["step"] >= first) & (moves["step"] <= last)]


def move_list_html(moves: pd.DataFrame, step: int) -> str:
    """The window of moves as HTML; the move numbered ``step`` (the one just played) is highlighted,
    later moves are greyed."""
    window = move_window(moves, step)
    rows = []
    if step == 0:
        rows.append('<div class="mv current"><span class="n">0</span>The start of the game</div>')
    last_round = None
    for move in window.itertuples(index=False):
        if move.round != last_round:
            rows.append(f'<div class="round">Round {int(move.round)}</div>')
            last_round = move.round
        cls = "mv current" if move.step == step else ("mv future" if move.step > step else "mv")
        rows.append(
            f'<div class="{cls}" title="{escape(str(move.text))}"><span class="n">{int(move.step)}</span>'
            f"{escape(str(move.words))}</div>"
        )
    return f'<div class="gv-moves">{"".join(rows)}</div>'
