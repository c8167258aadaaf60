"""Hostile names in a real browser: games whose players, source ids, meta, file names and database path
hold Markdown, HTML and script are shown on every page as the literal text they are, never as a link,
bold or coloured text, and no script runs. One dashboard server, one headless Chromium.

Run with ``pytest -m browser``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
LINK = "[click me](https://example.com) :red[x]"
HTML = "<b>bold</b><script>alert(1)</script>"
STARS = "**x**"
LONG = ("Longname" * 25)[:200]
# A line break in a name is refused at import (control characters, issue 11); Markdown heading,
# emphasis and code marks are not, and must stay text.
MARKS = "# Head _em_ `code`"
NAMES = [LINK, HTML, STARS, LONG, MARKS]

#: Elements a hostile string would have turned into: links to example.com, bold "bold" or "x", text
#: coloured by ``:red[x]``, a script, or the same in a chart's SVG.
FIND_MARKUP = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('a, b, strong, em, script, span[style], tspan[style]')) {
    const text = (el.textContent || '').trim();
    const href = (el.getAttribute('href') || '') + (el.getAttribute('xlink:href') || '');
    const style = el.getAttribute('style') || '';
    if (el.tagName.toLowerCase() === 'a' && href.includes('example.com')) bad.push('link: ' + text);
    else if (['b', 'strong'].includes(el.tagName.toLowerCase()) && (text === 'bold' || text === 'x')) bad.push('bold: ' + text);
    else if (el.tagName.toLowerCase() === 'script' && text.includes('alert(1)')) bad.push('script');
    else if (/color/.test(style) && text === 'x') bad.push('coloured: ' + text);
    else if (el.tagName.toLowerCase() === 'tspan' && /bold/.test(style) && text === 'bold') bad.push('svg bold');
  }
  return bad;
}"""


def markup_made(page) -> list[str]:
    """Elements made from hostile strings, searched in the page and (through Playwright's locators,
    which enter open shadow roots) inside components such as the Replay viewer."""
    found = list(page.evaluate(FIND_MARKUP))
    found += [f"link: {t}" for t in page.locator('a[href*="example.com"]').all_inner_texts()]
    found += [f"bold: {t}" for t in page.locator("b, strong").filter(has_text=re.compile(r"^\s*(bold|x)\s*$")).all_inner_texts()]
    found += [f"coloured: {t}" for t in page.locator('span[style*="color"]').filter(has_text=re.compile(r"^\s*x\s*$")).all_inner_texts()]
    return found


def shown_text(page) -> str:
    """The page's text, with that of the Replay viewer's component when there is one, without the
    marks that isolate each name (U+2068 ... U+2069: invisible, they keep a right-to-left name from
    reordering the text around it)."""
    text = page.inner_text("body")
    viewer = page.locator(".gv-root")
    text += "\n" + viewer.first.inner_text() if viewer.count() else ""
    return text.replace("\u2068", "").replace("\u2069", "")


def titles(page) -> list[str]:
    return page.locator("[title]").evaluate_all("(els) => els.map(e => e.getAttribute('title'))")


def _sample(game: str, players: int) -> dict:
    return json.loads(sorted((ROOT / "sample_logs" / game).glob(f"*{players}p*.json"))[0].read_text())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A database (at a path with Markdown in its name) of a 5-player Puerto Rico and a 4-player San
    Juan game with hostile names, source ids and meta, imported from files with hostile names."""
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("hostile")
    logs = folder / "logs"
    logs.mkdir()
    pr = _sample("puerto_rico", 5)
    pr.update(players=[{"name": n} for n in NAMES], source_id="[src](https://example.com) **s**",
              meta={"note": "<i>meta</i> :blue[m]"})
    sj = _sample("san_juan", 4)
    sj.update(players=[{"name": n} for n in NAMES[:4]], source_id=":red[x] <b>bold</b>")
    (logs / "[f](https___example.com) **b**.json").write_text(json.dumps(pr))
    (logs / "<b>bold<_b>.json").write_text(json.dumps(sj))
    db = folder / "db [x](https___example.com) **b**.duckdb"
    assert import_paths([logs], db, workers=1).imported == 2
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        ids = dict(con.execute("SELECT game, game_id FROM games").fetchall())
    return {"db": db, "pr": ids["puerto_rico"], "sj": ids["san_juan"]}


def test_hostile_names_are_plain_text_on_every_page(chromium: Any, hostile: dict) -> None:
    pr, sj = hostile["pr"], hostile["sj"]
    visits = {
        "games": "",
        "compare": f"?compare=1&ids={pr},{sj}",
        "replay": f"replay?game={pr}&step=53",
        "replay, the end": f"replay?game={sj}&step=9999",
        "replay, unknown game": f"replay?game={quote(LINK)}",
        "statistics": f"statistics?game=puerto_rico&player={quote(STARS)}",
        "explorer": "explorer",
        "players": f"players?type=puerto_rico&name={quote(HTML)}",
        "sql": "sql",
        "import": "import",
    }
    with running_dashboard(hostile["db"]) as url:
        page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        dialogs: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

        def visit(where: str, path: str) -> str:
            page.goto(f"{url}/{path}")
            wait_for_app(page)
            assert page.locator('[data-testid="stException"]').count() == 0, f"{where}: an exception is shown"
            assert markup_made(page) == [], where
            assert not dialogs and not errors, (where, dialogs, errors)
            body = shown_text(page)
            # The sidebar shows the database's path as it is.
            assert f"Database: {hostile['db']}" in body, where
            return body

        for where, path in visits.items():
            body = visit(where, path)
            if where in ("compare", "replay", "replay, the end"):
                # Short names appear whole, as typed; the long one is cut with an ellipsis and whole
                # on hover; the one with Markdown marks shows them as typed.
                for name in (LINK, HTML, STARS):
                    assert name in body, (where, name)
                if where != "replay, the end":  # the San Juan game has the first four names
                    assert MARKS in body, where
                assert LONG in titles(page), where
            if where == "compare":
                # The VP chart's legend (Plotly's own markup) shows the names as typed.
                # Plotly draws after the page's script has run: wait for its legend.
                page.locator(".legendtext").first.wait_for(timeout=30_000)
                legend = page.locator(".legendtext").all_text_contents()
                legend = [t.replace("\u2068", "").replace("\u2069", "") for t in legend]
                assert "A: **x**" in legend and any(t.startswith("A: <b>bold</b><script>") for t in legend), legend
                # The final boards: the long name is cut in its panel (whole on hover), whose VP stays inside it.
                # The final boards are drawn in frames by the Replay page's board code.
                heads: list[str] = []
                for k in range(2):
                    frame = page.frame_locator("iframe").nth(k)
                    heads += frame.locator(".phead .pname").all_inner_texts()
                    for panel in frame.locator(".player").all():
                        outer, vp = panel.bounding_box(), panel.locator(".pvp").bounding_box()
                        name = panel.locator(".phead .pname").bounding_box()
                        assert vp["x"] + vp["width"] <= outer["x"] + outer["width"] + 1
                        assert name["x"] + name["width"] <= outer["x"] + outer["width"] + 1
                assert LONG in heads  # whole in the text (and on hover), cut on screen by its panel
            if where == "replay, unknown game":
                assert f"No game with id {LINK} in the database" in body
            if where == "statistics":
                assert f"{STARS}: " in body
            if where == "players":
                assert HTML in body

        # SQL: an error quoting the query is text.
        visit("sql", "sql")
        page.locator("textarea").fill(f'SELECT * FROM "{LINK}"')
        page.get_by_role("button", name="Run").click()
        # The query runs in a process of its own (the first one starts the fork server): wait for its answer.
        page.wait_for_selector(".gv-alert-error", timeout=60_000)
        wait_for_app(page)
        assert markup_made(page) == []
        assert LINK in shown_text(page)

        # Import: a refused upload's file name is text.
        visit("import", "import")
        bad_name = "[up](https://example.com) **u**.json"
        page.locator('input[type="file"]').set_input_files(
            files=[{"name": bad_name, "mimeType": "application/json", "buffer": b"not json"}]
        )
        page.get_by_role("button", name="Import", exact=True).click()
        wait_for_app(page)
        page.wait_for_selector(".gv-alert", timeout=60_000)
        assert markup_made(page) == []
        assert bad_name in shown_text(page)
        assert not dialogs and not errors, (dialogs, errors)
