"""The Replay page's "What if?": branch from any position, play moves by hand or let the bots finish,
download each variation as a log. Several variations of a game are kept at once, each as a ``Line``
(its branch, the index of each move chosen by hand among the legal ones, and whether the bots
finished it): a few characters each, kept in the session and in the URL (``var``), so a reload or a
shared link brings them back; the moves are played again from them (the bots are seeded). The
mainline and the database are never changed.

The engine decides everything (``analysis.variation``): this module only shows its choices and lays
out the variation's states with the importer's own rows, in the viewer's format.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import streamlit as st

from analysis import variation as V
from dashboards import ui
from dashboards.stats import plural
from replay.logfile import parse_game
from replay.protocol import Viewer
from replay.registry import view_for

#: The session's lines per game (``{game_id: [Line, ...]}``) and the index of the one the viewer shows.
LINES_KEY = "whatif_lines"
ACTIVE_KEY = "whatif_active"
#: Bounds of what a session, and a URL, may hold: lines per game, moves chosen by hand per line, and
#: the characters of the URL's ``var`` parameter.
MAX_LINES = 8
MAX_PICKS = 60
MAX_URL_CHARS = 1200


def _log_of(game_row: dict[str, Any], log_text: str) -> Any:
    import json

    return parse_game(json.loads(log_text), file=str(game_row.get("file") or "game"))


def payload(variation: V.Variation, base: dict[str, Any], viewer: Viewer | None = None) -> dict[str, Any]:
    """The viewer's payload (``replay_data.game_payload``) of a variation as ``viewer`` sees it
    (default: everything), from the rows an import would store for it. Raises ``ValueError`` when the
    variation cannot be laid out as rows."""
    from dashboards.replay_data import log_payload

    data = log_payload(V.as_game_log(variation), "variation", viewer, complete=False)
    data["game_id"] = payload_id(variation, str(base["game_id"]))
    data["facts"] = [f"variation after move {variation.branch}", f"{plural(len(variation.moves), 'move')} of its own",
                     *data["facts"]]
    data["source"] = str(base.get("source_id") or base.get("file") or "")
    # The rows of an unfinished game name the leader as winner: a variation has no winner until it is over.
    if not variation.over:
        data["winners"] = []
        data["unfinished"] = True
    data["branch_after"] = variation.branch
    return data


def payload_id(variation: V.Variation, game_id: str) -> str:
    """The id the viewer knows a variation by: the game's id and a digest of the variation's moves."""
    digest = hashlib.sha1(f"{variation.branch}:{[m.text() for m in variation.moves]}".encode()).hexdigest()[:8]
    return f"{game_id}~{digest}"


# The position at a branch is the log replayed that far: kept, so that a rerun at the same branch (any
# click under the board) does not replay a long game again. Only the id and the branch are hashed.
@st.cache_resource(max_entries=8, show_spinner=False)
def _start(game_id: str, branch: int, _game_row: dict[str, Any], _log_text: str) -> V.Variation:
    return V.start(_log_of(_game_row, _log_text), branch)


@dataclass(frozen=True)
class Line:
    """A variation as the session and the URL keep it: the position it branches after, the index of
    each move chosen by hand among the legal moves of its position (``analysis.variation.choices``,
    the engine's order), and whether the bots finished it."""

    branch: int
    picks: tuple[int, ...]
    finished: bool = False

    def code(self) -> str:
        """``<branch>_<pick>.<pick>..._<f|u>``: URL-safe, a few characters."""
        return f"{self.branch}_{'.'.join(str(p) for p in self.picks)}_{'f' if self.finished else 'u'}"


_CODE = re.compile(r"(\d{1,7})_(\d{1,4}(?:\.\d{1,4})*)?_([fu])")


def parse_lines(text: str, total: int) -> tuple[list[Line], str | None]:
    """The lines of a URL's ``var`` parameter (codes joined by ``~``) and a note when some were
    refused: too long a parameter, too many lines, a code that is not one, a branch past the game's
    ``total`` moves, or too many moves by hand. Whether each move is legal is checked when it is played
    (``variation_of``)."""
    if len(text) > MAX_URL_CHARS:
        return [], f"The link's variations ({len(text)} characters, at most {MAX_URL_CHARS}) were not read."
    lines: list[Line] = []
    bad: list[str] = []
    for i, code in enumerate(p for p in text.split("~") if p):
        found = _CODE.fullmatch(code)
        if found is None:
            bad.append(f"variation {i + 1} is not of the form branch_moves_f")
            continue
        branch = int(found.group(1))
        picks = tuple(int(p) for p in found.group(2).split(".")) if found.group(2) else ()
        if branch > total:
            bad.append(f"variation {i + 1} branches after move {branch}, but the game has {total} moves")
        elif not picks and found.group(3) == "u":
            bad.append(f"variation {i + 1} has no move")
        elif len(picks) > MAX_PICKS:
            bad.append(f"variation {i + 1} has {len(picks)} moves by hand (at most {MAX_PICKS})")
        elif len(lines) >= MAX_LINES:
            bad.append(f"variations past the first {MAX_LINES} were dropped")
            break
        else:
            lines.append(Line(branch, picks, found.group(3) == "f"))
    return lines, ("The link's variations: " + "; ".join(bad) + ".") if bad else None


# A line's variation is its moves played again: kept, so a rerun (or the move list's rows of several
# lines) does not replay them. Only the id and the code are hashed.
@st.cache_resource(max_entries=32, show_spinner=False)
def _variation(game_id: str, code: str, _line: Line, _game_row: dict[str, Any], _log_text: str) -> V.Variation:
    start = _start(game_id, _line.branch, _game_row, _log_text)
    # A copy with notes of its own: the cached start is shared by every line from that position.
    variation = replace(start, notes=[])
    for n, pick in enumerate(_line.picks, start=1):
        if variation.over:
            raise ValueError(f"move {n} after move {_line.branch}: the game is over")
        choices = V.choices(variation)
        if not 0 <= pick < len(choices):
            raise ValueError(f"move {n} after move {_line.branch}: move {pick} is not one of the "
                             f"{len(choices)} legal moves")
        variation = V.play(variation, choices[pick].move)
    return V.finish(variation, seed=variation.seed) if _line.finished else variation


def variation_of(game_row: dict[str, Any], log_text: str, line: Line) -> V.Variation:
    """The variation ``line`` describes, played from the game's log. Raises ``ValueError`` naming the
    move when a chosen move is not legal there (a hand-edited link)."""
    return _variation(str(game_row["game_id"]), line.code(), line, game_row, log_text)


def lines(game_id: str) -> list[Line]:
    """The variations this session keeps for ``game_id``, oldest first."""
    held = st.session_state.get(LINES_KEY)
    found = held.get(game_id) if isinstance(held, dict) else None
    return list(found) if isinstance(found, list) else []


def active_index(game_id: str) -> int | None:
    """The index (in ``lines``) of the variation the viewer shows, None for the game itself."""
    held = st.session_state.get(ACTIVE_KEY)
    index = held.get(game_id) if isinstance(held, dict) else None
    return index if isinstance(index, int) and 0 <= index < len(lines(game_id)) else None


def _set(game_id: str, kept: list[Line], active: int | None) -> None:
    st.session_state.setdefault(LINES_KEY, {})[game_id] = kept[:MAX_LINES]
    st.session_state.setdefault(ACTIVE_KEY, {})[game_id] = active
    code = "~".join(line.code() for line in kept[:MAX_LINES])
    if code:
        if st.query_params.get("var") != code:
            st.query_params["var"] = code
    elif "var" in st.query_params:
        del st.query_params["var"]


def restore(game_row: dict[str, Any], log_text: str) -> str | None:
    """Bring back the variations of the URL's ``var`` when the session holds none for this game (a
    reload, a shared link), and keep the URL in step with the session; returns a note when some of the
    link's variations were refused. Never raises for a bad link."""
    game_id = str(game_row["game_id"])
    held = st.session_state.get(LINES_KEY)
    if isinstance(held, dict) and game_id in held:
        _set(game_id, lines(game_id), active_index(game_id))
        return None
    kept, note = parse_lines(str(st.query_params.get("var") or ""), int(game_row["moves"]))
    good: list[Line] = []
    problems: list[str] = [note] if note else []
    for i, line in enumerate(kept):
        try:
            variation_of(game_row, log_text, line)
            good.append(line)
        except ValueError as err:
            problems.append(f"The link's variation {i + 1} was dropped: {err}.")
    _set(game_id, good, None)
    return " ".join(problems) or None


def active(game_id: str, game_row: dict[str, Any] | None = None, log_text: str | None = None) -> V.Variation | None:
    """The variation the viewer shows for ``game_id``, if any (``game_row`` and ``log_text`` play it
    again when it is not cached)."""
    index = active_index(game_id)
    if index is None or game_row is None or log_text is None:
        return None
    return variation_of(game_row, log_text, lines(game_id)[index])


def result_text(variation: V.Variation, names: list[str]) -> str:
    """``unfinished``, or each seat's score and the winner(s) of a variation that is over."""
    if not variation.over:
        return "unfinished"
    result = V.to_log(variation).get("result") or {}
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(result.get("scores", [])))
    winners = ", ".join(names[w] for w in result.get("winners", []))
    return f"{scores}: winner {winners}" if winners else scores


def open_line(game_id: str, index: int | None) -> None:
    """Show the variation ``index`` (from the move list) in the viewer, or the game itself (None)."""
    _set(game_id, lines(game_id), index if index is not None and 0 <= index < len(lines(game_id)) else None)


def add_line(game_id: str, line: Line) -> bool:
    """Keep ``line`` as a new variation of the game and show it; False (nothing kept) when the game
    already holds ``MAX_LINES`` variations."""
    kept = lines(game_id)
    if len(kept) >= MAX_LINES:
        return False
    _set(game_id, [*kept, line], len(kept))
    return True


def branch_at(step: int) -> None:
    """The viewer's "Try a move here" was pressed at ``step``: the panel's branch point moves there."""
    st.session_state["whatif_branch"] = step
    st.session_state["whatif_from_viewer"] = True


def move_list(game_row: dict[str, Any], log_text: str, viewer: Viewer) -> list[dict[str, Any]]:
    """The game's variations for the viewer's move list: each one's branch, moves in words as
    ``viewer`` sees them (a hidden hand stays hidden), result, and whether the viewer shows it."""
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    shown = active_index(game_id)
    out = []
    for k, line in enumerate(lines(game_id)):
        variation = variation_of(game_row, log_text, line)
        words = _words(game_id, line.code(), viewer.name, variation, game_row, viewer)
        out.append({"k": k, "branch": line.branch, "words": words, "result": result_text(variation, names),
                    "active": k == shown})
    return out


@st.cache_resource(max_entries=64, show_spinner=False)
def _words(game_id: str, code: str, view: str, _variation: V.Variation, _game_row: dict[str, Any],
           _viewer: Viewer) -> list[str]:
    data = payload(_variation, _game_row, _viewer)
    branch = _variation.branch
    return [w for s, w in zip(data["moves"]["step"], data["moves"]["words"]) if s > branch]


def show(game_row: dict[str, Any], log_text: str, step: int | None, viewer: Viewer | None = None) -> None:
    """The what-if controls under the viewer. In a view that may not see the seat to act's decisions
    (another seat's hidden hand: ``GameView.sees_decisions``), no decision of that seat is listed
    and a line says why."""
    viewer = viewer or Viewer.everything()
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    total = int(game_row["moves"])
    kept = lines(game_id)
    index = active_index(game_id)
    st.subheader("What if?")
    if index is None:
        # The widget's value lives in the session: a new game or a new step in the URL sets it, and so
        # does the board's "Try a move here" (``branch_at``); otherwise it stays where the user put it.
        # It is the field's default too, so that the first paint shows it (``dashboards.url_state``).
        seed = (game_id, min(total, step if step is not None else 0))
        if st.session_state.pop("whatif_from_viewer", False):
            st.session_state["whatif_seed"] = seed
        elif st.session_state.get("whatif_seed") != seed or "whatif_branch" not in st.session_state:
            st.session_state["whatif_seed"] = seed
            st.session_state["whatif_branch"] = seed[1]
        st.session_state["whatif_branch"] = min(total, max(0, int(st.session_state["whatif_branch"])))
        branch = st.number_input(
            "Try another move at the position after move", min_value=0, max_value=total,
            value=st.session_state["whatif_branch"], key="whatif_branch",
            help="0 is the start of the game. \"Try a move here\" on the board sets it to the move shown.",
        )
        start = _start(game_id, int(branch), game_row, log_text)
        if start.over:
            st.caption("The game is over at that position: nothing to try.")
        elif len(kept) >= MAX_LINES:
            ui.caption(f"This game holds {MAX_LINES} variations, the most a page keeps: delete one to try another.")
        else:
            pick = _choose(start, names, viewer, f"{start.branch}_0")
            if pick is not None and st.button("Play this instead", key=f"whatif_play_{start.branch}_0"):
                _set(game_id, [*kept, Line(start.branch, (pick,))], len(kept))
                st.rerun()
        _listing(game_row, log_text, kept, viewer)
        return
    line = kept[index]
    variation = variation_of(game_row, log_text, line)
    ui.caption(
        f"Variation {index + 1}, after move {variation.branch}: {plural(len(variation.moves), 'move')} of its own. Cards "
        "come off the game's recorded deck; recorded reshuffles are used while they fit."
    )
    for note in variation.notes:
        ui.caption(note)
    if not variation.over:
        if len(line.picks) >= MAX_PICKS:
            ui.caption(f"{MAX_PICKS} moves by hand are the most a variation keeps: let the bots finish it.")
        else:
            pick = _choose(variation, names, viewer, f"{variation.branch}_{len(variation.moves)}")
            if pick is not None and st.button("Play", key=f"whatif_play_{variation.branch}_{len(variation.moves)}"):
                _set(game_id, [*kept[:index], Line(line.branch, (*line.picks, pick)), *kept[index + 1:]], index)
                st.rerun()
    else:
        ui.caption("The variation is over: " + result_text(variation, names) + ".")
    cols = st.columns(3)
    if cols[0].button("Let the bots finish", disabled=variation.over, key="whatif_finish"):
        _set(game_id, [*kept[:index], Line(line.branch, line.picks, True), *kept[index + 1:]], index)
        st.rerun()
    _download(cols[1], variation, game_id, viewer, "whatif_download")
    if cols[2].button("Back to the game", key="whatif_back"):
        # Back where the user branched (the position the variation starts from), as the move list's
        # "Back to the game" does, not at the step the URL named when the page was opened.
        open_line(game_id, None)
        st.query_params["step"] = str(variation.branch)
        st.rerun()
    _listing(game_row, log_text, kept, viewer)


def _download(where: Any, variation: V.Variation, game_id: str, viewer: Viewer, key: str) -> None:
    # A log holds every hand and the deck's order: only the view that sees everything offers it.
    whole = viewer.sees_everything
    where.download_button(
        "Download the variation (.json)", data=V.to_text(variation) if variation.over and whole else "",
        file_name=f"variation-{game_id[:12]}-after-{variation.branch}.json", mime="application/json",
        disabled=not variation.over or not whole, key=key,
        help="A complete log of the format (governor validate accepts it); finish the game first."
        if whole else "A log holds every hand: choose the view everything to download it.",
    )


def _listing(game_row: dict[str, Any], log_text: str, kept: list[Line], viewer: Viewer) -> None:
    """Every variation of the game with its result: open, download, delete."""
    if not kept:
        return
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    index = active_index(game_id)
    ui.caption(f"Variations of this game ({len(kept)} of at most {MAX_LINES}; the link keeps them):")
    for k, line in enumerate(kept):
        variation = variation_of(game_row, log_text, line)
        cols = st.columns([3, 1, 2, 1])
        cols[0].text(f"{k + 1}. after move {line.branch}, {plural(len(variation.moves), 'move')}: "
                     f"{result_text(variation, names)}")
        if cols[1].button("Open", key=f"whatif_open_{k}", disabled=k == index):
            open_line(game_id, k)
            st.rerun()
        _download(cols[2], variation, game_id, viewer, f"whatif_download_{k}")
        if cols[3].button("Delete", key=f"whatif_delete_{k}"):
            rest = [x for i, x in enumerate(kept) if i != k]
            now = None if index is None or index == k else index - (index > k)
            _set(game_id, rest, now)
            st.rerun()


def _choose(variation: V.Variation, names: list[str], viewer: Viewer, key: str) -> int | None:
    """The index of the move chosen among the seat to act's legal moves, None when this view may not
    list them."""
    seat = variation.seat
    who = names[seat] if seat is not None else ""
    if seat is not None and not view_for(variation.log.game).sees_decisions(seat, viewer):
        # Which moves are legal names the cards of a hidden hand: never listed outside its seat's view.
        if viewer.seat is not None:
            mine = names[viewer.seat]
            ui.caption(f"In {mine}'s seat view, What if? offers {mine}'s own decisions only: at this "
                       f"position {who} is to act, and {who}'s moves would show {who}'s hidden hand.")
        else:
            ui.caption(f"In the public view, What if? lists no decision of a hidden hand: {who} is to act "
                       f"here. Choose everything or {who}'s seat to try a move.")
        return None
    choices = V.choices(variation)
    frame = pd.DataFrame({"group": [c.group for c in choices], "move": [c.words for c in choices]})
    groups = list(dict.fromkeys(frame["group"]))
    ui.caption(f"{who} has {plural(len(choices), 'legal move')}.")
    cols = st.columns([1, 3])
    group = cols[0].selectbox("Kind", groups, key=f"whatif_group_{key}")
    options = [i for i, c in enumerate(choices) if c.group == group]
    pick = cols[1].selectbox("Move", options, format_func=lambda i: choices[i].words,
                             key=f"whatif_move_{key}_{group}")
    return int(pick) if pick is not None else None
