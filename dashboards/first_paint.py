"""A Replay link's board before Streamlit has started: the first paint of ``/replay?game=ID&step=N``.

Streamlit's start of a page (its scripts, finding the server, the web socket, the page script) takes
0.5 to 1.6 s on 2 cores before the page's own code can send anything. So the server answers a
Replay URL (``dashboards.server``) with Streamlit's own ``index.html`` plus the board: the game's
view that the URL names, made here by the same code as the Replay page (``board_payload``), inline
in the page with the viewer's script. The browser draws it while Streamlit starts, and it steps at
once (keys, buttons, move list); when Streamlit's Replay page draws its own viewer, that viewer takes
the position shown (step and view) and the first one is removed. Nothing a view may not see is in
the page: the payload is the same view the page would send over its web socket.

Anything that keeps a first paint from being made (no such game, a variation in the URL, a database
that cannot be read) serves Streamlit's page alone: the Replay page then says what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from dashboards import analysis_panel, data
from dashboards.replay_component import CSS, JS
from dashboards.replay_data import parse_step, parse_view, window_bounds
from dashboards.ui import THEME_COOKIE
from replay.protocol import Viewer

LOG = logging.getLogger("governor.dashboard")

#: The component's script exports its mount function; the first paint calls it by this name.
_EXPORT = "export default function (component)"
#: The inline data's element (the board drawn first is ``window.__gvFirst``, which the Replay
#: component takes over from: ``handOver`` in ``replay.js``).
DATA_ID = "gv-first-data"
#: The cookie that tells the Replay page which board this tab's first paint holds (``signature``): the
#: page then sends the viewer that signature instead of the game again.
HELD_COOKIE = "governor_first"
#: The app's theme colours (``dashboards/.streamlit/config.toml``) over Streamlit's defaults: the
#: variables Streamlit gives its components, which the viewer's style sheet reads.
_STREAMLIT_COLOURS = {
    "light": {"--st-background-color": "#ffffff", "--st-secondary-background-color": "#f0f2f6",
              "--st-text-color": "#31333f", "--st-primary-color": "#ff4b4b"},
    "dark": {"--st-background-color": "#0e1117", "--st-secondary-background-color": "#262730",
             "--st-text-color": "#fafafa", "--st-primary-color": "#ff4b4b"},
}
_CONFIG_NAMES = {"backgroundColor": "--st-background-color", "secondaryBackgroundColor": "--st-secondary-background-color",
                 "textColor": "--st-text-color", "primaryColor": "--st-primary-color"}


def theme_colours() -> dict[str, dict[str, str]]:
    """Each theme's colours as the viewer's variables: Streamlit's defaults, with what the app's
    ``config.toml`` sets in ``[theme.light]`` and ``[theme.dark]``."""
    config = tomllib.loads((Path(__file__).resolve().parent / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    themes = config.get("theme", {})
    return {name: {**colours, **{_CONFIG_NAMES[k]: str(v) for k, v in themes.get(name, {}).items() if k in _CONFIG_NAMES}}
            for name, colours in _STREAMLIT_COLOURS.items()}

_SCRIPT = """<script>
(function () {
%(js)s
  const mount = __gvMount;
  const holder = document.getElementById("gv-first");
  const source = document.getElementById(%(data_id)s);
  if (!holder || !source) { return; }
  const data = JSON.parse(source.textContent);
  // Read once: the data and this script leave the page (the viewer holds what it needs).
  source.remove();
  if (document.currentScript) { document.currentScript.remove(); }
  // The sidebar's theme switch keeps the choice in a cookie (dashboards/ui.py).
  const cookie = (document.cookie.match(new RegExp("(?:^|; )" + %(cookie)s + "=([a-z]+)")) || [])[1];
  const dark = cookie === "dark" || (cookie !== "light" && window.matchMedia
    && window.matchMedia("(prefers-color-scheme: dark)").matches);
  const colours = %(colours)s[dark ? "dark" : "light"];
  for (const [name, value] of Object.entries(colours)) { holder.style.setProperty(name, value); }
  holder.style.setProperty("--st-font", '"Source Sans", sans-serif');
  holder.style.background = colours["--st-background-color"];
  const side = document.createElement("div");
  side.id = "gv-first-side";
  side.style.background = colours["--st-secondary-background-color"];
  holder.parentNode.insertBefore(side, holder);
  holder.style.color = colours["--st-text-color"];
  const shadow = holder.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = %(css)s;
  shadow.appendChild(style);
  const first = { gameId: data.game.game_id, holder, state: null, cleanup: null, closed: false };
  first.close = function () {
    if (first.closed) { return; }
    first.closed = true;
    if (first.cleanup) { first.cleanup(); }
    holder.remove();
    side.remove();
    if (window.__gvFirst === first) { window.__gvFirst = null; }
  };
  first.cleanup = mount({ data, parentElement: shadow, setTriggerValue: function () {} }) || null;
  // The game is sent once: Streamlit's viewer takes it from here (``window.__gvHeld``), and the
  // cookie, read by the server when Streamlit's web socket opens, tells the Replay page it may.
  window.__gvHeld = { sig: data.sig, game: data.game };
  document.cookie = %(held)s + "=" + data.sig + "; path=/; SameSite=Strict";
  first.state = shadow.__governorReplay || null;
  window.__gvFirst = first;
  // When the board reached the screen (the task after the frame that drew it; ms of the page's clock).
  requestAnimationFrame(function () { setTimeout(function () { window.__gvFirstPainted = performance.now(); }, 0); });
  // Streamlit's page that shows no viewer of this game (an error, another page) ends the first paint.
  let idle = 0;
  const timer = setInterval(function () {
    if (first.closed) { clearInterval(timer); return; }
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app ? app.getAttribute("data-test-script-state") : null;
    idle = state === "notRunning" ? idle + 1 : 0;
    if (idle >= 8 || !/\\/replay\\/?$/.test(window.location.pathname)) { clearInterval(timer); first.close(); }
  }, 250);
})();
</script>"""


#: Where Streamlit's Replay page puts its viewer (the main block's padding beside the sidebar, as
#: the page sets it), so that the board does not move when Streamlit's viewer takes over; the
#: sidebar's place is drawn in its colour.
_HOLDER_CSS = (
    "#gv-first{position:fixed;inset:0;z-index:1000100;overflow:auto;box-sizing:border-box;"
    "padding:3.6rem 1rem 1rem 1rem}"
    "#gv-first-side{display:none}"
    "@media (min-width:737px){#gv-first{padding:2.2rem 1rem 1rem calc(300px + 1rem)}"
    "#gv-first-side{display:block;position:fixed;left:0;top:0;bottom:0;width:300px;z-index:1000101}}"
    "@media (min-width:864px){#gv-first{padding:2.2rem 5rem 1rem calc(300px + 5rem)}}"
)


def board_payload(found: data.OpenedGame, viewer: Viewer, step: int | None) -> dict[str, Any]:
    """The game's board as the Replay page sends it for ``viewer`` around ``step``: the prepared
    view's window, with the stored analysis's tags in the move list and its estimates for the move
    list and the chart (what ``viewer`` may see of them). Without state tables: raises ``ValueError``."""
    if found.prepared is None:
        raise ValueError(f"game {found.row['game_id']} has no stored states")
    payload = found.prepared.payload(viewer, around=step or 0)
    tags = analysis_panel.tags_by_step(found.analysis)
    if tags:  # a copy: the payload is kept for other reruns
        payload = {**payload, "moves": {**payload["moves"], "tag": [tags.get(s) for s in payload["moves"]["step"]]}}
    reviewed = analysis_panel.for_viewer(found.analysis, str(found.row["game"]), int(found.row["player_count"]), viewer)
    if reviewed:
        payload = {**payload, "analysis": reviewed}
    return payload


def signature(found: data.OpenedGame, viewer: Viewer, step: int | None) -> str:
    """What names the payload ``board_payload(found, viewer, step)``: the database's state (its file
    and stamp: a new import or a stored analysis changes it), the game, the view and the window of
    steps. The first paint and the Replay page compute it alike, so the page can tell that the browser
    already holds the board it would send. Raises ``ValueError`` for a game without stored states."""
    if found.prepared is None:
        raise ValueError(f"game {found.row['game_id']} has no stored states")
    path = data.db_path()
    lo, hi = window_bounds(found.prepared.total, step or 0)
    text = f"{path}|{data.db_stamp(path)}|{found.row['game_id']}|{viewer.name}|{lo}|{hi}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def inline_json(value: Any) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script>`` element: no ``<``, ``>`` or ``&`` (a
    name such as ``</script><img onerror=...>`` stays text) and no line separators JavaScript refuses."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


@lru_cache(maxsize=1)
def _script() -> str:
    if _EXPORT not in JS:
        raise RuntimeError(f"the Replay component's script no longer starts its mount with {_EXPORT!r}")
    return _SCRIPT % {"js": JS.replace(_EXPORT, "const __gvMount = function (component)"),
                      "css": inline_json(CSS), "data_id": json.dumps(DATA_ID), "colours": inline_json(theme_colours()),
                      "cookie": inline_json(THEME_COOKIE), "held": inline_json(HELD_COOKIE)}


def first_paint(params: Mapping[str, str]) -> str | None:
    """The HTML of the board that ``params`` (a Replay URL's query) names, to be put in Streamlit's
    page; None when there is none to draw first (no game named or no such game, a variation, no
    state tables)."""
    game_id = (params.get("game") or "").strip()
    if not game_id or "var" in params or not data.db_exists():
        return None
    found = data.replay_game(game_id)
    if found is None or found.prepared is None:
        return None
    total = int(found.row["moves"])
    step, _ = parse_step(params.get("step"), total)
    view, _ = parse_view(params.get("view"), int(found.row["player_count"]))
    viewer = Viewer.parse(view, int(found.row["player_count"]))
    payload = board_payload(found, viewer, step)
    component_data = {"game": payload, "step": step, "view": view if params.get("view") is not None else None,
                      "request": "first-paint", "branch": False, "await_shown": False,
                      "sig": signature(found, viewer, step)}
    return (
        f"<style>{_HOLDER_CSS}</style>"
        '<div id="gv-first"></div>'
        f'<script type="application/json" id="{DATA_ID}">{inline_json(component_data)}</script>'
        + _script()
    )


#: Streamlit's script in its page: a module, which the browser runs as soon as the page is parsed.
_STREAMLIT_SCRIPT = re.compile(r'<script type="module" crossorigin src="([^"]+)"></script>')

_LOADER = """<script>
(function () {
  // Streamlit's script, once the board drawn first is on the screen (a module would run before the
  // browser paints it); at once when there is none. A tab opened in the background paints nothing,
  // so a timer starts it there too.
  let started = false;
  const load = function () {
    if (started) { return; }
    started = true;
    const script = document.createElement("script");
    script.type = "module";
    script.crossOrigin = "";
    script.src = %(src)s;
    document.head.appendChild(script);
  };
  if (%(wait)s) { requestAnimationFrame(function () { setTimeout(load, 0); }); setTimeout(load, 250); } else { load(); }
})();
</script>"""


#: Where Streamlit's script finds the server. Left to itself it derives the app's base from the page's
#: path and, for a page's own address (``/replay``, ``/import``), first asks ``/replay/_stcore/health``
#: and ``/replay/_stcore/host-config`` (two 404s in the browser's console) before it tries ``/``. Its
#: ``window.__streamlit`` settings, read when its script starts, name the base instead: the folder the
#: page's path is in (the server serves this page at every page's address: ``dashboards.server``).
_BASE_SCRIPT = """<script>
window.__streamlit = Object.assign({}, window.__streamlit, {
  BACKEND_BASE_URL: window.location.origin + window.location.pathname.replace(/\\/[^\\/]+\\/?$/, "/"),
});
</script>"""


@dataclass(frozen=True)
class Shell:
    """Streamlit's page cut where the board goes: ``head`` up to the opening of the body, without
    Streamlit's script (``script``, its address), which ``tail`` loads after the board."""

    head: str
    script: str | None
    rest: str

    def tail(self, drawn: bool) -> str:
        """What follows the board (or nothing, when not ``drawn``): the loader of Streamlit's script
        and the rest of the page."""
        if self.script is None:
            return self.rest
        return _LOADER % {"src": json.dumps(self.script), "wait": "true" if drawn else "false"} + self.rest


@lru_cache(maxsize=1)
def shell() -> Shell:
    """Streamlit's page (``index.html``, the same for every page path) as a ``Shell``. A page whose
    shape is not the expected one is served whole, Streamlit's script where it was."""
    from streamlit import file_util

    index = (Path(file_util.get_static_dir()) / "index.html").read_text(encoding="utf-8")
    at = index.find("<body")
    end = index.find(">", at) + 1 if at >= 0 else 0
    found = _STREAMLIT_SCRIPT.search(index, 0, at) if end > 0 else None
    if found is None:
        return Shell(index[:end], None, index[end:])
    head = index[:found.start()] + _BASE_SCRIPT + index[found.end():end]
    return Shell(head, found.group(1), index[end:])


def plain_page() -> str:
    """Streamlit's page for another page's address, with the server's base named (no board)."""
    return shell().head + shell().tail(False)


def page(params: Mapping[str, str]) -> str:
    """Streamlit's page for a Replay URL with its board drawn first (the server sends it in two parts,
    ``shell().head`` at once and ``drawn(params)`` when the game is read)."""
    return shell().head + drawn(params)


def drawn(params: Mapping[str, str]) -> str:
    """The page after its head: the board ``params`` names (``first_paint``), then Streamlit's script
    and the rest. Without a board (the reason goes to the server's log, the Replay page says it to
    the user), the rest of Streamlit's page as it is."""
    try:
        fragment = first_paint(params)
    except Exception as err:  # noqa: BLE001 - the page itself reports what is wrong
        LOG.warning("no first paint for %r: %s", dict(params), err)
        fragment = None
    return (fragment or "") + shell().tail(fragment is not None)
