"""Puerto Rico's board. ``JS`` draws it in the Replay component
(``replay_component/board_puerto_rico.js``, under the registry's name ``GAME``); ``board_html`` is the
static HTML of a step that the Games page's comparison shows. Both take buildings, goods and the
island's and city's spaces from the game's catalogue (``replay.puerto_rico.view.board_catalogue``)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from dashboards.board_parts import as_int as _int
from dashboards.board_parts import as_list as _as_list
from dashboards.board_parts import panel_open
from dashboards.plain import name_html
from replay.puerto_rico.catalogue import BUILDINGS, CITY_SPACES, ISLAND_SPACES
from replay.puerto_rico.catalogue import GOODS as GOOD_KINDS
from replay.puerto_rico.view import board_catalogue

#: The registry's name of the game this board draws.
GAME = "puerto_rico"
#: The board's drawing in the Replay component (defines ``draw(game, step)``).
JS = (Path(__file__).resolve().parent / "replay_component" / "board_puerto_rico.js").read_text(encoding="utf-8")
GOODS = tuple(g.value for g in GOOD_KINDS)


def _catalogue() -> dict[str, Any]:
    return dict(BUILDINGS)


_CLASSES = {name: str(card["cls"]) for name, card in board_catalogue()["cards"].items()}


def _pairs(values: Any) -> list[tuple[str, str]]:
    """``["corn:3", ...]`` as ``[("corn", "3"), ...]``."""
    out = []
    for item in _as_list(values):
        name, _, count = str(item).rpartition(":")
        out.append((name or str(item), count))
    return out


def _colonists(filled: int, circles: int) -> str:
    return "".join(f'<span class="gv-colonist{" on" if i < filled else ""}"></span>' for i in range(circles))


def city_card(name: str, workers: int, catalogue: dict[str, Any]) -> str:
    """One building: cost, VP, and a circle per colonist space, filled for each colonist on it."""
    building = catalogue.get(name)
    cost = building.cost if building else "?"
    vp = building.vp if building else "?"
    circles = building.circles if building else max(workers, 1)
    cls = _CLASSES.get(name, "violet")
    title = f"{name}: cost {cost}, {vp} VP, {workers}/{circles} colonists"
    return (
        f'<div class="gv-card {cls}" title="{escape(title)}"><span class="cost">{cost}</span>'
        f'<span class="vp">{vp} VP</span>{escape(name)}<span class="circles">{_colonists(workers, circles)}</span></div>'
    )


def island_tile(kind: str) -> str:
    """One island tile; a trailing ``*`` in the stored name means a colonist works it."""
    occupied = kind.endswith("*")
    kind = kind.rstrip("*")
    return (
        f'<div class="gv-tile {escape(kind)}" title="{escape(kind)}{" (worked)" if occupied else ""}">'
        f'{escape(kind)}{_colonists(1 if occupied else 0, 1)}</div>'
    )


def status_bar(state: dict[str, Any], names: Sequence[str]) -> str:
    """Round, governor, role, roles with their doubloons, ships, trading house, colonists, supplies."""
    governor = _int(state.get("governor"))
    acting = _int(state.get("to_act"))
    role = state.get("role")
    taken = {str(r) for r in _as_list(state.get("roles_taken"))}
    chips = []
    for card, coins in _pairs(state.get("role_doubloons")):
        extra = f" +{coins}$" if coins not in ("", "0") else ""
        cls = "now" if card == role else ("done" if card in taken else "")
        chips.append(f'<span class="gv-chip {cls}">{escape(card)}{escape(extra)}</span>')
    ships = "".join(f'<span class="gv-ship">{escape(str(s))}</span>' for s in _as_list(state.get("ships")))
    house = ", ".join(str(g) for g in _as_list(state.get("trading_house"))) or "empty"
    supply = ", ".join(f"{g} {n}" for g, n in _pairs(state.get("goods_supply")))
    face_up = "".join(island_tile(str(k)) for k in _as_list(state.get("face_up_plantations")))
    who = names[governor] if governor is not None and governor < len(names) else "?"
    stage = str(state.get("stage") or "")
    waiting = f" &middot; <b>to act</b> {name_html(names[acting])}" if acting is not None and acting < len(names) else ""
    triggers = ", ".join(str(t) for t in _as_list(state.get("end_triggers")))
    return (
        '<div class="gv-bar">'
        f"<span><b>Round</b> {_int(state.get('round'))}</span>"
        f"<span><b>Governor</b> {name_html(who)}</span>"
        f"<span><b>Now</b> {escape(str(role) + ' phase' if role else stage.replace('_', ' '))}{waiting}</span>"
        f"<span><b>Roles</b> {''.join(chips)}</span>"
        "</div>"
        '<div class="gv-bar">'
        f"<span><b>Ships</b></span><span class='gv-ships'>{ships}</span>"
        f"<span><b>Trading house</b> {escape(house)}</span>"
        f"<span><b>Colonist ship</b> {_int(state.get('colonist_ship'))} &middot; supply {_int(state.get('colonist_supply'))}</span>"
        f"<span><b>VP chips left</b> {_int(state.get('vp_chips_left'))}</span>"
        f"<span><b>Bank</b> {_int(state.get('bank'))} doubloons</span>"
        "</div>"
        '<div class="gv-bar">'
        f"<span><b>Plantations</b></span><span class='gv-island'>{face_up}</span>"
        f"<span>stack {_int(state.get('plantation_stack'))} &middot; discarded {_int(state.get('plantation_discard'))}"
        f" &middot; quarries {_int(state.get('quarries_left'))}</span>"
        f"<span><b>Goods supply</b> {escape(supply)}</span>"
        + (f"<span><b>Game end triggered</b> {escape(triggers)}</span>" if triggers else "")
        + "</div>"
    )


def player_panel(row: dict[str, Any], name: str, *, governor: bool, acting: bool, winner: bool,
                 catalogue: dict[str, Any]) -> str:
    """One seat: VP, doubloons, colonists, goods, island tiles and city buildings with occupancy."""
    city = [str(b) for b in _as_list(row.get("city"))]
    occupancy = [int(x) for x in _as_list(row.get("city_occupancy"))]
    occupancy += [0] * (len(city) - len(occupancy))
    island = [str(k) for k in _as_list(row.get("island"))]
    goods = " &middot; ".join(
        f'<span class="good-{g}" style="display:inline-block;width:10px;height:10px;border:1px solid #555;'
        f'border-radius:2px"></span> {g} {_int(row.get("goods_" + g)) or 0}'
        for g in GOODS
    )
    parts = (
        f"chips {_int(row.get('vp_chips'))} + buildings {_int(row.get('vp_buildings'))}"
        f" + bonus {_int(row.get('vp_bonus'))}"
    )
    tiles = "".join(island_tile(k) for k in island)
    tiles += "".join('<div class="gv-tile empty">-</div>' for _ in range(max(0, ISLAND_SPACES - len(island))))
    cards = "".join(city_card(b, w, catalogue) for b, w in zip(city, occupancy))
    free = max(0, CITY_SPACES - (_int(row.get("city_spaces")) or 0))
    cards += "".join('<div class="gv-card empty">empty</div>' for _ in range(free))
    return (
        panel_open(name, _int(row.get("vp")), parts, governor=governor, acting=acting, winner=winner)
        + f'<div class="gv-meta"><b>{_int(row.get("doubloons"))}</b> doubloons &middot; colonists: '
        f'{_int(row.get("colonists_placed"))} placed, {_int(row.get("colonists_san_juan"))} in San Juan'
        f" &middot; {escape(parts)}</div>"
        f'<div class="gv-meta">Goods: {goods}</div>'
        f'<div class="gv-section">Island</div><div class="gv-island">{tiles}</div>'
        f'<div class="gv-section">City</div><div class="gv-cards gv-city">{cards}</div>'
        "</div>"
    )


def board_html(
    state: dict[str, Any],
    player_rows: Sequence[dict[str, Any]],
    names: Sequence[str],
    winners: Sequence[int] = (),
) -> str:
    """The whole Puerto Rico table after one step."""
    catalogue = _catalogue()
    governor = _int(state.get("governor"))
    acting = _int(state.get("to_act"))
    over = state.get("stage") == "over"
    panels = []
    for row in player_rows:
        seat = int(row["seat"])
        name = names[seat] if seat < len(names) else f"Seat {seat}"
        panels.append(player_panel(row, name, governor=seat == governor, acting=seat == acting,
                                   winner=over and seat in winners, catalogue=catalogue))
    return status_bar(state, names) + f'<div class="gv-players">{"".join(panels)}</div>'
