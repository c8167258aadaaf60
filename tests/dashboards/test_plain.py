"""Names isolated from the text around them (``dashboards.plain``): U+2068 ... U+2069 in plain text,
``<bdi>`` in HTML, in SQL as in Python; a bidirectional control inside a name cannot end its isolate."""

from __future__ import annotations

import duckdb

from dashboards.plain import FSI, PDI, bdi, isolate, isolate_column, isolated, name_html, sql_name, sql_names

HEBREW = "\u05e9\u05e8\u05d4"


def test_names_are_isolated_in_text_and_html() -> None:
    assert isolate(HEBREW) == f"{FSI}{HEBREW}{PDI}" == "\u2068\u05e9\u05e8\u05d4\u2069"
    assert isolate(None) == ""
    assert isolated(["Ana", HEBREW]) == f"{FSI}Ana{PDI}, {FSI}{HEBREW}{PDI}"
    assert isolate_column(["Ana", None, 3]) == [f"{FSI}Ana{PDI}", None, 3]
    assert bdi("<b>x</b>") == "<bdi>&lt;b&gt;x&lt;/b&gt;</bdi>"
    assert name_html(HEBREW) == f"<bdi>{HEBREW}</bdi>"
    assert name_html("x" * 50) == f'<bdi class="gv-cut" title="{"x" * 50}">{"x" * 39}\u2026</bdi>'


def test_a_bidirectional_control_inside_cannot_end_the_isolate() -> None:
    # A file name or a URL may hold them (a log's names may not): each is written as an escape.
    assert isolate("a\u2069b\u202e") == f"{FSI}a\\u2069b\\u202e{PDI}"
    assert bdi("\u2066x") == "<bdi>\\u2066x</bdi>"


def test_sql_isolates_as_python_does() -> None:
    con = duckdb.connect()
    row = con.execute(f"SELECT {sql_names('n')}, {sql_name('s')}, {sql_name('NULL::VARCHAR')} "
                      "FROM (SELECT ['Ana', ?] AS n, 'src' AS s)", [HEBREW]).fetchone()
    assert row == (isolated(["Ana", HEBREW]), isolate("src"), None)
