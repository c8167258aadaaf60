"""The drill's legal moves: one button per move, inside an element labelled "legal moves", each
button's text the move's text form (what ``governor replay`` prints). One small
``st.components.v2`` component: Streamlit's own buttons cannot carry the group's label. A click says which button of which list (``token``) was pressed; the page ignores a click on
a list it no longer shows (a stale click never answers the next position).

The moves are given as text and put in the page as text (``textContent``), never as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

JS = """
export default function (component) {
  const { parentElement, data } = component;
  let root = parentElement.querySelector(".gvm");
  if (!root) {
    root = document.createElement("div");
    root.className = "gvm";
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "legal moves");
    parentElement.appendChild(root);
  }
  root.__trigger = component.setTriggerValue;
  const moves = (data && Array.isArray(data.moves)) ? data.moves : [];
  const token = data ? String(data.token || "") : "";
  const signature = JSON.stringify([token, moves, Boolean(data && data.disabled)]);
  if (root.dataset.signature === signature) { return undefined; }
  root.dataset.signature = signature;
  root.textContent = "";
  moves.forEach((text, index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = String(text);
    button.disabled = Boolean(data && data.disabled);
    button.addEventListener("click", () => {
      root.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      root.__trigger("pick", { index, token });
    });
    root.appendChild(button);
  });
  return undefined;
}
"""

CSS = """
.gvm { display: flex; flex-wrap: wrap; gap: 6px; font-family: var(--st-font, "Source Sans", sans-serif);
  font-size: 14px; }
.gvm button {
  font: inherit; color: var(--st-text-color, #31333f); background: var(--st-background-color, #ffffff);
  border: 1px solid color-mix(in srgb, var(--st-text-color, #31333f) 25%, transparent); border-radius: 8px;
  padding: 5px 10px; cursor: pointer; text-align: start; max-width: 100%; overflow-wrap: anywhere;
}
.gvm button:hover, .gvm button:focus-visible { border-color: var(--st-primary-color, #ff4b4b);
  color: var(--st-primary-color, #ff4b4b); }
.gvm button:disabled { opacity: 0.55; cursor: default; }
"""

_mount = st.components.v2.component("governor_drill_moves", js=JS, css=CSS, isolate_styles=True)


@dataclass(frozen=True)
class Pick:
    """A button pressed: its index in the list and the list's token."""

    index: int
    token: str


def legal_move_buttons(moves: Sequence[str], token: str, key: str, disabled: bool = False) -> Pick | None:
    """Show ``moves`` (text forms) as buttons; returns the button pressed on this run, None when none
    was (or the browser sent something that is not a pick)."""
    result = _mount(key=key, data={"moves": list(moves), "token": token, "disabled": disabled},
                    on_pick_change=lambda: None)
    picked = getattr(result, "pick", None)
    if not isinstance(picked, dict):
        return None
    index, said = picked.get("index"), picked.get("token")
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(said, str):
        return None
    return Pick(index, said[:200])
