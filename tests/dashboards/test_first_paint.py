"""The board a Replay URL is drawn with before Streamlit starts (``dashboards.first_paint``): the view
the URL names, made by the Replay page's own code, inline in Streamlit's page and safe as HTML; and in
Chromium, a new tab that shows the board first, steps at once and hands over to Streamlit's viewer."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from dashboards import data, first_paint
from dashboards.screenshots import CHROMIUM, wait_for_app
from replay.protocol import Viewer


@pytest.fixture()
def on_db(dash_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GOVERNOR_DB", str(dash_db))
    return dash_db


def _inline(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="gv-first-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_the_page_holds_the_board_the_url_names(on_db: Path, sql) -> None:
    game_id, seats = sql(on_db, "SELECT game_id, player_count FROM games WHERE game = 'san_juan' ORDER BY game_id LIMIT 1")[0]
    html = first_paint.page({"game": game_id, "step": "12", "view": "seat1"})
    shell = first_paint.shell()
    # Streamlit's page, with the board at the start of its body, and Streamlit's script loaded after it.
    assert html.startswith(shell.head) and html.endswith(shell.rest)
    assert shell.script is not None and shell.script.startswith("./static/js/index.") and shell.script not in shell.head
    assert html.index('id="gv-first-data"') < html.index(f"script.src = {json.dumps(shell.script)}")
    inline = _inline(html)
    found = data.replay_game(game_id)
    assert inline == json.loads(json.dumps({
        "game": first_paint.board_payload(found, Viewer.parse("seat1", seats), 12), "step": 12, "view": "seat1",
        "request": "first-paint", "branch": False, "await_shown": False,
        "sig": first_paint.signature(found, Viewer.parse("seat1", seats), 12)}))
    assert inline["game"]["view"] == "seat1"
    # Without a view in the URL: the whole game, and the browser may ask for the view it last showed.
    assert _inline(first_paint.page({"game": game_id}))["view"] is None
    assert _inline(first_paint.page({"game": game_id, "step": "-1"}))["step"] == int(found.row["moves"])


@pytest.mark.parametrize("params", [{}, {"game": "no-such-game"}, {"game": " "}, {"game": "GAME", "var": "x"}])
def test_without_a_board_to_draw_the_page_is_streamlits(on_db: Path, sql, params: dict[str, str]) -> None:
    if params.get("game") == "GAME":
        params = {**params, "game": sql(on_db, "SELECT game_id FROM games LIMIT 1")[0][0]}
    shell = first_paint.shell()
    assert first_paint.page(params) == shell.head + shell.tail(False)
    assert "gv-first" not in shell.tail(False) and "if (false)" in shell.tail(False)


def test_an_unreadable_database_serves_streamlits_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "not-a-db.duckdb"
    bad.write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("GOVERNOR_DB", str(bad))
    assert first_paint.page({"game": "x"}) == first_paint.shell().head + first_paint.shell().tail(False)


def test_inline_json_is_text_in_html() -> None:
    hostile = {"names": ["</script><script>alert(1)</script>", "<!--", "a & b", "line\u2028break"]}
    text = first_paint.inline_json(hostile)
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == hostile


def _holder(held: list[Any]) -> Any:
    """A route handler that holds each request back (in ``held``)."""
    def hold(route: Any) -> None:
        held.append(route)
    return hold


def _release(page: Any, held: list[Any]) -> None:
    """Let Streamlit's scripts, held back by a route, load (removing the route lets the held requests go)."""
    assert held, "Streamlit's scripts were not held"
    page.unroute(re.compile(r".*/static/js/.*"))



@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_new_tab_draws_the_board_first_then_streamlits_viewer_goes_on_from_it(dash_site, dash_db: Path, sql) -> None:
    url, browser = dash_site
    game_id = sql(dash_db, "SELECT game_id FROM games WHERE player_count = 4 ORDER BY game_id LIMIT 1")[0][0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    # The first paint alone: Streamlit's scripts are held back, so only the server's board can draw.
    held: list[Any] = []
    page.route(re.compile(r".*/static/js/.*"), _holder(held))
    page.goto(f"{url}/replay?game={game_id}&step=8", wait_until="commit")
    first = page.locator("#gv-first .gv-root")
    first.wait_for(timeout=30_000)
    assert first.get_attribute("data-step") == "8"
    assert page.locator("#gv-first .gv-root .player").count() == int(
        sql(dash_db, "SELECT player_count FROM games WHERE game_id = ?", [game_id])[0][0])
    # It steps at once, in the browser, and the URL follows.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#gv-first .gv-root[data-step='10']")
    page.wait_for_function("() => new URL(location.href).searchParams.get('step') === '10'")
    # Streamlit starts: its viewer shows the step the user went to, and the first board is gone.
    _release(page, held)
    page.wait_for_function("() => !document.getElementById('gv-first')", timeout=60_000)
    wait_for_app(page)
    assert page.locator(".gv-root").count() == 1
    assert page.locator(".gv-root").get_attribute("data-step") == "10"
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(".gv-root[data-step='11']")
    assert page.locator("#gv-first-side").count() == 0
    assert not errors
    page.close()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_the_first_board_follows_the_theme_and_sits_where_streamlits_will(dash_site, dash_db: Path, sql) -> None:
    url, browser = dash_site
    game_id = sql(dash_db, "SELECT game_id FROM games WHERE game = 'san_juan' ORDER BY game_id LIMIT 1")[0][0]
    for width, scheme in ((1400, "dark"), (800, "light"), (390, "dark")):
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        held: list[Any] = []
        page.route(re.compile(r".*/static/js/.*"), _holder(held))
        page.goto(f"{url}/replay?game={game_id}&step=5", wait_until="commit")
        first = page.locator("#gv-first .gv-root")
        first.wait_for(timeout=30_000)
        box = first.bounding_box()
        assert (first.evaluate("(r) => r.classList.contains('dark')")) is (scheme == "dark")
        _release(page, held)
        page.wait_for_function("() => !document.getElementById('gv-first')", timeout=60_000)
        wait_for_app(page)
        after = page.locator(".gv-root").bounding_box()
        assert box is not None and after is not None
        assert (round(box["x"]), round(box["y"]), round(box["width"])) == (round(after["x"]), round(after["y"]), round(after["width"])), width
        context.close()


def test_the_first_board_takes_the_apps_theme_colours() -> None:
    """The colours the app's config.toml sets, over Streamlit's defaults, as the viewer's variables."""
    colours = first_paint.theme_colours()
    assert colours["light"] == {"--st-background-color": "#ffffff", "--st-secondary-background-color": "#f0f2f6",
                                "--st-text-color": "#31333f", "--st-primary-color": "#2f6fb0"}
    assert colours["dark"]["--st-primary-color"] == "#6aa5e8" and colours["dark"]["--st-background-color"] == "#0e1117"


def _wire(page: Any) -> list[str]:
    """Every web socket message ``page`` receives from now on, as text (binary ones decoded as UTF-8)."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(
        frame.decode("utf-8", errors="replace") if isinstance(frame, bytes) else frame)))
    return frames


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_replay_link_asks_for_nothing_that_is_missing_and_gets_the_game_once(dash_site, dash_db: Path, sql) -> None:
    """No request of the page fails (Streamlit's script used to look for the server at
    ``/replay/_stcore/health`` and ``/replay/_stcore/host-config`` first: two 404s), and the game's
    view comes in the page only: the web socket names it by its signature."""
    url, browser = dash_site
    game_id, moves = sql(dash_db, "SELECT game_id, moves FROM games WHERE player_count = 3 ORDER BY game_id LIMIT 1")[0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"failed {request.url}"))
    page.on("response", lambda answer: failed.append(f"{answer.status} {answer.url}") if answer.status >= 400 else None)
    frames = _wire(page)
    answer = page.goto(f"{url}/replay?game={game_id}&step=12")
    assert answer is not None
    document = answer.text()
    wait_for_app(page)
    assert page.locator(".gv-root").get_attribute("data-step") == "12"
    assert failed == []
    # The game's moves (their words, with the round of each) are in the page once and in no message.
    words = sql(dash_db, "SELECT words FROM moves WHERE game_id = ? AND step = ?", [game_id, moves - 1])[0][0]
    assert document.count('"round_first":') == 1 and document.count(json.dumps(words)[1:-1]) >= 1
    wire = "\n".join(frames)
    assert '"round_first":' not in wire and json.dumps(words)[1:-1] not in wire
    assert page.locator(f".moves .mv[data-step='{moves - 1}'] .w").inner_text() == words
    # Stepping and the panels work on the game taken from the first paint.
    page.locator(".title").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(".gv-root[data-step='13']")
    page.close()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_tab_that_does_not_hold_the_game_gets_it_over_the_web_socket(dash_site, dash_db: Path, sql) -> None:
    """The server was told (the cookie) that the tab holds the board, but it does not (the first paint
    could not keep it): the viewer asks, and the game comes over the web socket."""
    from playwright.sync_api import expect

    url, browser = dash_site
    game_id = sql(dash_db, "SELECT game_id FROM games WHERE player_count = 2 ORDER BY game_id LIMIT 1")[0][0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script("Object.defineProperty(window, '__gvHeld', { get() { return undefined; }, set(v) {} });")
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    frames = _wire(page)
    page.goto(f"{url}/replay?game={game_id}&step=7")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step='7']")
    # The live board takes the first paint's place: both are on the page for a moment, then one.
    expect(page.locator(".gv-root")).to_have_count(1, timeout=30_000)
    assert page.locator(".moves .mv").count() > 7
    assert '"round_first":' in "\n".join(frames)
    assert not errors
    page.close()


def test_every_page_address_has_a_route_naming_the_servers_base() -> None:
    """The server's page routes are the app's pages (its ``url_path``s), the Replay page's aside."""
    import ast

    from dashboards import server

    tree = ast.parse((Path(server.__file__).parent / "app.py").read_text(encoding="utf-8"))
    paths = {kw.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "attr", "") == "Page" for kw in node.keywords if kw.arg == "url_path"}
    assert paths - {"replay"} == set(server.PAGE_PATHS)
    assert "BACKEND_BASE_URL" in first_paint.plain_page() and "gv-first" not in first_paint.plain_page()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_link_to_any_page_asks_for_nothing_that_is_missing(dash_site) -> None:
    """Opened at its own address, no page's request fails (Streamlit's script looked for the server at
    ``/import/_stcore/health`` and ``/import/_stcore/host-config`` first: two 404s)."""
    from dashboards.server import PAGE_PATHS

    url, browser = dash_site
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    failed: list[str] = []
    pending: set[Any] = set()
    page.on("request", lambda request: pending.add(request))
    page.on("requestfinished", lambda request: pending.discard(request))
    page.on("requestfailed", lambda request: (pending.discard(request), failed.append(f"failed {request.url}")))
    page.on("response", lambda answer: failed.append(f"{answer.status} {answer.url}") if answer.status >= 400 else None)
    for path in PAGE_PATHS:
        page.goto(f"{url}/{path}")
        wait_for_app(page)
        page.wait_for_selector('[data-testid="stSidebarNav"]', timeout=30_000)
        # Every request of this page answered before the next address is opened: a script the page
        # loads late (a page's own chunk) still on its way would be cut off by the next load, a failed
        # request that asked for nothing missing.
        deadline = time.monotonic() + 30  # a bound against a hang, not a measure of speed
        while pending and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert not pending, [r.url for r in pending]
    assert failed == []
    page.close()
