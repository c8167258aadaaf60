"""The Review's "Learn from your mistakes": for one seat, each of its mistakes and blunders in turn, the
board at the position before it in that seat's view (the URL's ``step`` and ``view``: the Replay
page makes the view on the server, as for any seat view), and the seat's legal moves as buttons
(``dashboards.drill_moves``). A move is judged by its estimated winning chance (``dashboards.drill``):
the analysis's own for a candidate it rolled out; for another move, the same rollouts are run for it
first (``review_data.estimate_move``), so no move is called good without an estimate.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from analysis import variation as V
from analysis.decisions import Decision, Options, own_choices
from dashboards import drill as D
from dashboards import ui, whatif_panel
from dashboards.drill_moves import legal_move_buttons
from dashboards.plain import isolate
from dashboards.review_data import estimate_move, human_seats, mistakes, move_key
from dashboards.stats import plural
from replay.logfile import GameLog
from replay.protocol import Viewer
from replay.registry import engine_for, view_for

#: The session's drill: ``{"game": game_id, "drill": Drill}``.
DRILL_KEY = "review_drill"
#: The most legal-move buttons shown at once (more are narrowed by a filter).
MAX_BUTTONS = 60
#: Moves estimated for the drill in this session: ``{(game_id, step, seat, key): Option}``.
ESTIMATES_KEY = "review_estimates"


def drill_mistakes(game: str, decided: list[Decision], seat: int) -> list[Decision]:
    """The seat's mistakes and blunders the drill asks about: those its own view may name (a part of
    another seat's move names that seat's move, which this seat's view may not see)."""
    own = Viewer.of_seat(seat)
    seen = view_for(game)
    return [d for d in mistakes(decided, seat) if seen.sees_decisions(d.mover_seat, own)]


def puzzles(log: GameLog, decided: list[Decision], seat: int) -> list[D.Puzzle]:
    """The drill's puzzles of ``seat``, in game order."""
    engine = engine_for(log.game)
    return [D.puzzle_of(d, [move_key(engine, c.move) for c in d.candidates])
            for d in drill_mistakes(log.game, decided, seat)]


def _held(game_id: str) -> D.Drill | None:
    held = st.session_state.get(DRILL_KEY)
    if isinstance(held, dict) and held.get("game") == game_id and isinstance(held.get("drill"), D.Drill):
        return held["drill"]  # type: ignore[no-any-return]
    return None


def _keep(game_id: str, drill: D.Drill | None) -> None:
    if drill is None:
        st.session_state.pop(DRILL_KEY, None)
    else:
        st.session_state[DRILL_KEY] = {"game": game_id, "drill": drill}


def _goto(game_id: str, drill: D.Drill) -> None:
    """The board at the drill's position, in the drilled seat's view (the game, not a variation)."""
    puzzle = drill.current
    if puzzle is None:
        return
    whatif_panel.open_line(game_id, None)
    st.query_params["step"] = str(puzzle.step - 1)
    st.query_params["view"] = Viewer.of_seat(drill.seat).name


def active(game_id: str) -> bool:
    """Whether this session drills ``game_id`` (the Replay page then makes room above the board)."""
    return _held(game_id) is not None


def show(game_row: dict[str, Any], log: GameLog, decided: list[Decision], viewer: Viewer, names: list[str],
         options: Options, slot: Any = None) -> None:
    """The drill: under the review's results, a seat to drill and Start; once started, in ``slot``
    (a container above the board; else here) the position asked with its legal moves, Skip and Show
    solution, then the best move. ``options`` are the stored analysis's (its rollouts, seed and bot
    estimate a move it did not roll out)."""
    game_id = str(game_row["game_id"])
    st.markdown("**Learn from your mistakes**")
    drill = _held(game_id)
    if drill is None:
        _choose(game_id, log, decided, viewer, names)
        return
    if slot is None:
        _drill(game_row, log, drill, viewer, names, options)
        return
    ui.caption("The drill is above the board.")
    if st.button("Stop the drill", key="drill_close_here"):
        _keep(game_id, None)
        st.rerun()
    with slot:
        with st.container(border=True, key="drill_box"):
            st.markdown("**Learn from your mistakes**")
            _drill(game_row, log, drill, viewer, names, options)


def _drill(game_row: dict[str, Any], log: GameLog, drill: D.Drill, viewer: Viewer, names: list[str],
           options: Options) -> None:
    game_id = str(game_row["game_id"])
    seat = drill.seat
    if not view_for(log.game).sees_decisions(seat, viewer):
        ui.caption(f"The drill shows {isolate(names[seat])}'s position in {isolate(names[seat])}'s view: this view "
                   "does not see that hand.")
        # A button's label is Markdown: the name stays in the caption above, as text.
        if st.button("Switch to that seat's view", key="drill_view"):
            _goto(game_id, drill)
            st.rerun()
        return
    if drill.finished:
        ui.text(D.summary(drill))
        row = st.container(horizontal=True)
        if row.button("Start again", key="drill_again"):
            drill = D.start(seat, drill.puzzles)
            _keep(game_id, drill)
            _goto(game_id, drill)
            st.rerun()
        if row.button("Close", key="drill_close"):
            _keep(game_id, None)
            st.rerun()
        return
    _ask(game_row, log, drill, names, options)


def _choose(game_id: str, log: GameLog, decided: list[Decision], viewer: Viewer, names: list[str]) -> None:
    counts = {s: len(drill_mistakes(log.game, decided, s)) for s in range(len(names))}
    seats = [s for s, n in counts.items() if n]
    if not seats:
        ui.caption("No mistake or blunder to learn from.")
        return
    # The seat this view sits at, else the first seat a person played (a game played against bots).
    people = [s for s in human_seats(log) if s in seats]
    default = viewer.seat if viewer.seat in seats else (people[0] if people else seats[0])
    seat = st.selectbox("Seat", seats, index=seats.index(default), key="drill_seat",
                        format_func=lambda s: f"{isolate(names[s])}: {plural(counts[s], 'position')}")
    ui.caption("Step through the seat's mistakes and blunders: at each, find a better move among its legal moves. "
               "A move within 5 points of winning chance of the best one found is accepted.")
    if st.button("Learn from these mistakes", key="drill_start", type="primary"):
        drill = D.start(int(seat), puzzles(log, decided, int(seat)))
        _keep(game_id, drill)
        _goto(game_id, drill)
        st.rerun()


def _ask(game_row: dict[str, Any], log: GameLog, drill: D.Drill, names: list[str], options: Options) -> None:
    game_id = str(game_row["game_id"])
    puzzle = drill.current
    assert puzzle is not None
    engine = engine_for(log.game)
    state = position(log, puzzle.step - 1).state
    played = _typed(engine, puzzle.played.key, puzzle.step)
    ui.text(f"{drill.progress()} \u00b7 move {puzzle.step} \u00b7 {puzzle.tag} by {isolate(names[drill.seat])}")
    ui.caption(f"Played: {puzzle.played.words} ({puzzle.played.estimate * 100:.0f}% winning chance). "
               "Find a better move.")
    if st.query_params.get("step") != str(puzzle.step - 1):
        if st.button("Show the position on the board", key="drill_goto"):
            _goto(game_id, drill)
            st.rerun()
    for attempt in drill.attempts:
        _say_attempt(puzzle, attempt)
    choices = own_choices(engine, state, drill.seat, played)
    if not drill.revealed:
        texts = [m.text() for m in choices]
        listed = list(range(len(choices)))
        words = ""
        if len(choices) > MAX_BUTTONS:
            # A decision may have over a thousand variants (placements): a filter narrows the buttons.
            words = st.text_input(f"Filter the {plural(len(choices), 'legal move')}", key=f"drill_filter_{drill.index}",
                                  placeholder="part of a move, e.g. a name and a number").strip().lower()
            listed = [i for i in listed if words in texts[i].lower()]
            if len(listed) > MAX_BUTTONS:
                ui.caption(f"The first {MAX_BUTTONS} of {plural(len(listed), 'move')}: type part of a move to narrow them.")
            listed = listed[:MAX_BUTTONS]
        token = f"{game_id}|{puzzle.step}|{drill.seat}|{drill.index}|{len(drill.attempts)}|{words}"
        pick = legal_move_buttons([texts[i] for i in listed], token, key="drill_moves")
        if pick is not None and pick.token == token and 0 <= pick.index < len(listed):
            move = choices[listed[pick.index]]
            option = _option(game_id, log, puzzle, drill.seat, state, move, names, options)
            if option is None:
                ui.text(f"\u2717 {move.text()} could not be estimated: none of its rollouts ended. Try another move.")
            else:
                _keep(game_id, D.answer(drill, option))
                st.rerun()
        row = st.container(horizontal=True)
        if row.button("Show solution", key="drill_solution"):
            _keep(game_id, D.show_solution(drill))
            st.rerun()
        if row.button("Skip", key="drill_skip"):
            _next(game_id, D.skip(drill))
        return
    _solution(game_row, log, drill, puzzle)


def _typed(engine: Any, key: str, step: int) -> Any:
    """A puzzle's move typed again from its key."""
    return engine.parse_move(json.loads(key), f"move {step}")


@st.cache_resource(max_entries=32, show_spinner=False)
def _position(game_id: str, branch: int, _log: GameLog) -> V.Variation:
    return V.start(_log, branch)


def position(log: GameLog, branch: int) -> V.Variation:
    """The position after ``branch`` moves of the game, as a variation's start (kept between runs).
    Raises as ``analysis.variation.start``."""
    return _position(log.game_id, branch, log)


def pick_of(log: GameLog, step: int, key: str) -> int | None:
    """The index of the move with ``key`` (``review_data.move_key``) among the legal moves of the
    position before move ``step`` (a What-if line's pick), None when it is not one of them."""
    engine = engine_for(log.game)
    choices = V.choices(position(log, step - 1))
    return next((i for i, c in enumerate(choices) if move_key(engine, c.move) == key), None)


def _option(game_id: str, log: GameLog, puzzle: D.Puzzle, seat: int, state: Any, move: Any, names: list[str],
            options: Options) -> D.Option | None:
    """The move as a puzzle's option with its estimate: the analysis's for a candidate, else the same
    rollouts run for it now (kept for the session); None when no rollout of it ended."""
    engine = engine_for(log.game)
    key = move_key(engine, move)
    found = puzzle.analysed(key)
    if found is not None:
        return found
    held = st.session_state.setdefault(ESTIMATES_KEY, {})
    memo = (game_id, puzzle.step, seat, key)
    if memo not in held:
        # The analysis did not compare this move: its own rollouts first (the spinner's text is Markdown:
        # no move in it).
        with st.spinner(f"Estimating this move: {plural(options.rollouts, 'rollout')}..."):
            wins, ended = estimate_move(log.game, state, puzzle.step, seat, move, options.rollouts, options.seed,
                                        options.rollout_bot)
        held[memo] = None if ended == 0 else D.Option(key, move.text(), engine.describe_move(state, move, names),
                                                      wins / ended)
    option = held[memo]
    return option if isinstance(option, D.Option) else None


def _say_attempt(puzzle: D.Puzzle, attempt: D.Attempt) -> None:
    option = attempt.option
    how = "" if attempt.analysed else " (estimated now: the analysis had not compared it)"
    chance = f"{option.words} \u00b7 {option.estimate * 100:.0f}%{how}"
    lost = round(D.loss(puzzle, option.estimate) * 100)
    if attempt.accepted:
        ui.text(f"\u2713 Good: {chance}, within 5 points of the best move found.")
    elif option.key == puzzle.played.key:
        ui.text(f"\u2717 {chance}: that is the move played. Try another move.")
    else:
        ui.text(f"\u2717 Not good enough: {chance}, {lost} points below the best. Try another move.")


def _solution(game_row: dict[str, Any], log: GameLog, drill: D.Drill, puzzle: D.Puzzle) -> None:
    game_id = str(game_row["game_id"])
    gained = round((puzzle.best.estimate - puzzle.played.estimate) * 100)
    ui.text(f"Best: {puzzle.best.words} \u00b7 {puzzle.best.estimate * 100:.0f}% winning chance, {gained} points more "
            f"than the move played ({puzzle.played.estimate * 100:.0f}%).")
    others = [c for c in puzzle.candidates[1:] if D.accepts(puzzle, c.estimate) and c.key != puzzle.played.key]
    if others:
        ui.caption("Also good: " + "; ".join(f"{c.words} \u00b7 {c.estimate * 100:.0f}%" for c in others))
    decision_step = puzzle.step
    row = st.container(horizontal=True)
    pick = pick_of(log, decision_step, puzzle.best.key)
    if pick is not None and row.button("Play it on the board", key=f"drill_play_{decision_step}",
                                           help="The board shows the position after the best move (a variation)"):
        whatif_panel.add_line(game_id, whatif_panel.Line(decision_step - 1, (pick,)))
        st.rerun()
    last = drill.index + 1 >= len(drill.puzzles)
    if row.button("Finish" if last else "Next position", key="drill_next", type="primary"):
        _next(game_id, D.next_puzzle(drill))


def _next(game_id: str, drill: D.Drill) -> None:
    _keep(game_id, drill)
    _goto(game_id, drill)
    st.rerun()
