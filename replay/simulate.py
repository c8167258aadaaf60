"""Generating complete, reproducible games with bots: same seed, same bytes."""

from __future__ import annotations

import functools
import gzip as gzip_format
import os
import random
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from replay.logfile import dumps_game, games_bytes
from replay.outputs import replacing
from replay.protocol import Working
from replay.registry import engine_for, make_bot

BOTS = ("heuristic", "random", "mixed")
NAMES = ("Ana", "Bruno", "Carla", "Diego", "Elena")
#: A game that has not ended after this many moves is a bot bug, not a game.
MAX_MOVES = 5000
#: The most games one run writes. Each game is written as soon as it is played, so memory does not
#: grow with the count; the bound keeps a typo (``--games 1000000000``) from filling a disk for days.
MAX_GAMES = 10_000_000
#: The largest seed: every game's own seed (``seed * 1_000_003`` plus the game's number, plus
#: ``1_000_000_007`` per dropped attempt), which its log records in ``meta.seed``, then stays within
#: the 64-bit integers the log format allows.
MAX_SEED = 10**12


class SimulationError(Exception):
    """No attempt of a seed produced a game that ends."""


#: Random players can reach a dead end the rules have no exit for (every card tucked under chapels or
#: covered by cranes, both piles empty, nobody able to build): such an attempt is dropped and the
#: game is played again from the next attempt seed, so simulation stays reproducible.
MAX_ATTEMPTS = 20


#: Recorded moves between two looks for a dead end (``Working.stuck``).
STUCK_EVERY = 64


def play_out(play: Working[Any, Any], choose: Callable[[int], Any], moves: list[dict[str, Any]]) -> bool:
    """Play the working game ``play`` to its end, ``choose(seat)`` giving the move of the seat to act,
    appending each move a log records to ``moves`` (the loop of ``governor simulate`` and of the
    arena). False when the game goes past ``MAX_MOVES`` recorded moves or reaches a dead end, from
    which it could never end (``Working.stuck``, looked for every ``STUCK_EVERY`` moves: the same
    games come out, the hopeless ones stopped sooner); then left where it stopped.

    Raises what ``choose`` raises, and ``RuleViolation`` for a move the rules refuse."""
    while not play.is_over():
        seat = play.current_seat()
        assert seat is not None, "a game not over has a seat to act"
        move = choose(seat)
        default = play.default_move()
        play.apply(move)
        # A decision equal to what the replay takes when a log says nothing is left out, as a player's
        # own program would record it (and as logs were written before the choice could be made).
        if default is None or move != default:
            moves.append({"seat": seat, **move.to_json()})
            if len(moves) > MAX_MOVES or (len(moves) % STUCK_EVERY == 0 and play.stuck()):
                return False
    return True


def _play(game: str, players: int, seed: int, bot: str, options: dict[str, Any]) -> dict[str, Any] | None:
    engine = engine_for(game)
    names = NAMES[:players]
    log = engine.new_random_game(names, seed, options)
    state = engine.simulation_state(log, seed)
    rng = random.Random(f"bots:{seed}")
    kinds = [bot] * players
    if bot == "mixed":
        kinds = [rng.choice(("heuristic", "heuristic", "random")) for _ in range(players)]
    bots = [make_bot(game, kind, rng.randrange(2**31)) for kind in kinds]
    moves: list[dict[str, Any]] = []
    # Only the final state and the moves are kept: the game is played in place (``Engine.working``,
    # the rules of ``apply`` without a snapshot per move; tests prove the same logs as ``apply``).
    play = engine.working(state)
    if not play_out(play, lambda seat: bots[seat].choose_working(play), moves):
        return None
    state = play.snapshot()
    obj = engine.finish_log(log, state, moves)
    obj["meta"] = {"generator": f"governor simulate ({bot})", "seed": seed, **obj.get("meta", {})}
    # Keys in the documented order.
    order = ["format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result"]
    return {k: obj[k] for k in order if k in obj}


def simulate_game(game: str, players: int, seed: int, bot: str = "heuristic", options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One complete game as a log object, determined by its arguments alone.

    Raises ``SimulationError`` when no attempt of the seed ends (never seen in practice)."""
    for attempt in range(MAX_ATTEMPTS):
        obj = _play(game, players, seed + attempt * 1_000_000_007, bot, options or {})
        if obj is not None:
            return obj
    raise SimulationError(f"{game}, {players} players, seed {seed}: no attempt ended within {MAX_MOVES} moves")


def simulate_many(game: str, players: Sequence[int], games: int, seed: int, bot: str = "heuristic",
                  options: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """``games`` games, cycling through the player counts, each seeded from ``seed`` and its index."""
    for k in range(games):
        count = players[k % len(players)]
        game_seed = seed * 1_000_003 + k
        obj = simulate_game(game, count, game_seed, bot, options)
        obj["source_id"] = f"sim-{game}-{seed}-{k:06d}"
        order = ["format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result"]
        yield {key: obj[key] for key in order if key in obj}


def write_simulated(out: Path, game: str, players: Sequence[int], games: int, seed: int, bot: str = "heuristic",
                    jsonl: bool = False, gzip: bool = False, options: dict[str, Any] | None = None) -> list[Path]:
    """Write simulated games to ``out``: one ``.json`` file per game, or one ``.jsonl`` file. Returns
    the files written (see ``stream_simulated``)."""
    return list(stream_simulated(out, game, players, games, seed, bot, jsonl, gzip, options))


def stream_simulated(out: Path, game: str, players: Sequence[int], games: int, seed: int, bot: str = "heuristic",
                     jsonl: bool = False, gzip: bool = False, options: dict[str, Any] | None = None) -> Iterator[Path]:
    """Write simulated games to ``out`` as they are played, yielding each file once it is complete:
    one ``.json`` file per game, or one ``.jsonl`` file (yielded at the end; a game is appended as soon
    as it is played). Each file is written under a temporary name of its own (random, made exclusively
    in ``out``: ``replay.outputs.replacing``) and renamed when complete, replacing a link of its name
    rather than writing through it. Memory does not grow with ``games``. Nothing half-written is left
    when the run stops early (an exception, Ctrl-C): the temporary file is removed.

    Raises ``SimulationError`` (see ``simulate_game``) and ``OSError`` when ``out`` cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    suffix = ".gz" if gzip else ""
    produced = simulate_many(game, players, games, seed, bot, options)
    if jsonl:
        path = out / f"{game}-seed{seed}-{games}games.jsonl{suffix}"
        lines = (dumps_game(obj) + "\n" for obj in produced)
        yield from _placed(path, lambda temp: _write_stream(temp, lines, gzip))
        return
    for k, obj in enumerate(produced):
        path = out / f"{game}-{len(obj['players'])}p-seed{seed}-{k:04d}.json{suffix}"
        yield from _placed(path, functools.partial(_write_file, data=games_bytes(path.name, [obj], compress=gzip)))


def _placed(path: Path, write: Callable[[str], object]) -> Iterator[Path]:
    """Put the file ``path`` in place, ``write`` filling a temporary file of its own (random, made
    exclusively beside it: ``replay.outputs.replacing``) that is renamed over ``path`` when complete
    (a link of its name is replaced, never written through) and removed otherwise; yields ``path``
    once it is there.

    Raises what ``write`` raises, and ``OSError`` when the file cannot be made or renamed."""
    written = None
    try:
        with replacing(path, follow=False) as temp:
            write(temp)
            written = os.stat(temp).st_ino
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM) once the file was renamed into place, before the caller heard of
        # it: the caller counts it first, and the interruption goes on when it asks for the next
        # file ("the 12 file(s) written are complete" is every whole file there, never one less).
        if written is not None and _inode(path) == written:
            yield path
        raise
    yield path


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _write_file(path: str, data: bytes) -> None:
    with open(path, "wb") as raw:
        raw.write(data)


def _write_stream(path: str, lines: Iterator[str], gzip: bool) -> None:
    """Write ``lines`` to the new file ``path`` one by one, each on disk as soon as it is written.
    Compressed, the bytes are those of ``gzip.compress(all, mtime=0)``: same games, same file.

    Raises ``OSError`` when the file cannot be written."""
    with open(path, "wb") as raw:
        if gzip:
            # gzip.compress's own header (its OS byte differs from GzipFile's), one raw deflate
            # stream fed a game at a time (the same stream as one call), then CRC and size.
            raw.write(gzip_format.compress(b"", compresslevel=9, mtime=0)[:10])
            packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
            crc = size = 0
            for text in lines:
                data = text.encode("utf-8")
                crc = zlib.crc32(data, crc)
                size += len(data)
                raw.write(packer.compress(data))
            raw.write(packer.flush())
            raw.write(struct.pack("<LL", crc, size & 0xFFFFFFFF))
        else:
            for text in lines:
                raw.write(text.encode("utf-8"))
                raw.flush()  # each game on disk as soon as it is played
