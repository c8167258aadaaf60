"""San Juan's board. ``JS`` draws it in the Replay component (``replay_component/board_san_juan.js``,
under the registry's name ``GAME``); ``board_html`` is the static HTML of a step that the Games page's
comparison shows. Both take colours, costs and VP from the game's catalogue (``replay.san_juan.view``)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from dashboards.board_parts import as_int as _int
from dashboards.board_parts import as_list as _as_list
from dashboards.board_parts import panel_open
from dashboards.plain import name_html
from replay.san_juan.cards import CARDS, CITY_SIZE_TO_END, TILES, Role
from replay.san_juan.view import card_class

#: The registry's name of the game this board draws.
GAME = "san_juan"
#: The board's drawing in the Replay component (defines ``draw(game, step)``).
JS = (Path(__file__).resolve().parent / "replay_component" / "board_san_juan.js").read_text(encoding="utf-8")
ROLES = tuple(r.value for r in Role)


def goods_on_buildings(buildings: Sequence[str], goods: Sequence[str]) -> list[str | None]:
    """Which building holds each stored good. The state stores the goods in the order of the buildings
    that hold them, so matching them in order against each building's good places every one."""
    placed: list[str | None] = []
    pending = list(goods)
    for name in buildings:
        card = CARDS.get(name)
        good = card.good.value if card is not None and card.good is not None else None
        if pending and good is not None and good == pending[0]:
            placed.append(pending.pop(0))
        else:
            placed.append(None)
    return placed


def building_card(name: str, good: str | None = None) -> str:
    """One building as a card with its cost (top left), VP (top right) and the good lying on it."""
    card = CARDS.get(name)
    cost = card.cost if card else "?"
    vp = card.vp if card else "?"
    # The 6-cost buildings print no VP: they score a bonus at the end.
    vp_text = "bonus" if card is not None and card.cost == 6 else f"{vp} VP"
    title = f"{name}: cost {cost}, {vp} VP" + (f", holds {good}" if good else "")
    good_html = f'<span class="good good-{escape(good)}" title="{escape(good)}"></span>' if good else ""
    return (
        f'<div class="gv-card {card_class(card)}" title="{escape(title)}">'
        f'<span class="cost">{cost}</span><span class="vp">{vp_text}</span>{escape(name)}{good_html}</div>'
    )


def mini_card(name: str) -> str:
    """A card in a hand: its name on its colour, cost and VP in the tooltip."""
    card = CARDS.get(name)
    tip = f"{name}: cost {card.cost}, {card.vp} VP" if card else name
    return f'<span class="gv-mini {card_class(card)}" title="{escape(tip)}">{escape(name)}</span>'


def status_bar(state: dict[str, Any], names: Sequence[str]) -> str:
    """Round, governor, the role being played, roles taken, piles and the trading-house tile."""
    governor = _int(state.get("governor"))
    role = state.get("role")
    stage = state.get("stage") or ""
    taken = [str(r) for r in _as_list(state.get("roles_taken"))]
    chips = []
    for name in ROLES:
        if role == name and name in taken:
            chips.append(f'<span class="gv-chip now">{name}</span>')
        elif name in taken:
            chips.append(f'<span class="gv-chip done">{name}</span>')
        else:
            chips.append(f'<span class="gv-chip">{name}</span>')
    tile = _int(state.get("tile"))
    next_tile = _int(state.get("next_tile"))
    if tile:
        prices = ", ".join(f"{g.value} {p}" for g, p in TILES[tile].items()) if tile in TILES else ""
        tile_html = f"<b>Trading house</b> tile {tile} <span title='cards paid per good'>({escape(prices)})</span>"
    else:
        tile_html = f"<b>Trading house</b> next tile {next_tile if next_tile else '?'} (face down)"
    who = names[governor] if governor is not None and governor < len(names) else "?"
    acting = _int(state.get("to_act"))
    waiting = f" &middot; <b>to act</b> {name_html(names[acting])}" if acting is not None and acting < len(names) else ""
    stage_text = {
        "over": "game over", "role": "choosing a role", "phase": f"{role} phase", "chapel": "chapel (start of turn)",
        "hand_limit": "discarding to the hand limit", "draft": "drafting the starting hand",
    }.get(stage, stage.replace("_", " "))
    return (
        '<div class="gv-bar">'
        f"<span><b>Round</b> {_int(state.get('round'))}</span>"
        f"<span><b>Governor</b> {name_html(who)}</span>"
        f"<span><b>Now</b> {escape(stage_text)}{waiting}</span>"
        f"<span><b>Roles</b> {''.join(chips)}</span>"
        f"<span><b>Draw pile</b> {_int(state.get('draw_pile'))}</span>"
        f"<span><b>Discard pile</b> {_int(state.get('discard_pile'))}</span>"
        f"<span>{tile_html}</span>"
        "</div>"
    )


def player_panel(row: dict[str, Any], name: str, *, governor: bool, acting: bool, winner: bool) -> str:
    """One seat: name and badges, VP so far with its parts, hand, goods, chapel and buildings."""
    buildings = [str(b) for b in _as_list(row.get("buildings"))]
    goods = [str(g) for g in _as_list(row.get("goods"))]
    hand = [str(c) for c in _as_list(row.get("hand"))]
    covered = [str(c) for c in _as_list(row.get("covered"))]
    placed = goods_on_buildings(buildings, goods)
    parts = (
        f"buildings {_int(row.get('vp_buildings'))} + chapel {_int(row.get('vp_chapel'))}"
        f" + bonus {_int(row.get('vp_bonus'))}"
    )
    cards = "".join(building_card(b, g) for b, g in zip(buildings, placed))
    hand_html = "".join(mini_card(c) for c in hand) or '<span class="gv-meta">(empty)</span>'
    covered_html = (
        f'<div class="gv-meta">Under cranes: {escape(", ".join(covered))}</div>' if covered else ""
    )
    return (
        panel_open(name, _int(row.get("vp")), parts, governor=governor, acting=acting, winner=winner)
        + f'<div class="gv-meta">Hand {_int(row.get("hand_size"))} &middot; Goods {len(goods)}'
        f'{" (" + escape(", ".join(goods)) + ")" if goods else ""} &middot; Chapel {_int(row.get("chapel_cards"))}'
        f" &middot; {len(buildings)}/{CITY_SIZE_TO_END} buildings &middot; {escape(parts)}</div>"
        f'<div class="gv-cards">{cards}</div>{covered_html}'
        f'<div class="gv-section">Hand ({len(hand)})</div><div class="gv-hand">{hand_html}</div>'
        "</div>"
    )


def board_html(
    state: dict[str, Any],
    player_rows: Sequence[dict[str, Any]],
    names: Sequence[str],
    winners: Sequence[int] = (),
) -> str:
    """The whole table after one step: status bar, then one panel per seat."""
    governor = _int(state.get("governor"))
    acting = _int(state.get("to_act"))
    over = state.get("stage") == "over"
    panels = []
    for row in player_rows:
        seat = int(row["seat"])
        name = names[seat] if seat < len(names) else f"Seat {seat}"
        panels.append(
            player_panel(row, name, governor=seat == governor, acting=seat == acting, winner=over and seat in winners)
        )
    return status_bar(state, names) + f'<div class="gv-players">{"".join(panels)}</div>'
