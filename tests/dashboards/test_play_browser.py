"""The Play page in headless Chromium: a game against the bots started from its address, played move by
move with the legal-moves buttons (the bots' moves shown one by one, skipped), reloaded and resumed at
the same position, resumed after the server was killed, taken back, refused when stale in a second
tab, played on the server (as from another tab) and followed, played to its end, stored in the database the dashboard serves (on the Games page at once) and
downloaded. Every websocket message the page receives is recorded (DevTools'
``Network.webSocketFrameReceived``): no card of the bot's hand that the player may not know reaches
the browser."""

from __future__ import annotations

import base64
import json
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from dashboards.screenshots import CHROMIUM, dashboard_process, wait_for_app
from play.session import game_log
from play.shown import moves_seen, seat_view
from play.store import Store, play_folder
from replay.protocol import Viewer
from replay.puerto_rico.view import chip_points
from tests.dashboards.test_replay_secrets_browser import named
from tests.play.driving import advance, rest_of, to_near_end

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT_JS = "document.querySelector('.gv-play') || [...document.querySelectorAll('*')]" \
          ".map((e) => e.shadowRoot && e.shadowRoot.querySelector('.gv-play')).find(Boolean)"


@contextmanager
def dashboard(db: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``governor dashboard`` on ``db``: its URL and its process (the test may kill it: SIGKILL)."""
    with dashboard_process(db) as (url, proc):
        yield url, proc


class Player:
    """One tab on the Play page, with every websocket message it received."""

    def __init__(self, browser: Any, width: int = 1400, scheme: str = "light") -> None:
        self.page = browser.new_page(viewport={"width": width, "height": 1000}, color_scheme=scheme,
                                     accept_downloads=True)
        self.frames: list[str] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        cdp = self.page.context.new_cdp_session(self.page)
        cdp.on("Network.webSocketFrameReceived", self._received)
        cdp.send("Network.enable")

    def _received(self, event: dict[str, Any]) -> None:
        response = event["response"]
        data = response["payloadData"]
        raw = base64.b64decode(data) if response.get("opcode") == 2 else data.encode()
        self.frames.append(raw.decode("utf-8", errors="replace"))

    def open(self, url: str, board: bool = True) -> None:
        self.page.goto(url)
        wait_for_app(self.page)
        if board:
            self.page.wait_for_selector(".gv-play[data-state]")

    def start(self, url: str, query: str) -> str:
        """Open the Play page at ``url`` set up by ``query``, press Start game; the new game's id (the
        address names it)."""
        self.open(f"{url}/play?{query}", board=False)
        self.page.get_by_role("button", name="Start game").click()
        self.page.wait_for_selector(".gv-play[data-state]")
        return self.page.url.split("id=")[1]

    def attr(self, name: str) -> str:
        return str(self.page.locator(".gv-play").get_attribute(name))

    def settle(self) -> str:
        """Skip the bots' moves being shown; the state once the player decides or the game is over."""
        while True:
            state = self.attr("data-state")
            if state == "moving":
                self.page.locator(".gv-play .pl-skip").click()
            elif state in ("deciding", "over"):
                return state
            else:
                self.page.wait_for_timeout(200)

    def moves(self) -> list[str]:
        return self.page.locator("[aria-label='legal moves'] button").all_inner_texts()

    def play(self, text: str | None = None) -> None:
        """Press a legal move's button (the first one by default) and wait for the position after it."""
        version = self.attr("data-version")
        buttons = self.page.locator("[aria-label='legal moves'] button")
        button = buttons.first if text is None else \
            self.page.locator("[aria-label='legal moves']").get_by_role("button", name=text, exact=True).first
        if not button.is_visible():
            self.page.locator(".gv-play .pl-fold").first.locator("summary").click()
        button.click()
        self.page.wait_for_function(f"() => {{ const r = {ROOT_JS}; return r && r.getAttribute('data-version') !== "
                                    f"{json.dumps(version)}; }}", timeout=60_000)

    def main_text(self) -> str:
        return self.page.locator("[data-testid='stMain']").inner_text()


def _hidden_cards(session: Any, seat: int) -> set[str]:
    """Cards the other seat held at some point of the game so far that ``seat`` never saw: never in its
    own hand, never built or under a crane, never named by a move or an event as ``seat`` knew them."""
    seen_text = json.dumps(moves_seen(session, Viewer.of_seat(seat)))
    visible: set[str] = set()
    held: set[str] = set()
    for state in session.states:
        visible.update(state.players[seat].hand)
        for p in state.players:
            visible.update(p.buildings)
            visible.update(getattr(p, "covered", ()))
        for other, p in enumerate(state.players):
            if other != seat:
                held.update(p.hand)
    return {c for c in held - visible if c not in seen_text}


def test_a_game_against_a_bot_is_played_resumed_stored_and_downloaded(chromium: Any, tmp_path: Path) -> None:
    browser = chromium
    db = tmp_path / "games.duckdb"
    with dashboard(db) as (url, server):
        tab = Player(browser)
        game_id = tab.start(url, "game=san_juan&players=2&seat=1&bots=heuristic&seed=7&name=Tester")
        assert tab.page.url == f"{url}/play?id={game_id}"
        games = Store(play_folder(db))
        assert tab.settle() == "deciding"
        # Each button's text is a move's text form, as the server lists the seat's choices.
        session = games.load(game_id)
        assert tab.moves() == [m.text() for m in session.choices()]
        for _ in range(6):
            tab.play()
            assert tab.settle() == "deciding"
        at = games.load(game_id)
        assert tab.attr("data-version") == str(at.version) and tab.attr("data-total") == str(len(at.moves))
        # Take back: the position before the player's last move, the bots' replies undone too.
        before = len(at.moves)
        tab.page.get_by_role("button", name="Take back").click()
        tab.page.wait_for_function(f"() => {{ const r = {ROOT_JS}; return r && r.getAttribute('data-version') "
                                   f"!== '{at.version}'; }}")
        taken = games.load(game_id)
        assert taken.takebacks == 1 and len(taken.moves) < before and taken.human_to_act
        assert tab.settle() == "deciding"
        tab.play()
        tab.settle()
        # A reload resumes at the same position, without showing the bots' moves again.
        at = games.load(game_id)
        tab.page.reload()
        wait_for_app(tab.page)
        tab.page.wait_for_selector(".gv-play[data-state]")
        assert tab.attr("data-state") == "deciding" and tab.attr("data-version") == str(at.version)
        assert tab.attr("data-step") == str(len(at.moves))
        # A second tab on the game: the first moves; the second's click on the old position is
        # refused, saying so, and applied nowhere.
        other = Player(browser)
        other.open(f"{url}/play?id={game_id}")
        tab.play()
        stale = games.load(game_id).version
        other.page.locator("[aria-label='legal moves'] button").first.click()
        other.page.get_by_text("The game moved on (in another tab or window) before this move arrived").wait_for()
        assert games.load(game_id).version == stale
        other.page.close()
        tab.settle()
        frames = list(tab.frames)
        shown = games.load(game_id)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    hidden = _hidden_cards(shown, 1)
    assert hidden, "the bot held no card the player may not know of"
    wire = "\n".join(frames)
    for card in hidden:
        assert not named(wire, card), f"{card}, in the bot's hand, went over the websocket"
    # The server was killed: a new one resumes the game where the page showed it.
    with dashboard(db) as (url, server):
        tab = Player(browser)
        tab.open(f"{url}/play?id={game_id}")
        assert tab.attr("data-version") == str(shown.version) and tab.attr("data-state") == "deciding"
        # Most of the rest is played on the server (as from another tab), up to the last of the bots'
        # moves that ask the player's part; the page, reloaded, follows and plays on from there.
        rest = rest_of(games, shown, tmp_path / "scratch")
        advance(games, shown, max(i for i, at in enumerate(rest) if at.asked is not None))
        tab.page.reload()
        wait_for_app(tab.page)
        tab.page.wait_for_selector(".gv-play[data-state]")
        asked = 0
        while tab.settle() != "over":
            # A bot's move that asks the player's part says so, its mover named once.
            part = seat_view(games.load(game_id), 1)["asked"]
            if part is not None:
                asked += 1
                assert tab.page.locator(".gv-play .pl-status").inner_text() == \
                    f"Your move, \u2068Tester\u2069 \u00b7 {part['words']}: your part of it is asked"
            tab.play()
        assert asked
        wait_for_app(tab.page)
        tab.page.get_by_text("The game is stored in the database").wait_for(timeout=60_000)
        main = tab.main_text()
        assert tab.page.locator(".gv-play .pl-status").inner_text().startswith("Game over · winner ")
        assert "Winner: " in main and "tie-break" in main
        assert tab.page.locator(".gv-play .scoring").is_visible()
        with tab.page.expect_download() as download:
            tab.page.get_by_role("button", name="Download the game's log (JSON)").click()
        log = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert [p["name"] for p in log["players"]] == ["heuristic", "Tester"]
        assert log["meta"]["takebacks"] == 1 and "result" in log
        # On the Games page at once, without a restart (the database held no game before).
        tab.page.goto(f"{url}/")
        wait_for_app(tab.page)
        assert "1 of 1 game." in tab.main_text()
        assert not tab.errors


def test_moves_are_made_on_the_board_assembled_part_by_part_and_an_illegal_one_is_refused(chromium: Any, tmp_path: Path) -> None:
    """A card of the player's hand clicked starts a build (its building), another card is its payment,
    confirmed once; an overpayment says the rule and changes nothing; a role on the board is chosen by
    a click."""
    db = tmp_path / "games.duckdb"
    with dashboard(db) as (url, _):
        tab = Player(chromium, width=1000, scheme="dark")
        tab.open(f"{url}/play?game=san_juan&players=2&seat=1&bots=heuristic&seed=7&name=Tester", board=False)
        tab.page.get_by_role("button", name="Start game").click()
        tab.page.wait_for_selector(".gv-play[data-state]")
        assert tab.settle() == "deciding"
        game_id = tab.page.url.split("id=")[1]
        games = Store(play_folder(db))
        hand = tab.page.locator(".gv-play .player[data-seat='1'] .mini")
        # Too much paid: the engine's rule, said on the page; nothing changed.
        version = games.load(game_id).version
        for card in ("Archive", "Carpenter", "Triumphal arch"):
            hand.filter(has_text=card).click()
        assert tab.page.locator(".gv-play .pl-confirm").text_content() == "Confirm"
        tab.page.locator(".gv-play .pl-confirm").click()
        said = tab.page.locator("[role='alert']", has_text="Not allowed: ")
        said.wait_for()
        assert "(rule " in said.inner_text() and said.inner_text().endswith("Nothing was changed.")
        assert games.load(game_id).version == version
        tab.page.wait_for_selector(".gv-play[data-state='deciding']")
        hand.filter(has_text="Archive").click()
        hand.filter(has_text="Carpenter").click()
        confirm = tab.page.locator(".gv-play .pl-confirm")
        assert confirm.text_content() == "Confirm: build Archive pay [Carpenter]"
        confirm.click()
        tab.page.wait_for_function(f"() => {{ const r = {ROOT_JS}; return r && r.getAttribute('data-version') "
                                   f"!== '{version}'; }}", timeout=60_000)
        at = games.load(game_id)
        assert [p.move.text() for p in at.moves if not p.bot][-1] == "build Archive pay [Carpenter]"
        assert tab.settle() == "deciding"
        assert "role producer" in tab.moves()
        version = at.version
        tab.page.locator(".gv-play .board .chip", has_text="producer").click()
        tab.page.wait_for_function(f"() => {{ const r = {ROOT_JS}; return r && r.getAttribute('data-version') "
                                   f"!== '{version}'; }}", timeout=60_000)
        assert [p.move.text() for p in games.load(game_id).moves if not p.bot][-1] == "role producer"
        # The game in progress, listed under the board: its buttons' labels whole, none cut ("Res...").
        # Each check looks the button up afresh: a rerun after the bots' moves may replace it meanwhile.
        for key in (f"play_resume_{game_id}", f"play_abandon_{game_id}", "play_new"):
            whole = tab.page.wait_for_function(
                "(key) => { const b = document.querySelector(`.st-key-${key} button`);"
                " if (!b || !b.isConnected || b.clientWidth === 0) return null;"
                " b.scrollIntoView({block: 'center'});"
                " return {whole: [b, ...b.querySelectorAll('*')].every((e) => e.scrollWidth <= e.clientWidth + 1)}; }",
                arg=key, timeout=30_000).json_value()
            assert whole == {"whole": True}, key
        assert not tab.errors


def _assemble(tab: Player, move: Any, board: bool) -> None:
    """Make the mayor's ``move`` part by part: started by a click on a plantation of the player's island
    (``board``) or by its Assemble button, each colonist placed with a part's button, confirmed once."""
    target = move.to_json()
    placed: dict[tuple[str, str], int] = {}
    if board:
        kind = next(iter(target["plantations"]))
        tab.page.locator(f".gv-play .player[data-seat='1'] .island .tile[title^='{kind}']").first.click()
        placed[("plantations", kind)] = 1
    else:
        tab.page.locator(".gv-play .pl-assemble[data-kind='mayor']").click()
    tab.page.locator(".gv-play .pl-pick").wait_for()
    for field in ("plantations", "buildings"):
        for item, n in target[field].items():
            for _ in range(n - placed.get((field, item), 0)):
                tab.page.locator(f".gv-play .pl-part[data-field='{field}'][data-item='{item}']").click()
    confirm = tab.page.locator(".gv-play .pl-confirm")
    assert confirm.text_content() == f"Confirm: {move.text()}"
    version = tab.attr("data-version")
    confirm.click()
    tab.page.wait_for_function(f"() => {{ const r = {ROOT_JS}; return r && r.getAttribute('data-version') !== "
                               f"{json.dumps(version)}; }}", timeout=60_000)


def test_a_puerto_rico_game_is_played_to_its_end_and_no_hidden_information_reaches_the_browser(chromium: Any, tmp_path: Path) -> None:
    """Puerto Rico against two random bots: moves from the buttons, the mayor's colonists placed on the
    board and confirmed once, a reload resumed at the same position, most of the rest played on the
    server and followed, the game over, stored and downloaded. No websocket message holds another seat's VP chips before the end (nor the points a
    shipment of theirs earned), nor the order of the face-down plantation stack."""
    db = tmp_path / "games.duckdb"
    with dashboard(db) as (url, _):
        tab = Player(chromium)
        # Seed 49: a short game (about 40 decisions of the player's) with several mayor phases, and
        # chips shipped by the bots before the end.
        game_id = tab.start(url, "game=puerto_rico&players=3&seat=1&bots=random&seed=49&name=Tester")
        games = Store(play_folder(db))
        mayors = decisions = 0
        while tab.settle() != "over":
            session = games.load(game_id)
            assert tab.attr("data-version") == str(session.version)
            choice = session.choices()[0]
            if choice.to_json()["kind"] == "mayor" and sum(c.to_json()["kind"] == "mayor" for c in session.choices()) > 1:
                _assemble(tab, choice, board=mayors == 0 and bool(choice.to_json()["plantations"]))
                mayors += 1
                assert [p.move.text() for p in games.load(game_id).moves if not p.bot][-1] == choice.text()
            else:
                tab.play(choice.text())
            decisions += 1
            if decisions == 12:
                # A reload resumes at the same position, without showing the bots' moves again.
                at = games.load(game_id)
                tab.page.reload()
                wait_for_app(tab.page)
                tab.page.wait_for_selector(".gv-play[data-state]")
                # (The board's steps are the log's moves: a move the rules force is not one.)
                assert tab.attr("data-version") == str(at.version)
                assert tab.attr("data-step") == str(len(game_log(at).moves))
                # The rest of the game but its last decisions is played on the server (as from another
                # tab): the page, reloaded, sends the whole game so far, and plays it to its end.
                assert mayors >= 2
                to_near_end(games, at, 4, tmp_path / "scratch")
                tab.page.reload()
                wait_for_app(tab.page)
                tab.page.wait_for_selector(".gv-play[data-state]")
        assert mayors >= 2 and decisions > 12
        tab.page.get_by_text("The game is stored in the database").wait_for(timeout=60_000)
        assert tab.page.locator(".gv-play .pl-status").inner_text().startswith("Game over")
        with tab.page.expect_download() as download:
            tab.page.get_by_role("button", name="Download the game's log (JSON)").click()
        log = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert [p["name"] for p in log["players"]] == ["random", "Tester", "random#2"]
        assert not tab.errors
        session = games.load(game_id)
        wire = "\n".join(tab.frames)
    stored_id = game_log(session).game_id
    with duckdb.connect(str(db), read_only=True) as con:
        ((total,),) = con.execute("SELECT moves FROM games WHERE game_id = ?", [stored_id]).fetchall()
        stored = {(step, seat): row for step, seat, *row in con.execute(
            "SELECT step, seat, vp, vp_chips, city, city_occupancy FROM puerto_rico_player_states WHERE game_id = ?",
            [stored_id]).fetchall()}
    hidden = {key: chip_points({"vp_chips": chips, "city": city, "city_occupancy": occupied})
              for key, (_, chips, city, occupied) in stored.items()}
    # The bots held chips before the end (the test sees what it looks for)...
    assert any(hidden[(step, seat)] for step in range(total) for seat in (0, 2))
    # ... and no message said how many: before the end, a bot's seat comes without its chips and with
    # VP that leave them out; the player's own chips are there.
    sent = _columns(wire, "seats")
    assert sent
    for seats in sent:
        for seat in (0, 2):
            assert all(value is None for step, value in seats[seat].get("vp_chips", []) if step < total), seats[seat]
            assert all(vp == stored[(step, seat)][0] - hidden[(step, seat)]
                       for step, vp in seats[seat]["vp"] if step < total), (seat, seats[seat]["vp"])
        assert all(value == stored[(step, 1)][1] for step, value in seats[1]["vp_chips"])
    # No shipment of another seat with its points: a load's points are the player's own.
    for found in re.finditer(r"(?: gets |the only possible load: )\d+ VP", wire):
        start = max(wire.rfind('"', 0, found.start()), wire.rfind(">", 0, found.start())) + 1
        assert wire[start:found.end()].startswith("Tester "), wire[start:found.end()]
    # The plantation stack is a count in every message, never its tiles; the tiles never drawn, in the
    # order they lie, went over nowhere, nor what orders the stack's reshuffles.
    stacks = _columns(wire, "plantation_stack")
    assert stacks and all(isinstance(n, int) for run in stacks for _, n in run), stacks[:3]
    left = [str(getattr(t, "value", t)) for t in session.state.plantation_stack]
    assert len(left) > 8
    plain = wire.replace('\\"', '"')
    for sep in (",", ", "):
        assert sep.join(json.dumps(t) for t in left[:6]) not in plain
    assert '"shuffle_seed"' not in plain and '"reshuffles"' not in plain


def _columns(text: str, key: str) -> list[list[list[Any]]]:
    """Every column ``key`` sent (its runs ``[[step, value], ...]``), read out of the messages."""
    decoder = json.JSONDecoder()
    out = []
    for found in re.finditer(r'\\?"' + re.escape(key) + r'\\?":\s*', text):
        escaped = text[found.start()] == "\\"
        chunk = text[found.end():found.end() + 50000]
        out.append(decoder.raw_decode(chunk.replace('\\"', '"') if escaped else chunk)[0])
    return out
