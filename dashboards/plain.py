"""Untrusted text (names and file names from logs, DuckDB messages quoting stored values) inside
Streamlit's Markdown elements, shown exactly as it is.

Backslash escapes are not enough in Streamlit's Markdown: emoji short codes (``:smile:``) are
replaced after parsing, whatever the escapes. A code span is the one Markdown construct whose content
is never parsed, so untrusted text goes inside one. Where no Markdown element is needed, pages use
``st.text`` or ``st.dataframe``, which never parse their text.
"""

from __future__ import annotations

import re


def code_span(text: str) -> str:
    """``text`` as a Markdown code span: shown verbatim (no Markdown, HTML, math or emoji), on one
    line (line breaks become spaces)."""
    flat = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    # A space on each side lets the text start or end with a backquote (CommonMark strips one).
    return f"{fence} {flat} {fence}"
