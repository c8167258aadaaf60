"""What a seat view sends to the browser, read off the wire: headless Chromium records every websocket
message the Replay page receives (the DevTools protocol's ``Network.webSocketFrameReceived``) and the
page's DOM with every attribute (``title`` included, shadow roots too). In ``view=seat1`` and
``view=public`` no hidden card of another seat (a card in seat 3's hand that nothing public ever
names, a card paid for a building) and no list of another seat's decisions reaches the browser; in
``public`` no Puerto Rico VP chip count before the end. The same captures in ``view=all`` hold them
(the test sees what it looks for). Then a long game (12,000 moves) opens with a bounded message and
steps past its window with a round trip."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards.replay_data import WINDOW
from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
SAN_JUAN = ROOT / "sample_logs" / "san_juan" / "san_juan-4p-seed2026-0002.json"
PUERTO_RICO = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"
LONG_MOVES = 12_000
#: A message of the Replay page may not grow with the game: a window of steps, not the game.
MESSAGE_LIMIT = 2_500_000


def long_san_juan_log(stall_moves: int, seed: int = 7) -> dict[str, Any]:
    """A legal 2-player San Juan game in which nobody builds for the first ``stall_moves`` moves (the
    builder role is never taken, a build is a pass), then the heuristic bots finish it."""
    from replay.registry import engine_for
    from replay.san_juan.bots import HeuristicPlayer
    from replay.san_juan.cards import Role
    from replay.san_juan.moves import Build, ChooseRole, Pass

    engine = engine_for("san_juan")
    log = engine.new_random_game(["Ana", "Bruno"], seed, {})
    play = engine.working(engine.simulation_state(log, seed))
    bots = [HeuristicPlayer(seed), HeuristicPlayer(seed + 1)]
    moves: list[dict[str, Any]] = []
    while not play.is_over():
        seat = play.current_seat()
        move = bots[seat].choose_working(play)
        if len(moves) < stall_moves:
            if isinstance(move, Build):
                move = Pass()
            elif isinstance(move, ChooseRole) and move.role is Role.BUILDER:
                move = next(m for m in engine.legal_moves(play.snapshot())
                            if isinstance(m, ChooseRole) and m.role is not Role.BUILDER)
        default = play.default_move()
        play.apply(move)
        if default is None or move != default:
            moves.append({"seat": seat, **move.to_json()})
    obj = engine.finish_log(log, play.snapshot(), moves)
    obj["source_id"] = "long-game"
    return obj


@pytest.fixture(scope="module")
def secrets_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("secret_logs")
    for source in (SAN_JUAN, PUERTO_RICO):
        (folder / source.name).write_text(source.read_text())
    (folder / "long.json").write_text(json.dumps(long_san_juan_log(LONG_MOVES)))
    db = tmp_path_factory.mktemp("secrets_db") / "secrets.duckdb"
    assert import_paths([folder], db, workers=1).imported == 3
    return db


@pytest.fixture(scope="module")
def site(secrets_db: Path, chromium: Any) -> Iterator[tuple[str, Any]]:
    with running_dashboard(secrets_db) as url:
        yield url, chromium


class Wire:
    """A page with every websocket message it receives, as text (binary messages decoded as UTF-8), and
    the page itself as the server sent it (``document``: Streamlit's page with the board drawn first,
    ``dashboards.first_paint``)."""

    def __init__(self, site: tuple[str, Any], query: str) -> None:
        url, browser = site
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.frames: list[str] = []
        self.sizes: list[int] = []
        cdp = self.page.context.new_cdp_session(self.page)
        cdp.on("Network.webSocketFrameReceived", self._received)
        cdp.send("Network.enable")
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        response = self.page.goto(f"{url}/replay?{query}")
        assert response is not None and response.status == 200
        self.document = response.text()
        wait_for_app(self.page)
        self.page.wait_for_selector(".gv-root[data-step]")
        self.page.wait_for_timeout(500)  # the panels under the board are sent after it

    def _received(self, event: dict[str, Any]) -> None:
        response = event["response"]
        data = response["payloadData"]
        raw = base64.b64decode(data) if response.get("opcode") == 2 else data.encode()
        self.sizes.append(len(raw))
        self.frames.append(raw.decode("utf-8", errors="replace"))

    def wire(self) -> str:
        """The page as sent and every websocket message."""
        return "\n".join([self.document, *self.frames])

    def dom(self) -> str:
        """The page's HTML with every shadow root's, attributes included."""
        return str(self.page.evaluate("""() => {
            const out = [];
            const walk = (root) => {
                out.push(root.innerHTML || "");
                root.querySelectorAll("*").forEach((el) => { if (el.shadowRoot) { walk(el.shadowRoot); } });
            };
            walk(document.documentElement);
            return out.join("\\n");
        }"""))

    def close(self) -> None:
        self.page.close()


def named(text: str, card: str) -> bool:
    """Whether ``text`` names ``card`` other than as a key of the card catalogue (``"Well": {...``),
    which lists every card of the game in every view."""
    return re.search(re.escape(card) + r'(?!\\?"\s*:)', text) is not None


def _secrets(db: Path, sql, game_id: str, viewer_seat: int) -> tuple[int, list[str], list[str]]:
    """A step where seat 3 is to act in a builder phase with cards nobody may see in ``seat<viewer_seat>``
    or ``public`` views: cards in seat 3's hand then and cards paid by other seats, none of which the
    game ever shows (built, covered, turned up, named in a public move or event, or in the viewer's
    own hand at any step)."""
    public_text = " ".join(
        f"{w} {' '.join(e or [])}" for w, e in sql(db, "SELECT words, events FROM moves WHERE game_id = ? AND kind NOT IN "
                                                   "('build', 'chapel', 'councillor', 'hand_limit', 'draft')", [game_id]))
    shown = set()
    for buildings, covered, hand, seat in sql(db, "SELECT buildings, covered, hand, seat FROM san_juan_player_states "
                                                  "WHERE game_id = ?", [game_id]):
        shown.update(buildings)
        shown.update(covered)
        if seat == viewer_seat:
            shown.update(hand)
    paid = {card for seat, details in sql(db, "SELECT seat, details FROM moves WHERE game_id = ? AND kind = 'build'", [game_id])
            if seat != viewer_seat for card in json.loads(details).get("pay", [])}
    for step, hand in sql(db, "SELECT p.step, p.hand FROM san_juan_player_states p JOIN san_juan_states s USING (game_id, step) "
                              "WHERE game_id = ? AND p.seat = 3 AND s.to_act = 3 AND s.role = 'builder' ORDER BY step",
                          [game_id]):
        hidden = [c for c in hand if c not in shown and c not in public_text]
        if hidden:
            return step, hidden, sorted(c for c in paid if c not in shown and c not in public_text)
    raise AssertionError("no step with a hidden card in seat 3's hand")


@pytest.mark.parametrize("view", ["seat1", "public"])
def test_no_hidden_card_reaches_the_browser(site, secrets_db: Path, sql, view: str) -> None:
    (game_id,) = sql(secrets_db, "SELECT game_id FROM games WHERE game = 'san_juan' AND player_count = 4")[0]
    names = sql(secrets_db, "SELECT players FROM games WHERE game_id = ?", [game_id])[0][0]
    step, hand, paid = _secrets(secrets_db, sql, game_id, 1 if view == "seat1" else -1)
    assert hand and paid, (hand, paid)
    wire = Wire(site, f"game={game_id}&step={step}&view={view}")
    try:
        assert wire.page.locator(".gv-root").get_attribute("data-view") == view
        # The page came with its board drawn first, in this view, and Streamlit's viewer took over.
        assert 'id="gv-first-data"' in wire.document and f'"view":"{view}"' in wire.document
        assert wire.page.locator(".gv-root").count() == 1
        text, dom = wire.wire(), wire.dom()
        for card in hand + paid:
            assert not named(wire.document, card), f"{card} is in the page the server sent in view {view}"
            assert not named(text, card), f"{card} went over the websocket in view {view}"
            assert not named(dom, card), f"{card} is in the page in view {view}"
        # No hidden seat's cards: its hand is face down on the board.
        assert wire.page.locator(".player[data-seat='3'] .mini").count() == 0
        assert wire.page.locator(".player[data-seat='3'] .back").count() > 0
        # The What-if panel lists no decision of seat 3, and says why.
        main = wire.page.locator("[data-testid='stMain']").inner_text()
        assert re.search(r"has [\d,]+ legal moves?\b", main) is None
        if view == "seat1":
            assert f"In {names[1]}'s seat view, What if? offers {names[1]}'s own decisions only: at this position " \
                   f"{names[3]} is to act" in main
        else:
            assert f"In the public view, What if? lists no decision of a hidden hand: {names[3]} is to act here." in main
        assert not wire.errors
    finally:
        wire.close()
    # The same capture in the whole view holds them all, in the messages and in the page.
    wire = Wire(site, f"game={game_id}&step={step}&view=all")
    try:
        text, dom = wire.wire(), wire.dom()
        assert all(named(text, card) for card in hand + paid)
        assert all(named(wire.document, card) for card in hand)
        assert all(named(dom, card) for card in hand)
        assert re.search(r"has [\d,]+ legal moves?\b", wire.page.locator("[data-testid='stMain']").inner_text())
    finally:
        wire.close()


def _chip_runs(text: str) -> list[list[list[Any]]]:
    """Every ``vp_chips`` column sent (its runs ``[[step, value], ...]``), read out of the messages."""
    decoder = json.JSONDecoder()
    out = []
    for found in re.finditer(r'\\?"vp_chips\\?":\s*', text):
        at = found.end()
        escaped = text[found.start()] == "\\"
        chunk = text[at:at + 20000].replace('\\"', '"') if escaped else text[at:at + 20000]
        out.append(decoder.raw_decode(chunk)[0])
    return out


def test_puerto_rico_chips_stay_face_down_in_the_public_view(site, secrets_db: Path, sql) -> None:
    game_id, moves = sql(secrets_db, "SELECT game_id, moves FROM games WHERE game = 'puerto_rico'")[0]
    chips = sql(secrets_db, "SELECT step, seat, vp, vp_chips FROM puerto_rico_player_states WHERE game_id = ? "
                "AND step = ? ORDER BY seat", [game_id, moves - 30])
    assert any(c for *_, c in chips)
    wire = Wire(site, f"game={game_id}&step={moves - 30}&view=public")
    try:
        runs = _chip_runs(wire.wire())
        assert len(runs) == 3  # one column per seat, in the page sent only: the web socket names it
        # Nothing but None before the end; the chips turned up at the end.
        for run in runs:
            assert all(value is None for step, value in run if step < moves), run
        shown = [int(t.split()[0]) for t in wire.page.locator(".player .pvp").all_inner_texts()]
        assert shown == [vp - c for _, _, vp, c in chips]
        assert "chips hidden" in wire.page.locator(".player[data-seat='0']").inner_text()
    finally:
        wire.close()
    wire = Wire(site, f"game={game_id}&step={moves - 30}&view=all")
    try:
        assert any(any(value for step, value in run if step < moves) for run in _chip_runs(wire.wire()))
    finally:
        wire.close()


def test_a_long_game_opens_with_a_window_and_steps_past_it(site, secrets_db: Path, sql) -> None:
    game_id, moves = sql(secrets_db, "SELECT game_id, moves FROM games WHERE source_id = 'long-game'")[0]
    assert moves > LONG_MOVES
    wire = Wire(site, f"game={game_id}&step=100&view=all")
    try:
        page = wire.page
        assert max(wire.sizes) < MESSAGE_LIMIT
        assert page.locator(".moves .mv").count() == WINDOW + 1  # the window's moves and its first position
        assert page.locator(".pos").inner_text() == f"100 / {moves}"
        # Stepping within the window stays in the browser: no message comes.
        before = len(wire.frames)
        page.locator("button[data-go='next']").click()
        page.wait_for_selector(".gv-root[data-step='101']")
        page.wait_for_timeout(300)
        assert len(wire.frames) == before
        # The end is past the window: one round trip brings the window around it.
        page.locator("button[data-go='last']").click()
        page.wait_for_selector(f".gv-root[data-step='{moves}']:not([data-loading])", timeout=30_000)
        assert page.locator(f".moves .mv[data-step='{moves}']").count() == 1
        assert page.locator(f".moves .mv[data-step='{moves - WINDOW}']").count() == 1
        assert page.locator(".moves .mv[data-step='100']").count() == 0
        assert max(wire.sizes) < MESSAGE_LIMIT
        assert "view=all" in page.url and f"step={moves}" in page.url
        # The earlier moves come back from the row before the window.
        page.locator(".moves .more").first.click()
        page.wait_for_selector(f".gv-root[data-step='{moves - WINDOW - 1}']:not([data-loading])", timeout=30_000)
        assert page.locator(f".moves .mv[data-step='{moves - WINDOW - 1}']").count() == 1
        assert not wire.errors
    finally:
        wire.close()


def _inline(html: str) -> dict[str, Any]:
    """The board the page was sent with (``dashboards.first_paint``)."""
    found = re.search(r'<script type="application/json" id="gv-first-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))["game"]


def test_a_puerto_rico_seat_sees_every_shipment_and_no_other_seats_chips(site, secrets_db: Path, sql) -> None:
    """In Bruno's seat view the board hid Ana's and Carla's chips, but the move list said what each of
    their shipments earned ("Ana gets 4 VP", "..., the only possible load: 3 VP"). Now no number of
    another seat's chips reaches the browser, nor a VP total that counts them (board, chart, what
    changed, move list); every shipment is still there, and Bruno's own points are."""
    from replay.puerto_rico.view import chip_points

    game_id, moves, names = sql(secrets_db, "SELECT game_id, moves, players FROM games WHERE game = 'puerto_rico'")[0]
    step = moves - 30
    stored = {(s, seat): row for s, seat, *row in sql(
        secrets_db, "SELECT step, seat, vp, vp_chips, city, city_occupancy FROM puerto_rico_player_states WHERE game_id = ?",
        [game_id])}
    hidden = {(s, seat): chip_points({"vp_chips": chips, "city": city, "city_occupancy": occupied})
              for (s, seat), (_, chips, city, occupied) in stored.items()}
    loads = sql(secrets_db, "SELECT step, seat, words, events FROM moves WHERE game_id = ? AND kind = 'load' ORDER BY step",
                [game_id])
    points = re.compile(r"\d+ VP")
    wire = Wire(site, f"game={game_id}&step={step}&view=seat1")
    try:
        text, dom, sent = wire.wire(), wire.dom(), _inline(wire.document)
        # The chips: another seat's are None until the end; Bruno's own are there.
        runs = _chip_runs(text)
        assert len(runs) == 3
        for seat, run in enumerate(runs):
            before_end = [value for s, value in run if s < moves]
            assert all(v is None for v in before_end) if seat != 1 else any(before_end), (seat, run)
        # No VP total that counts another seat's chips: the board's VP and the chart's line leave them out.
        lo = sent["lo"]
        for seat in (0, 2):
            for s, vp in sent["seats"][seat]["vp"]:
                assert s >= moves or vp == stored[(s, seat)][0] - hidden[(s, seat)], (seat, s, vp)
            for s, vp in sent["chart"][seat]:
                assert s >= moves or vp == stored[(s, seat)][0] - hidden[(s, seat)], (seat, s, vp)
            assert any(hidden[(s, seat)] for s in range(lo, moves))
        # The move list: every shipment, no other seat's points; Bruno's own points stay.
        window = [(s, seat, words, events) for s, seat, words, events in loads if lo < s <= sent["hi"]]
        assert window and any(seat != 1 for _, seat, _, _ in window)
        own = 0
        for s, _seat, words, events in window:
            row = wire.page.locator(f".moves .mv[data-step='{s}']")
            assert row.locator(".w").inner_text() == words  # "Ana loads 3 corn on the 6-ship"
            shown = row.locator(".ev").all_inner_texts()
            assert len(shown) == len(events)
            for before, after in zip(events, shown):
                if before.startswith(f"{names[1]} "):
                    assert after == before
                    own += bool(points.search(before))
                elif ", the only possible load: " in before:  # another seat's forced load: no points
                    assert after == before.split(", the only possible load: ")[0] + ", the only possible load"
                elif points.search(before):  # "Ana gets 4 VP (1 for the captain's privilege)"
                    assert after == f"{before.split(' gets ')[0]} takes VP chips, face down"
                else:
                    assert after == before
        assert own > 0  # the test sees what it looks for
        # Anywhere in the page or a message, a load's points are Bruno's own.
        everything = text + "\n" + dom
        for found in re.finditer(r"(?: gets |the only possible load: )\d+ VP", everything):
            start = max(everything.rfind('"', 0, found.start()), everything.rfind(">", 0, found.start())) + 1
            assert everything[start:found.end()].startswith(f"{names[1]} "), everything[start:found.end()]
        assert not wire.errors
    finally:
        wire.close()
    # The whole view holds the points the seat view leaves out.
    wire = Wire(site, f"game={game_id}&step={step}&view=all")
    try:
        assert re.search(re.escape(f"{names[0]} gets ") + r"\d+ VP", wire.wire())
    finally:
        wire.close()
