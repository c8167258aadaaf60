"""Right-to-left names in a real browser: an Arabic and a Hebrew name between other names and figures
keep every name and figure where it stands. Unisolated, the two names next to each other swapped
places ("Ana – <Arabic> – <Hebrew>" showed the Hebrew name before the Arabic one) and a figure after a
Hebrew name jumped to its left; each name is now isolated (``<bdi>``, U+2068 ... U+2069). The order is
read from the boxes the browser lays the text out in. Run with ``pytest -m browser``."""

from __future__ import annotations

import json
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
ARABIC = "\u0645\u062d\u0645\u062f"  # Muhammad
HEBREW = "\u05e9\u05e8\u05d4"  # Sarah
NAMES = ["Ana", ARABIC, HEBREW, "Bruno"]

#: The left edge of each piece of text as laid out on screen, searched within the elements that
#: ``selector`` matches: each piece is found in the element's text (across its text nodes) and
#: measured with a Range, so the boxes are those of the glyphs, wherever bidi put them.
LEFT_EDGES = """([selector, pieces]) => {
  for (const root of document.querySelectorAll(selector)) {
    const nodes = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let text = "";
    while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
    const plain = text.replace(/[\\u2068\\u2069]/g, "");
    if (!pieces.every((p) => plain.includes(p))) continue;
    const at = (index) => {  // a position in ``text`` as (node, offset)
      for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i][1] <= index) return [nodes[i][0], index - nodes[i][1]];
    };
    const out = [];
    let from = 0;
    for (const piece of pieces) {
      const start = text.indexOf(piece, from);
      const range = document.createRange();
      const [a, ai] = at(start), [b, bi] = at(start + piece.length - 1);
      range.setStart(a, ai); range.setEnd(b, bi + 1);
      out.push(range.getBoundingClientRect().left);
      from = start + piece.length;
    }
    return out;
  }
  return null;
}"""


@pytest.fixture(scope="module")
def rtl_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The San Juan sample with one 4-player game played by ``NAMES``: the database, that game's id and
    another 4-player game's."""
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("rtl")
    logs = folder / "logs"
    logs.mkdir()
    samples = sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))
    for sample in samples:
        log = json.loads(sample.read_text())
        if sample == sorted(s for s in samples if "-4p-" in s.name)[0]:
            log["players"] = [{"name": n} for n in NAMES]
        (logs / sample.name).write_text(json.dumps(log))
    db = folder / "rtl.duckdb"
    assert import_paths([logs], db, workers=1).imported == len(samples)
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        (rtl,) = con.execute("SELECT game_id FROM games WHERE list_contains(players, ?)", [HEBREW]).fetchone()
        (other,) = con.execute("SELECT min(game_id) FROM games WHERE player_count = 4 AND game_id <> ?", [rtl]).fetchone()
    return db, rtl, other


def test_right_to_left_names_keep_the_text_around_them_in_order(chromium: Any, rtl_db: tuple[Path, str, str]) -> None:
    db, rtl, other = rtl_db
    with running_dashboard(db) as url:
        for width in (390, 1000, 1400):
            page = chromium.new_page(viewport={"width": width, "height": 1000})
            # The Games page's comparison: a game's names on one line, "Ana – <Arabic> – <Hebrew> – Bruno".
            page.goto(f"{url}/?compare=1&ids={rtl},{other}")
            wait_for_app(page)
            page.get_by_text("Replay game A").wait_for(timeout=30_000)
            edges = page.evaluate(LEFT_EDGES, ["[data-testid='stHtml'] .gv-text", NAMES])
            assert edges is not None, "the names' line is not on the page"
            assert edges == sorted(edges), f"names out of order at {width} px: {dict(zip(NAMES, edges))}"

            # The Statistics page's line of one player's figures: the figures stay after the name.
            page.goto(f"{url}/statistics?player={quote(HEBREW)}")
            wait_for_app(page)
            page.locator("[data-testid='stText']").filter(has_text=HEBREW).first.wait_for(timeout=30_000)
            line = page.locator("[data-testid='stText']").filter(has_text=HEBREW).first.inner_text()
            figure = line.split(": ", 1)[1].split(" ", 1)[0]  # "25.0%"
            edges = page.evaluate(LEFT_EDGES, ["[data-testid='stText']", [HEBREW, figure]])
            assert edges is not None and edges[0] < edges[1], f"the figure {figure} went left of the name at {width} px"
            page.close()
