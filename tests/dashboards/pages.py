"""Opening a page of the dashboard in the tests' browser."""

from __future__ import annotations

from typing import Any

#: A script run before a page's own (``page.add_init_script``): every value each labelled field of a
#: widget with a key shows, from the moment it is put in the page, in ``window.fieldValues[label]`` (a
#: field drawn with its minimum and then set shows that minimum first).
FIELD_VALUES = """
window.fieldValues = {};
const note = () => {
  for (const field of document.querySelectorAll('[class*="st-key-"] input[aria-label]')) {
    const seen = window.fieldValues[field.getAttribute('aria-label')] ||= [];
    if (seen[seen.length - 1] !== field.value) seen.push(field.value);
  }
};
new MutationObserver(note).observe(document, {subtree: true, childList: true, attributes: true});
const poll = () => { note(); requestAnimationFrame(poll); };
requestAnimationFrame(poll);
"""


def open_page(browser: Any, width: int, height: int) -> tuple[Any, list[str]]:
    """A new page of ``browser`` with a viewport of ``width`` x ``height``, and the list its script
    errors are collected into (each test asserts it empty at its end)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    return page, errors
