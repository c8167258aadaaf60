"""A game in progress through the API the Play page and ``governor play`` share: whole games of each
game, moves checked by the engine, stale clicks refused, take-backs, the journal read back after a
crash, what a seat is shown, and the finished game in the database."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from play.errors import (
    NotAMove,
    NotYourTurn,
    SessionDamaged,
    SessionNotFound,
    SetupError,
    StaleVersion,
    TakebackRefused,
)
from play.session import Session, log_of
from play.setup import Setup
from play.shown import seat_view
from play.store import Store, play_folder
from replay.errors import IllegalMoveError
from replay.logfile import parse_game
from replay.replayer import final_state
from tests.play.driving import advance

AGENTS = Path(__file__).resolve().parents[1] / "governor" / "arena" / "agents_for_tests.py"
NOON = datetime(2026, 1, 2, 12, 0, 0, tzinfo=UTC)


def clock(start: datetime = NOON) -> Callable[[], datetime]:
    """A clock a second later at each call."""
    ticks = iter(range(10**9))
    return lambda: start + timedelta(seconds=next(ticks))


def setup(game: str = "san_juan", players: str = "2", bots: str = "random", seed: str = "7", **more: str) -> Setup:
    return Setup.from_query({"game": game, "players": players, "seat": "0", "bots": bots, "seed": seed,
                             "name": "Tester", **more})


def pick_with(seed: int) -> Callable[[Session], Any]:
    rng = random.Random(seed)
    return lambda session: rng.choice(session.choices())


def play_out(store: Store | Callable[[], Store], session: Session, pick: Callable[[Session], Any],
             limit: int = 3000) -> Session:
    """Play to the end: the person's moves from ``pick``, the bots' one by one. ``store`` may be a
    function giving a new store for each call (a page reloaded, a server restarted)."""
    return advance(store, session, choose=pick, limit=limit)[0]


def journal(store: Store, session: Session) -> Path:
    return store.folder / f"{session.id}.journal"


@pytest.mark.parametrize(("game", "players"), [("san_juan", "2"), ("puerto_rico", "3")])
def test_a_whole_game_is_played_logged_and_stored_with_its_bots_marked(tmp_path: Path, game: str, players: str) -> None:
    db = tmp_path / "games.duckdb"
    store = Store(play_folder(db), clock=clock())
    session = play_out(store, store.start(setup(game, players)), pick_with(1))
    assert session.over and session.to_act is None and not session.human_to_act and session.takebacks == 0
    log = store.log(session.id)
    assert list(log) == ["format", "version", "game", "meta", "players", "options", "setup", "moves", "result"]
    names = ["Tester", "random", "random#2"][: int(players)]
    assert [p["name"] for p in log["players"]] == names
    assert log["meta"] == {
        "generator": "governor play", "seed": 7,
        "agents": [{"seat": s, "name": names[s], "spec": "random", "version": "1"} for s in range(1, int(players))],
        "takebacks": 0, "date": session.updated.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    # The log is a complete game of the format: it replays to its recorded result.
    parsed = parse_game(log)
    final_state(parsed)
    assert len(log["moves"]) == sum(1 for p in session.moves if not p.omitted)
    stored = store.finish(session.id, db)
    assert stored == parsed.game_id
    assert store.finish(session.id, db) == stored  # once: the second is the same game
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT game_id, json_extract_string(meta, '$.generator') FROM games").fetchall() == [
            (stored, "governor play")]
        seats = con.execute("SELECT name, bot FROM players ORDER BY seat").fetchall()
        rated = {name for (name,) in con.execute("SELECT name FROM player_ratings").fetchall()}
    assert seats == [("Tester", False)] + [("random v1", True)] * (int(players) - 1)
    assert rated == {"Tester", "random v1"}
    assert sorted(p.name for p in store.folder.iterdir()) == [f"{session.id}.journal"]  # nothing an import reads
    # The entry that ended the game says so: a list of games in progress reads it without replaying.
    assert json.loads(journal(store, session).read_text().split("\n")[-2])["over"] is True


def test_a_setup_no_game_can_have_is_refused_before_any_journal(tmp_path: Path) -> None:
    made = Setup("san_juan", 2, (0,), ("Ana", "Bo"), (None, None), 7)  # no bot for seat 1, no versions
    with pytest.raises(SetupError) as caught:
        Store(tmp_path).start(made)
    assert str(caught.value) == "setup: the bots are not one per seat without a person"
    assert list(tmp_path.iterdir()) == []


def test_a_resumed_game_goes_on_as_an_uninterrupted_one(tmp_path: Path) -> None:
    """Bots' moves are seeded from the game's seed and the move's index: a game played with a new
    store (a restarted server) at every call gives the very log of one played in one go."""
    one = Store(tmp_path / "one", clock=clock())
    whole = play_out(one, one.start(setup(bots="heuristic")), pick_with(5))
    times = clock()
    pieces = play_out(lambda: Store(tmp_path / "pieces", clock=times),
                      Store(tmp_path / "pieces", clock=times).start(setup(bots="heuristic")), pick_with(5))
    assert log_of(pieces) == log_of(whole)
    assert Store(tmp_path / "pieces").load(pieces.id).moves == pieces.moves


def test_a_stale_version_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    first = store.start(setup())
    moved = store.act(first.id, "role builder", first.version)
    before = journal(store, first).read_bytes()
    for call in (lambda: store.act(first.id, "role trader", first.version),
                 lambda: store.bot_step(first.id, first.version),
                 lambda: store.takeback(first.id, first.version)):
        with pytest.raises(StaleVersion) as caught:
            call()
        assert str(caught.value) == "the game has moved on (it is at version 1, not 0): nothing was changed"
        assert caught.value.current == moved.version == 1
    assert journal(store, first).read_bytes() == before
    # A second store (another tab, another process) sees the move and refuses the same click.
    with pytest.raises(StaleVersion):
        Store(tmp_path).act(first.id, "role builder", 0)


def test_two_clicks_at_once_on_one_game_take_turns_and_the_second_is_stale(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tabs (two stores, each opening the journal itself) send the same move at the same moment:
    the journal's lock makes them take turns, so the second sees the first's move and is refused."""
    import threading

    from play import journal as journals

    session = Store(tmp_path).start(setup())
    real = journals.Open.append

    def slow(self: journals.Open, entry: dict[str, Any]) -> None:
        time.sleep(0.3)  # both would have read the game before either wrote, were it not for the lock
        real(self, entry)

    monkeypatch.setattr(journals.Open, "append", slow)
    start = threading.Barrier(2)
    results: list[object] = []

    def click() -> None:
        start.wait()
        try:
            results.append(Store(tmp_path).act(session.id, "role builder", 0).version)
        except StaleVersion as err:
            results.append(err.message)

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=str) == [1, "the game has moved on (it is at version 1, not 0): nothing was changed"]
    assert journal(Store(tmp_path), session).read_text().count("\n") == 2


def test_an_illegal_move_names_its_rule_and_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session = store.start(setup())
    session = store.act(session.id, "ROLE   Builder", session.version)  # the text form, any case and spacing
    before = journal(store, session).read_bytes()
    cases: list[tuple[Any, type[Exception], str]] = [
        ({"kind": "build", "building": "City hall", "pay": []}, IllegalMoveError,
         "move 2, seat 0 (Tester), 'build City hall pay []': City hall costs 5 after discounts, but 0 were paid "
         "[rule builder.cost]"),
        ('{"kind": "build", "building": "Palace", "pay": []}', IllegalMoveError,
         "move 2, seat 0 (Tester), 'build Palace pay []': Palace is not in the hand [rule builder.in_hand]"),
        ({"kind": "nope"}, NotAMove, "not a move of San Juan: move.kind: unknown move kind 'nope' (kinds: role, "
                                     "build, produce, sell, councillor, gold_mine, chapel, hand_limit, draft, pass)"),
        ("build nothing", NotAMove,
         "'build nothing' is not a move you can make now (your 10 moves are listed by their text forms)"),
    ]
    for given, kind, message in cases:
        with pytest.raises(kind) as caught:
            store.act(session.id, given, session.version)
        assert str(caught.value) == message
    assert journal(store, session).read_bytes() == before
    assert store.load(session.id).version == session.version == 1


def test_a_person_cannot_move_for_a_bot_and_a_bot_waits_for_the_person(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session = store.start(setup())
    assert store.bot_step(session.id, session.version) is None  # the person is to act: nothing happens
    while session.human_to_act:
        session = store.act(session.id, session.choices()[-1], session.version)
    with pytest.raises(NotYourTurn) as caught:
        store.act(session.id, "pass", session.version)
    assert str(caught.value) == "it is random's turn (a bot): ask for the bot's move"


def test_a_take_back_undoes_the_persons_move_and_the_bots_after_it(tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    store = Store(play_folder(db), clock=clock())
    session = store.start(setup(bots="heuristic"))
    with pytest.raises(TakebackRefused) as caught:
        store.takeback(session.id, session.version)
    assert str(caught.value) == "no take-back: there is no move of yours to take back"
    session = play_out_until(store, session, lambda s: len(s.moves) >= 12)
    assert session.human_to_act
    before = session
    session = store.act(session.id, session.choices()[-1], session.version)
    while not session.human_to_act:
        stepped = store.bot_step(session.id, session.version)
        assert stepped is not None
        session = stepped
    assert len(session.moves) > len(before.moves) + 1
    back = store.takeback(session.id, session.version)
    assert (back.moves, back.state, back.to_act) == (before.moves, before.state, before.to_act)
    assert (back.takebacks, back.version) == (1, session.version + 1)
    assert Store(play_folder(db)).load(back.id).moves == before.moves  # on disk, as returned
    finished = play_out(store, back, pick_with(3))
    log = store.log(finished.id)
    assert log["meta"]["takebacks"] == 1
    final_state(parse_game(log))  # the final line only: a game that replays
    store.finish(finished.id, db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (1,)
        assert con.execute("SELECT count(*) FROM player_ratings").fetchone() == (0,)  # left out of the ratings
    with pytest.raises(TakebackRefused) as caught:
        store.takeback(finished.id, finished.version)
    assert str(caught.value) == "no take-back: the game is over"


def play_out_until(store: Store, session: Session, done: Callable[[Session], bool]) -> Session:
    pick = pick_with(2)
    while not done(session):
        if session.human_to_act:
            session = store.act(session.id, pick(session), session.version)
        else:
            stepped = store.bot_step(session.id, session.version)
            assert stepped is not None
            session = stepped
    return session


def test_several_people_at_one_screen_play_and_may_not_take_back(tmp_path: Path) -> None:
    store = Store(tmp_path)
    hot = Setup.from_query({"game": "san_juan", "players": "3", "seat": "0,2", "name": "Ana,Bruno",
                            "bots": "heuristic", "seed": "4"})
    session = store.start(hot)
    seen: set[int] = set()
    while len(session.moves) < 30:
        if session.human_to_act:
            assert session.to_act is not None
            seen.add(session.to_act)
            session = store.act(session.id, session.choices()[0], session.version)
        else:
            stepped = store.bot_step(session.id, session.version)
            assert stepped is not None
            session = stepped
    assert seen == {0, 2}
    with pytest.raises(TakebackRefused) as caught:
        store.takeback(session.id, session.version)
    assert str(caught.value) == "no take-back: take-backs are for one person playing bots"


def test_a_persons_part_of_a_bots_move_is_asked_of_the_person(tmp_path: Path) -> None:
    """San Juan: when a bot chooses the councillor, each other seat may refrain from the draw; a
    person decides that part, and the move is made only then."""
    store = Store(tmp_path)
    session = store.start(setup(bots="heuristic", seed="3"))
    session = play_out_until(store, session, lambda s: s.asked is not None)
    asked = session.asked
    assert asked is not None and asked.mover == 1 and asked.seats == (0,) and session.to_act == 0
    assert [m.text() for m in session.choices()] == ["role councillor", "role councillor -draw [0]"]
    view = seat_view(session, 0)
    assert view["asked"] == {"seat": 1, "player": "heuristic", "words": "heuristic chooses the councillor"}
    count = len(session.moves)
    session = store.act(session.id, "role councillor -draw [0]", session.version)
    assert session.asked is None and len(session.moves) == count + 1
    made = session.moves[-1]
    assert (made.seat, made.bot, made.move.text()) == (1, True, "role councillor -draw [0]")
    assert seat_view(session, 0)["moves"][-1]["words"] == "heuristic chooses the councillor; Tester refrains from the draw"


def test_a_users_agent_plays_in_its_process_and_its_faults_are_recorded(tmp_path: Path) -> None:
    with Store(tmp_path, budget=0.2) as store:
        session = store.start(setup(bots=f"{AGENTS}:FaultyAgent"))
        while len(session.moves) < 16:
            if session.human_to_act:
                session = store.act(session.id, session.choices()[0], session.version)
            else:
                stepped = store.bot_step(session.id, session.version)
                assert stepped is not None
                session = stepped
    faults = log_of(session)["meta"]["faults"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(1, "error"), (1, "timeout"), (1, "illegal")]
    assert faults[0]["detail"] == "RuntimeError: agent crashed\x1b[31m"  # as the arena keeps it: printed escaped
    assert session.setup.names == ("Tester", "faulty")


def test_a_users_agent_is_told_the_game_is_over_and_its_process_ends(tmp_path: Path,
                                                                     capfd: pytest.CaptureFixture[str]) -> None:
    from play import hosted

    with Store(tmp_path) as store:
        session = play_out(store, store.start(setup(bots=f"{AGENTS}:SeededRandomAgent")), pick_with(4))
        # The agent's on_game_end prints (its output is this process's standard error) and its host ends.
        assert capfd.readouterr().err.startswith("chose among: ")
        assert hosted._LIVE == set() and store.bots.hosted == {}
    assert session.over and session.setup.names[1] == "seeded-random"


def test_what_a_seat_is_shown_holds_nothing_it_may_not_see(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session = play_out_until(store, store.start(setup(players="3", bots="random")), lambda s: len(s.moves) >= 20)
    state = session.state
    for seat in range(3):
        view = seat_view(session, seat)
        text = json.dumps(view)
        hidden = {c for s, p in enumerate(state.players) if s != seat for c in p.hand} | set(state.draw_pile)
        # What the seat may know the name of: its hand, the cities, the cards of its own moves (those it
        # paid): a hidden card of the same name may be named, no other.
        seen = json.dumps([p.move.to_json() for p in session.moves if p.seat == seat])
        known = set(state.players[seat].hand) | {b for p in state.players for b in p.buildings} | \
            {c for c in hidden if c in seen}
        assert hidden - known and not {card for card in hidden - known if card in text}
        assert "next_tile" not in view["state"] and ["hand" in p for p in view["state"]["players"]] == \
            [s == seat for s in range(3)]
        assert bool(view["legal"]) == (seat == session.to_act == 0)
        assert len(view["moves"]) == len(session.moves)


def test_in_progress_lists_the_unfinished_games_newest_first_and_abandon_removes_one(tmp_path: Path) -> None:
    store = Store(tmp_path, clock=clock())
    first = store.start(setup())
    second = store.start(setup(game="puerto_rico", players="3"))
    first = store.act(first.id, "role builder", first.version)
    done = play_out(store, store.start(setup(bots="heuristic")), pick_with(1))
    listed = store.in_progress()
    assert [(g.id, g.game, g.title, g.moves, g.names) for g in listed] == [
        (first.id, "san_juan", "San Juan", 1, ("Tester", "random")),
        (second.id, "puerto_rico", "Puerto Rico", 0, ("Tester", "random", "random#2")),
    ]
    assert done.id not in {g.id for g in listed}
    store.abandon(first.id)
    with pytest.raises(SessionNotFound) as caught:
        store.load(first.id)
    assert str(caught.value) == (f"no game {first.id} in {tmp_path} (finished and stored long ago, abandoned, or "
                                 "played on another database)")
    with pytest.raises(SessionNotFound):
        store.act(first.id, "role trader", first.version)
    assert [g.id for g in store.in_progress()] == [second.id]
    with pytest.raises(SessionNotFound) as caught:
        store.load("../etc/passwd")
    assert str(caught.value) == "no game '../etc/passwd' (an id is 24 letters and digits)"


def test_a_last_line_cut_short_is_dropped_and_anything_else_damaged_is_named(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session = store.start(setup())
    session = store.act(session.id, "role builder", session.version)
    path = journal(store, session)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"kind":"move","version":2,"se')  # the machine stopped mid-write
    resumed = Store(tmp_path).load(session.id)
    assert resumed.version == 1 and resumed.moves == session.moves
    assert resumed.notes == (f"{path}: line 3 was cut short (written when the game stopped): dropped",)
    after = Store(tmp_path).act(session.id, "pass", 1)  # the cut line is cut off before the next is written
    assert path.read_bytes().startswith(whole) and path.read_bytes().count(b"\n") == 3 and after.version == 2
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], b"garbage", *lines[2:]]))
    with pytest.raises(SessionDamaged) as caught:
        Store(tmp_path).load(session.id)
    assert str(caught.value) == f"{path}: line 2: not a JSON object"
    entry = json.loads(lines[1])
    path.write_bytes(b"\n".join([lines[0], json.dumps(dict(entry, move={"kind": "role", "role": "trader"},
                                                           seat=1)).encode(), *lines[2:]]))
    with pytest.raises(SessionDamaged) as caught:
        Store(tmp_path).load(session.id)
    assert str(caught.value) == f"{path}: line 2: a move of seat 1 where seat 0 is to act"
    path.write_bytes(lines[0][:20])
    with pytest.raises(SessionDamaged) as caught:
        Store(tmp_path).load(session.id)
    assert str(caught.value) == f"{path}: line 1: no header: the game was never started (cut short while it was made)"
    problems: list[str] = []
    assert Store(tmp_path).in_progress(problems) == [] and problems == [str(caught.value)]
    Store(tmp_path).abandon(session.id)  # a damaged game can still be removed
    assert not path.exists()
