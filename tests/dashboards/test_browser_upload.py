"""The Import page's upload box in a real browser: chosen files go to ``PUT /upload`` one at a time,
the page lists each ready (games) or refused with the reason, names as text, and Import imports the
ready ones and empties the box; the box fits at 390, 1000 and 1400 px in light and dark themes.

Run with ``pytest -m browser``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
PR_SAMPLES = ROOT / "sample_logs" / "puerto_rico"
BAD = "\u05e9\u05dc\u05d5\u05dd **x** [l](https://example.com).json"

#: The cells of the page's list of the upload's files, as shown.
ROWS = """() => Array.from(document.querySelectorAll('.gv-files tbody tr'))
  .map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.innerText.trim()))"""
#: The upload box's Browse button and the page's width, to see the box fits.
BOX = """() => {
  const host = Array.from(document.querySelectorAll('*')).find((el) => el.shadowRoot && el.shadowRoot.querySelector('.gvu'));
  const root = host ? host.shadowRoot : document;
  const browse = root.querySelector('.browse').getBoundingClientRect();
  const drop = root.querySelector('.drop').getBoundingClientRect();
  return {browse: [browse.left, browse.right], drop: [drop.left, drop.right], width: document.documentElement.clientWidth};
}"""


def test_files_are_sent_listed_and_imported(chromium: Any, dash_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "upload.duckdb"
    shutil.copy(dash_db, db)
    with running_dashboard(db) as url:
        for scheme, width in (("light", 1000), ("light", 1400), ("dark", 390)):
            context = chromium.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda err, errors=errors: errors.append(str(err)))
            page.goto(f"{url}/import")
            wait_for_app(page)
            # The upload box is a component, drawn once its script has run (later, on a busy machine).
            page.locator(".gvu .browse").wait_for(timeout=30_000)
            box = page.evaluate(BOX)
            assert 0 <= box["drop"][0] and box["drop"][1] <= box["width"], (width, box)
            assert box["drop"][0] <= box["browse"][0] and box["browse"][1] <= box["drop"][1], (width, box)
            if width == 390:  # the narrowest: the files are sent, listed and imported there
                send_and_import(page)
            assert not errors, errors
            context.close()


def send_and_import(page) -> None:
    logs = sorted(PR_SAMPLES.glob("*.json"))[:2]
    files = [{"name": p.name, "mimeType": "application/json", "buffer": p.read_bytes()} for p in logs]
    files += [{"name": BAD, "mimeType": "application/json", "buffer": b"{not json"},
              {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"{}"}]
    page.locator('input[type="file"]').set_input_files(files=files)
    page.wait_for_function("() => document.querySelectorAll('.gv-files tbody tr').length === 4", timeout=60_000)
    wait_for_app(page)
    rows = page.evaluate(ROWS)
    assert [row[:3] for row in rows] == [[logs[0].name, "ready", "1"], [logs[1].name, "ready", "1"],
                                         [BAD, "refused", ""], ["notes.txt", "refused", ""]]
    assert rows[2][4].startswith("not JSON: ") and rows[3][4] == "not a log file (.json, .jsonl, .json.gz or .jsonl.gz)"
    # A name is text: no link, no bold made of it.
    assert page.locator(".gv-files a, .gv-files strong").count() == 0
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    wait_for_app(page)
    metrics = [" ".join(t.split()) for t in page.locator('[data-testid="stMetric"]').all_inner_texts()]
    assert metrics == ["Imported 2", "Duplicates skipped 0", "Rejected games 0", "Files refused 2"]
    assert page.locator(".gv-files").count() == 0  # the box is empty after the import
