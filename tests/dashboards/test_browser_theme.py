"""The sidebar's theme switch in a real browser: light, dark or follow the system, applied to
Streamlit and to the charts at once, remembered across page switches and reloads. Run with
``pytest -m browser``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dashboards.screenshots import CHROMIUM, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

APP_BACKGROUND = "() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
#: The fill of a chart's title text (Plotly takes it from Streamlit's theme).
CHART_TEXT = "() => getComputedStyle(document.querySelector('.js-plotly-plot .gtitle')).fill"

#: The contrast ratio (WCAG) of an element's text on its background, the page's where its own is clear.
CONTRAST = """(el) => {
    const parse = (c) => c.match(/[\\d.]+/g).map(Number);
    const lum = (c) => { const v = parse(c).slice(0, 3).map((x) => { x = x / 255;
        return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
    const page = parse(getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor);
    const own = parse(getComputedStyle(el).backgroundColor);
    const alpha = own.length > 3 ? own[3] : 1;  // a tint: blended over the page's background
    const back = `rgb(${[0, 1, 2].map((i) => own[i] * alpha + page[i] * (1 - alpha)).join(",")})`;
    const [x, y] = [lum(getComputedStyle(el).color), lum(back)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
}"""


def lightness(css: str) -> float:
    """0 (black) to 1 (white): the mean of an ``rgb(...)`` colour's channels."""
    red, green, blue = (int(v) for v in re.findall(r"\d+", css)[:3])
    return (red + green + blue) / 765


def shown(page, path: str = "", chart: bool = True) -> None:
    if path:
        page.goto(path)
    wait_for_app(page)
    if chart:
        page.wait_for_selector(".js-plotly-plot .gtitle", timeout=30_000)


def choose(page, label: str) -> None:
    """Pick a theme in the sidebar; the page reloads with it."""
    with page.expect_navigation(timeout=30_000):
        page.locator('[data-testid="stSidebar"] label').filter(has_text=label).click()
    shown(page)


def chosen(page) -> str:
    return page.locator('[data-testid="stSidebar"] [role="radiogroup"] label:has(input:checked)').inner_text().strip()


def test_the_theme_switch_applies_and_is_remembered(dash_site) -> None:
    url, browser = dash_site
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="light")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    shown(page, f"{url}/statistics?counts=3,4")
    assert chosen(page) == "Follow the system"
    assert lightness(page.evaluate(APP_BACKGROUND)) > 0.9 and lightness(page.evaluate(CHART_TEXT)) < 0.4

    choose(page, "Dark")
    assert chosen(page) == "Dark" and "counts=3%2C4" in page.url  # the filters stay through the reload
    assert lightness(page.evaluate(APP_BACKGROUND)) < 0.15 and lightness(page.evaluate(CHART_TEXT)) > 0.7

    # An alert's text (here: a game id that names no game in progress) is readable on its tint.
    shown(page, f"{url}/play?id=nosuchgame", chart=False)
    page.wait_for_selector(".gv-alert", timeout=30_000)
    assert page.locator(".gv-alert").evaluate(CONTRAST) >= 4.5

    page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Players").first.click()
    shown(page, chart=False)
    assert chosen(page) == "Dark" and lightness(page.evaluate(APP_BACKGROUND)) < 0.15
    page.reload()
    shown(page, chart=False)
    assert chosen(page) == "Dark" and lightness(page.evaluate(APP_BACKGROUND)) < 0.15

    page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Statistics").first.click()
    shown(page)
    assert lightness(page.evaluate(CHART_TEXT)) > 0.7
    choose(page, "Light")
    assert chosen(page) == "Light" and lightness(page.evaluate(APP_BACKGROUND)) > 0.9
    choose(page, "Follow the system")
    assert chosen(page) == "Follow the system" and lightness(page.evaluate(APP_BACKGROUND)) > 0.9
    assert not errors, errors
    context.close()

    # Following the system in a browser that prefers dark: dark, with nothing chosen.
    dark = browser.new_context(viewport={"width": 390, "height": 900}, color_scheme="dark")
    page = dark.new_page()
    shown(page, f"{url}/statistics")
    assert lightness(page.evaluate(APP_BACKGROUND)) < 0.15 and lightness(page.evaluate(CHART_TEXT)) > 0.7
    dark.close()
