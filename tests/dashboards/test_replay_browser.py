"""The Replay viewer in headless Chromium: stepping in the browser (buttons, keys, move list, chart),
no input lost, seat views, hostile and long names, narrow screens and the dark theme.

One dashboard and one browser serve the whole module. The games' players carry hostile names
(Markdown links, Streamlit colour directives, HTML, a 200-character name)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["[click me](https://example.com) :red[x]", "<b>x</b>", "W" * 200, "Dee <img src=x onerror=alert(1)>",
           "Eve :material/home: $x^2$"]


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4-player San Juan and a 5-player Puerto Rico game whose players have hostile names."""
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("hostile_logs")
    for source in ("san_juan/san_juan-4p-seed2026-0002.json", "puerto_rico/puerto_rico-5p-seed2026-0002.json"):
        log = json.loads((ROOT / "sample_logs" / source).read_text())
        for seat, player in enumerate(log["players"]):
            player["name"] = HOSTILE[seat]
        (folder / Path(source).name).write_text(json.dumps(log))
    db = tmp_path_factory.mktemp("hostile_db") / "hostile.duckdb"
    assert import_paths([folder], db, workers=1).imported == 2
    return db


@pytest.fixture(scope="module")
def games(hostile_db: Path, sql) -> dict[str, dict[str, Any]]:
    out = {}
    for game, moves, names, rounds in sql(hostile_db, "SELECT game_id, moves, players, rounds FROM games ORDER BY game"):
        kind = sql(hostile_db, "SELECT game FROM games WHERE game_id = ?", [game])[0][0]
        out[kind] = {"id": game, "moves": moves, "names": list(names), "rounds": rounds}
    return out


@pytest.fixture(scope="module")
def site(hostile_db: Path, chromium: Any) -> Iterator[tuple[str, Any]]:
    with running_dashboard(hostile_db) as url:
        yield url, chromium


def open_replay(site, query: str, width: int = 1400, height: int = 1000, scheme: str = "light") -> Any:
    url, browser = site
    page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(f"{url}/replay?{query}")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step]")
    return page


def step_of(page) -> int:
    return int(page.locator(".gv-root").get_attribute("data-step"))


def wait_step(page, step: int) -> None:
    page.wait_for_selector(f".gv-root[data-step='{step}']", timeout=5000)


def test_every_input_steps_and_none_is_lost(site, games, sql, hostile_db) -> None:
    game = games["san_juan"]
    page = open_replay(site, f"game={game['id']}&step=0")
    history = page.evaluate("history.length")
    for _ in range(3):
        page.locator("button[data-go='next']").click()
    wait_step(page, 3)
    page.locator("button[data-go='prev']").click()
    wait_step(page, 2)
    # 30 key presses at 20 a second move exactly 30 steps.
    page.locator(".title").click()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
    wait_step(page, 32)
    page.keyboard.press("End")
    wait_step(page, game["moves"])
    page.keyboard.press("Home")
    wait_step(page, 0)
    # PageDown goes to the position before the next round's first move; header and board agree.
    firsts = dict(sql(hostile_db, "SELECT round, min(step) FROM moves WHERE game_id = ? GROUP BY 1", [game["id"]]))
    page.keyboard.press("PageDown")
    wait_step(page, firsts[2] - 1)
    page.keyboard.press("PageDown")
    wait_step(page, firsts[3] - 1)
    assert page.locator(".now").inner_text().startswith(f"Move {firsts[3] - 1} of {game['moves']} \u00b7 round 3 \u00b7")
    assert page.locator(".board .round-now").inner_text() == "3"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")
    wait_step(page, firsts[3] - 1)
    page.keyboard.press("PageUp")
    wait_step(page, firsts[2] - 1)
    # The round box jumps the same way.
    page.locator("select.round").select_option("5")
    wait_step(page, firsts[5] - 1)
    # The slider.
    page.locator("input.slider").fill("40")
    wait_step(page, 40)
    # The URL follows with replaceState: no history entry per step.
    page.wait_for_function("() => location.search.includes('step=40')")
    assert f"game={game['id']}" in page.url and "view=all" in page.url
    assert page.evaluate("history.length") == history
    assert not page.errors
    page.close()


def test_move_list_and_chart_clicks(site, games, sql, hostile_db) -> None:
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=10")
    page.locator(".moves .mv[data-step='25']").click()
    wait_step(page, 25)
    (words,) = sql(hostile_db, "SELECT words FROM moves WHERE game_id = ? AND step = 25", [game["id"]])[0]
    assert page.locator(".moves .mv.current .w").inner_text() == words
    # What the rules did by themselves shows greyed under its move.
    step, events = sql(hostile_db, "SELECT step, events FROM moves WHERE game_id = ? AND len(events) > 0 ORDER BY step LIMIT 1",
                       [game["id"]])[0]
    assert page.locator(f".moves .mv[data-step='{step}'] .ev").all_inner_texts() == list(events)
    # Far moves are scrolled into the list's view when reached.
    page.keyboard.press("End")
    wait_step(page, game["moves"])
    assert page.locator(".gv-root").evaluate("""(root) => {
        const box = root.querySelector('.moves').getBoundingClientRect();
        const row = root.querySelector('.moves .mv.current').getBoundingClientRect();
        return row.top >= box.top && row.top + 16 <= box.bottom;  // a row with the long name is taller than the list
    }""")
    # A click on the chart at three quarters of its width goes to about three quarters of the game.
    hit = page.locator(".chart .hit")
    box = hit.bounding_box()
    hit.click(position={"x": box["width"] * 0.75, "y": box["height"] / 2})
    page.wait_for_timeout(200)
    assert abs(step_of(page) - round(game["moves"] * 0.75)) <= 2
    assert not page.errors
    page.close()


def test_seat_views_hide_what_the_seat_cannot_see(site, games, sql, hostile_db) -> None:
    game = games["san_juan"]
    page = open_replay(site, f"game={game['id']}&step=30&view=public")
    hands = sql(hostile_db, "SELECT seat, hand FROM san_juan_player_states WHERE game_id = ? AND step = 30 ORDER BY seat",
                [game["id"]])
    assert page.locator(".player .mini").count() == 0  # no card of any hand
    assert page.locator(".player[data-seat='1'] .back").count() == min(len(hands[1][1]), 14)
    page.locator("select.view").select_option("seat1")
    page.wait_for_selector(".gv-root[data-view='seat1']")
    shown = page.locator(".player[data-seat='1'] .mini").all_inner_texts()
    assert shown == list(hands[1][1]) and page.locator(".player[data-seat='0'] .mini").count() == 0
    page.wait_for_function("() => location.search.includes('view=seat1')")
    # Hidden cards stay hidden in the move list: a build's payment is a count.
    builds = sql(hostile_db, "SELECT step, seat, words FROM moves WHERE game_id = ? AND kind = 'build' AND seat = 0 LIMIT 1",
                 [game["id"]])
    step, _, words = builds[0]
    assert page.locator(f".moves .mv[data-step='{step}'] .w").inner_text() != words
    page.locator("select.view").select_option("all")
    page.wait_for_selector(".gv-root[data-view='all']")
    assert page.locator(f".moves .mv[data-step='{step}'] .w").inner_text() == words
    page.close()
    # Puerto Rico: VP chips are face down until the end.
    pr = games["puerto_rico"]
    page = open_replay(site, f"game={pr['id']}&step=-60&view=public")
    step = pr["moves"] - 59
    rows = sql(hostile_db, "SELECT seat, vp, vp_chips FROM puerto_rico_player_states WHERE game_id = ? AND step = ? ORDER BY seat",
               [pr["id"], step])
    wait_step(page, step)
    shown = [int(t.split()[0]) for t in page.locator(".player .pvp").all_inner_texts()]
    assert shown == [vp - chips for _, vp, chips in rows] and any(chips for _, _, chips in rows)
    page.close()


def test_names_are_text_and_long_names_are_cut(site, games) -> None:
    for kind in ("san_juan", "puerto_rico"):
        game = games[kind]
        page = open_replay(site, f"game={game['id']}&step=20", width=1000)
        names = page.locator(".player .pname")
        assert names.all_inner_texts() == game["names"]
        assert page.locator(".gv-root a, .gv-root img").count() == 0
        assert page.locator(".gv-root").evaluate("(r) => [...r.querySelectorAll('b')].filter((b) => b.textContent === 'x').length") == 0
        assert page.locator("[data-testid='stMain'] a[href='https://example.com']").count() == 0
        long_name = page.locator(".player[data-seat='2'] .pname")
        assert long_name.get_attribute("title") == "W" * 200
        assert long_name.evaluate("e => e.scrollWidth > e.clientWidth")  # cut, with an ellipsis
        # The VP stays inside its panel.
        panel = page.locator(".player[data-seat='2']").bounding_box()
        vp = page.locator(".player[data-seat='2'] .pvp").bounding_box()
        assert vp["x"] + vp["width"] <= panel["x"] + panel["width"] and vp["width"] > 20
        assert not page.errors
        page.close()


@pytest.mark.parametrize("width", [390, 800])
def test_narrow_screens(site, games, width: int) -> None:
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=50", width=width, height=900)
    overflow = page.locator(".gv-root").evaluate("(root) => root.scrollWidth - root.clientWidth")
    assert overflow <= 0
    for go in ("first", "prev", "next", "last"):
        assert page.locator(f"button[data-go='{go}']").is_visible()
    page.locator("button[data-go='next']").click()
    wait_step(page, 51)
    # The controls fit in at most two rows.
    bar = page.locator(".controls").bounding_box()
    assert bar["height"] < 100
    page.close()


def test_dark_theme_follows_the_browser(site, games) -> None:
    game = games["san_juan"]
    page = open_replay(site, f"game={game['id']}&step=12", scheme="dark")
    assert "dark" in page.locator(".gv-root").get_attribute("class")
    contrast = page.locator(".gv-root").evaluate("""(root) => {
        const lum = (c) => { const v = c.match(/[\\d.]+/g).slice(0, 3).map((x) => { x = x / 255;
            return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
            return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
        const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
        const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
        const out = {};
        for (const sel of ['.title', '.player .pname', '.bar', '.moves .mv.future', '.player .meta']) {
            const el = root.querySelector(sel);
            const own = getComputedStyle(el).backgroundColor;
            const back = own && !own.endsWith(', 0)') && own !== 'transparent' ? own : bg;
            out[sel] = ratio(getComputedStyle(el).color, back);
        }
        const cur = root.querySelector('.moves .mv.current');
        out.current = ratio(getComputedStyle(cur).color, getComputedStyle(cur).backgroundColor);
        return out;
    }""")
    assert all(value >= 4.5 for value in contrast.values()), contrast
    page.close()


def test_leaving_and_coming_back_keeps_game_and_step(site, games) -> None:
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=10&view=public")
    page.locator(".title").click()
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    wait_step(page, 17)
    page.wait_for_function("() => location.search.includes('step=17')")
    page.get_by_role("link", name="Games").click()
    wait_for_app(page)
    page.get_by_role("link", name="Replay").click()
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step='17'][data-view='public']")
    assert f"game={game['id']}" in page.url
    page.wait_for_function("() => location.search.includes('step=17')")
    page.close()


def test_try_a_move_here_branches_the_what_if_panel_at_the_step_shown(site, games) -> None:
    """The What-if panel branches where the board is, not where the page was opened."""
    game = games["san_juan"]
    page = open_replay(site, f"game={game['id']}&step=10")
    field = page.get_by_role("spinbutton", name="Try another move at the position after move")
    # (The panels under the board come in a later run than the board: the field may be drawn after it.)
    expect(field).to_have_value("10", timeout=15_000)
    page.locator(".title").click()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    wait_step(page, 15)
    page.locator("button.branch").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('input')].some((i) => i.getAttribute('aria-label') === "
        "'Try another move at the position after move' && i.value === '15')", timeout=15000)
    wait_for_app(page)
    assert step_of(page) == 15  # the board stays where it was
    assert field.input_value() == "15"
    assert page.errors == []
    page.close()


def _top_in_view(page, selector: str, height: int) -> bool:
    """Whether ``selector`` is shown and starts inside the first screen (no scrolling past the board)."""
    box = page.locator(f".gv-root {selector}").bounding_box()
    return box is not None and box["height"] > 20 and 0 <= box["y"] < height - 40


@pytest.mark.parametrize("width", [390, 520, 860, 1000, 1400])
def test_board_moves_and_chart_are_in_reach_at_every_width(site, games, width: int) -> None:
    """The board, the move list and the VP chart each start in the first screen, or one tap away on a
    tab: the move list used to start 1,800 px down at 1000 px (under the five panels)."""
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=50", width=width, height=900)
    tabs = page.locator(".gv-root .tabs")
    if tabs.is_visible():
        # One column: a tab shows each part at the top of the viewer.
        for name, selector in (("Moves", ".moves"), ("Charts", ".chart"), ("Board", ".board")):
            page.get_by_role("tab", name=name).click()
            assert _top_in_view(page, selector, 900), (width, name)
            assert page.get_by_role("tab", name=name).get_attribute("aria-selected") == "true"
        page.get_by_role("tab", name="Moves").click()
        page.locator(".moves .mv[data-step='40']").click()
        wait_step(page, 40)
    else:
        # Two columns: the move list and the chart beside the board, all in the first screen.
        assert width >= 1400
        for selector in (".board", ".moves", ".chart"):
            assert _top_in_view(page, selector, 900), (width, selector)
    assert page.locator(".gv-root").evaluate("(root) => root.scrollWidth - root.clientWidth") <= 0
    assert not page.errors
    page.close()


def test_the_vp_chart_says_its_values_and_names_its_series(site, games, sql, hostile_db) -> None:
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=80")
    vp = [v for (v,) in sql(hostile_db, "SELECT vp FROM puerto_rico_player_states WHERE game_id = ? AND step = ? ORDER BY seat",
                            [game["id"], 80])]
    readout = page.locator(".chartbox .readout")
    expected = " \u00b7 ".join(f"\u2068{name}\u2069 {v}" for name, v in zip(game["names"], vp))
    assert readout.inner_text() == f"move 80: {expected}"
    # Hovering shows the values under the pointer; leaving shows the step's again.
    box = page.locator(".chart .hit").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    page.wait_for_function("() => true")
    hovered = readout.inner_text()
    assert hovered.startswith("move ") and hovered != f"move 80: {expected}"
    at = int(hovered.split(":")[0].split()[1])
    vp_at = [v for (v,) in sql(hostile_db, "SELECT vp FROM puerto_rico_player_states WHERE game_id = ? AND step = ? "
                                            "ORDER BY seat", [game["id"], at])]
    assert hovered == f"move {at}: " + " \u00b7 ".join(f"\u2068{n}\u2069 {v}" for n, v in zip(game["names"], vp_at))
    page.mouse.move(0, 0)
    page.wait_for_function("(e) => document.querySelector('[data-testid=stApp]') && true")
    assert readout.inner_text() == f"move 80: {expected}"
    # The legend names every seat (isolated from the text around it) and no line leaves anything out.
    assert page.locator(".chartbox .legend bdi.lgname").all_inner_texts() == game["names"]
    assert page.locator(".chartnote").is_hidden()
    page.close()


def test_copy_link_and_download_the_log(site, games, sql, hostile_db) -> None:
    game = games["san_juan"]
    url, browser = site
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    page.goto(f"{url}/replay?game={game['id']}&step=10&view=all")
    wait_for_app(page)
    page.locator(".title").click()
    page.keyboard.press("ArrowRight")
    wait_step(page, 11)
    page.get_by_role("button", name="Copy link").click()
    page.wait_for_selector(".headtools .copied:has-text('Link copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url and f"game={game['id']}" in copied and "step=11" in copied and "view=all" in copied
    # The log as imported, in the view everything.
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the game's log (JSON)").click()
    path = download.value.path()
    (stored,) = sql(hostile_db, "SELECT log FROM games WHERE game_id = ?", [game["id"]])[0]
    assert download.value.suggested_filename == f"{game['id']}.json"
    assert json.loads(Path(path).read_text()) == json.loads(stored)
    # A seat's view offers no download, and says where it is.
    page.locator("select.view").select_option("seat1")
    page.wait_for_selector(".gv-root[data-view='seat1']")
    wait_for_app(page)
    assert page.get_by_role("button", name="Download the game's log (JSON)").count() == 0
    assert "offered in the view everything only" in page.locator("[data-testid='stMain']").inner_text()
    context.close()


def test_names_on_the_board_are_isolated_from_the_text_around_them(site, games) -> None:
    """A right-to-left name keeps its place: each name on the board, in the legend, in what changed and
    in the final scoring is a <bdi> of its own."""
    game = games["puerto_rico"]
    page = open_replay(site, f"game={game['id']}&step=-1")
    assert page.locator(".player bdi.pname").all_inner_texts() == game["names"]
    assert page.locator(".bar bdi.who").count() >= 1
    assert page.locator(".score td.who bdi").all_inner_texts() == game["names"]
    assert page.locator(".chartbox .legend bdi").count() == len(game["names"])
    assert page.locator(".title").inner_text().count("\u2068") == len(game["names"])
    page.close()


#: Something above the Review grows (as the board's panels and charts do, seconds later on a slow
#: machine), the page seen from its top.
GROW_ABOVE = """() => {
    for (const el of [document.scrollingElement, ...document.querySelectorAll("[data-testid='stMain'], section")]) {
        if (el) { el.scrollTop = 0; }
    }
    const d = document.createElement('div'); d.style.height = '2000px';
    document.querySelector("[data-testid='stMainBlockContainer']").prepend(d);
}"""


def test_a_link_to_the_review_keeps_it_in_view_until_the_page_is_used(site, games) -> None:
    """``replay?...#review`` (the Play page's link after a game) shows the Review and brings it back
    into view whenever what lies above it changes size; once the person scrolls, the page stays where
    they put it."""
    page = open_replay(site, f"game={games['san_juan']['id']}#review", height=600)
    heading = page.locator("#review")
    expect(heading).to_be_in_viewport(timeout=30_000)
    page.evaluate(GROW_ABOVE)
    expect(heading).to_be_in_viewport(timeout=5_000)
    page.mouse.move(700, 300)
    page.mouse.wheel(0, -100)
    page.evaluate(GROW_ABOVE)
    page.wait_for_timeout(500)
    expect(heading).not_to_be_in_viewport()
    assert page.errors == []
    page.close()
