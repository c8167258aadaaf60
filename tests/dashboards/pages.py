"""Opening a page of the dashboard in the tests' browser."""

from __future__ import annotations

from typing import Any


def open_page(browser: Any, width: int, height: int) -> tuple[Any, list[str]]:
    """A new page of ``browser`` with a viewport of ``width`` x ``height``, and the list its script
    errors are collected into (each test asserts it empty at its end)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    return page, errors


def branch_field(at: Any) -> Any:
    """The What-if panel's branch-point field of an ``AppTest`` page (its key carries a number that
    changes each time the program sets it)."""
    (field,) = [n for n in at.number_input if n.label == "Try another move at the position after move"]
    return field
