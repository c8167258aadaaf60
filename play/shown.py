"""What a person is shown of a game in progress (``seat_view``, ``moves_seen``): all of it plain JSON,
all of it decided by the game's view module (the Replay page's seat view); nothing else leaves the
server.
"""

from __future__ import annotations

from typing import Any

from play.session import Session
from replay.protocol import Viewer
from replay.registry import view_for


def seat_view(session: Session, seat: int) -> dict[str, Any]:
    """What the page may send to the person at ``seat`` (0-based), all of it plain JSON, all of it
    decided by the game's view module (``replay.registry.view_for``: the Replay page's seat view):

    - ``state``: the state as the seat sees it (``GameView.view_state``), and ``text``, the same as
      the game's own text (``Engine.render_view``);
    - ``moves``: the final line as the seat knew it: each move's ``number``, ``seat``, ``player``,
      ``bot``, ``words`` (``view_move_words``), ``text`` (its text form, None when the seat may not
      see all of it) and ``events`` (``view_move_events``);
    - ``legal``: when this seat decides now, its choices (``Session.choices``), each with its
      ``index``, ``text`` (the form ``governor replay`` prints), ``words`` and ``move`` (its JSON form,
      what ``Store.act`` takes back); else empty. ``asked``: the move this seat is asked a part of;
    - ``id``, ``version``, ``game``, ``title``, ``names``, ``seat``, ``humans``, ``to_act``,
      ``human_to_act``, ``over``, ``takebacks``, ``can_take_back``, and once over ``result``
      (``scores``, ``tiebreaks``, ``winners``).

    The Replay board of the game so far is made from ``game_log(session)`` as the What-if panel makes
    a variation's (the rows an import would store, seen through ``PreparedGame.payload``).

    Raises ``ValueError`` for a seat the game does not have."""
    setup = session.setup
    if not 0 <= seat < setup.players:
        raise ValueError(f"no seat {seat} in a game of {setup.players}")
    engine = session.engine
    view = view_for(setup.game)
    viewer = Viewer.of_seat(seat)
    names = list(setup.names)
    shown_state = view.view_state(session.state, viewer, names)
    moves = moves_seen(session, viewer)
    out: dict[str, Any] = {
        "id": session.id, "version": session.version, "game": setup.game, "title": view.TITLE, "names": names,
        "seat": seat, "humans": list(setup.humans), "state": shown_state,
        "text": engine.render_view(shown_state, names), "moves": moves, "to_act": session.to_act,
        "human_to_act": session.human_to_act, "over": session.over, "takebacks": session.takebacks,
        "can_take_back": session.can_take_back, "legal": [], "asked": None,
    }
    deciding = session.to_act == seat and seat in setup.humans and view.sees_decisions(seat, viewer)
    if deciding:
        state = session.state
        out["legal"] = [{"index": i, "text": m.text(), "words": engine.describe_move(state, m, names),
                         "move": m.to_json()} for i, m in enumerate(session.choices())]
        asked = session.asked
        if asked is not None:
            details = asked.move.to_json()
            mover = names[asked.mover]
            words = engine.describe_move(state, asked.move, names)
            if view.hides_move(details, asked.mover, viewer):
                words = view.view_move_words(details, words, mover, asked.mover, viewer)
            out["asked"] = {"seat": asked.mover, "player": mover, "words": words}
    if session.over:
        scores = engine.scores(session.state)
        out["result"] = {"scores": [s.total for s in scores], "tiebreaks": [s.tiebreak for s in scores],
                         "winners": list(engine.winners(session.state))}
    return out


def moves_seen(session: Session, viewer: Viewer, first: int = 0) -> list[dict[str, Any]]:
    """The moves of the final line from index ``first`` (0-based) as ``viewer`` knew them (the game's
    view module decides, as on the Replay page): each move's ``number``, ``seat``, ``player``, ``bot``,
    ``words``, ``text`` (None when ``viewer`` may not see all of the move) and ``events``."""
    engine = session.engine
    view = view_for(session.setup.game)
    names = list(session.setup.names)
    out = []
    for played, before, after in zip(session.moves[first:], session.states[first:], session.states[first + 1:]):
        details = played.move.to_json()
        player = names[played.seat]
        words = engine.describe_move(before, played.move, names)
        hidden = view.hides_move(details, played.seat, viewer)
        out.append({
            "number": played.number, "seat": played.seat, "player": player, "bot": played.bot,
            "words": view.view_move_words(details, words, player, played.seat, viewer) if hidden else words,
            "text": None if hidden else played.move.text(),
            "events": view.view_move_events(engine.automatic_events(before, played.move, after, names), names, viewer),
        })
    return out
