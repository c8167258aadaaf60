# ruff: noqa: E702  (one case a line: build the bad game, then say what its rejection says)
"""Writes the bad-input corpus: logs that must each be rejected with their own clear message.

Run ``python tests/replay/bad_logs/make_corpus.py`` to regenerate the files from the sample logs; each case
names what the rejection must say (``kind``, ``rule`` and a part of the message), checked by
``tests/replay/test_bad_logs.py``. The cases are built from sample games by changing one thing.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LOGS = HERE / "logs"
ROOT = HERE.parents[2]
SJ = ROOT / "sample_logs" / "san_juan"
PR = ROOT / "sample_logs" / "puerto_rico"

Case = dict[str, Any]
CASES: dict[str, Case] = {}


def case(name: str, kind: str, rule: str | None, contains: str, *, data: bytes | None = None,
         game: dict[str, Any] | None = None, suffix: str = ".json") -> None:
    """Record a case: the file's bytes (or a game to write as JSON) and what its rejection says."""
    assert name not in CASES, name
    if data is None:
        data = json.dumps(game, ensure_ascii=False).encode("utf-8")
    CASES[name + suffix] = {"data": data, "kind": kind, "rule": rule, "contains": contains}


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def first(game: dict[str, Any], test: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, m in enumerate(game["moves"]) if test(m))


def sj_cases() -> None:
    base = load(SJ / "san_juan-3p-seed2026-0001.json")
    four = load(SJ / "san_juan-4p-seed2026-0002.json")

    def g() -> dict[str, Any]:
        return copy.deepcopy(base)

    # --- the file itself ---------------------------------------------------------------------
    case("empty", "format", None, "empty: no JSON in the file", data=b"")
    case("not_json", "format", None, "malformed JSON", data=b"this is not a log\n")
    text = json.dumps(base)
    case("truncated", "format", None, "malformed JSON", data=text[: len(text) // 2].encode())
    case("array", "format", None, "a game must be a JSON object, got list", data=b"[1, 2, 3]")
    case("utf16", "format", None, "not UTF-8 text", data=json.dumps(base).encode("utf-16"))
    latin = copy.deepcopy(base)
    latin["players"][0]["name"] = "Jos\u00e9"
    case("latin1", "format", None, "not UTF-8 text", data=json.dumps(latin, ensure_ascii=False).encode("latin-1"))
    case("not_gzip", "format", None, "not a readable gzip file", data=b"plain text, not gzip", suffix=".json.gz")
    case("truncated_gzip", "format", None, "not a readable gzip file",
         data=gzip.compress(json.dumps(base).encode(), mtime=0)[:200], suffix=".json.gz")
    nested: Any = "deep"
    for _ in range(200):
        nested = {"x": nested}
    deep = g()
    deep["meta"] = nested
    case("deeply_nested", "format", None, "nested deeper than 32 levels", game=deep)
    very_deep = b'{"format": "governor-log", "meta": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    case("very_deeply_nested", "format", None, "nested too deeply to parse", data=very_deep)
    case("trailing_garbage", "format", None, "malformed JSON", data=json.dumps(base).encode() + b" }{")

    # --- the envelope ------------------------------------------------------------------------
    bad = g(); bad["format"] = "boardgame-log"
    case("wrong_format_name", "format", "format", "expected 'governor-log', got 'boardgame-log'", game=bad)
    bad = g(); bad["version"] = 2
    case("future_version", "format", "version", "format version 2 is not supported", game=bad)
    bad = g(); bad["version"] = "1"
    case("version_string", "format", "version", "expected an integer, got str", game=bad)
    bad = g(); bad["game"] = "chess"
    case("unknown_game", "format", "game", "unknown game 'chess'", game=bad)
    bad = g(); del bad["players"]
    case("missing_players", "format", "players", "missing field 'players'", game=bad)
    bad = g(); bad["players"] = "Ana, Bruno"
    case("players_not_list", "format", "players", "expected a list of players in seat order, got str", game=bad)
    bad = g(); bad["players"][1] = {"name": "  "}
    case("empty_player_name", "format", "players[1].name", "a player name may not be empty", game=bad)
    bad = g(); bad["players"][2] = 42
    case("player_wrong_type", "format", "players[2]", "expected a player name or an object with a 'name'", game=bad)
    bad = g(); del bad["setup"]
    case("missing_setup", "format", "setup", "missing field 'setup'", game=bad)
    bad = g(); bad["moves"] = {"0": "role"}
    case("moves_not_list", "format", "moves", "expected a list of moves, got dict", game=bad)
    bad = g(); bad["result"] = [1, 2]
    case("result_not_object", "format", "result", "expected an object", game=bad)
    bad = g(); bad["winner"] = 0
    case("unknown_top_field", "format", "winner", "unknown field 'winner'", game=bad)
    bad = g(); bad["options"] = {"draft_start": "yes"}
    case("option_wrong_type", "format", "options.draft_start", "expected true or false", game=bad)
    bad = g(); bad["options"] = {"expansion": True}
    case("unknown_option", "format", "options.expansion", "unknown San Juan option", game=bad)

    # --- impossible setups -------------------------------------------------------------------
    bad = g(); bad["players"] = bad["players"][:1]; bad["setup"]["hands"] = bad["setup"]["hands"][:1]
    case("one_player", "format", "players", "san_juan is for 2 to 4 players, not 1", game=bad)
    bad = copy.deepcopy(four); bad["players"].append({"name": "Eva"})
    case("five_players", "format", "players", "san_juan is for 2 to 4 players, not 5", game=bad)
    bad = g(); bad["setup"]["hands"] = bad["setup"]["hands"][:2]
    case("hands_count", "format", "setup.hands", "expected one hand for each of the 3 players", game=bad)
    bad = g(); bad["setup"]["hands"][1] = bad["setup"]["hands"][1][:3]
    case("hand_size", "format", "setup.hands[1]", "seat 1 is dealt 4 cards, not 3", game=bad)
    bad = g(); bad["setup"]["deck"][5] = "Space station"
    case("unknown_card_in_deck", "format", "setup.deck[5]", "unknown card 'Space station'", game=bad)
    bad = g(); bad["setup"]["deck"][0] = "Smithyy"
    case("misspelt_card", "format", "setup.deck[0]", "unknown card 'Smithyy' (did you mean 'Smithy'?)", game=bad)
    bad = g(); bad["setup"]["deck"].append("Palace")
    case("extra_card", "format", "setup", "too many 1x Palace", game=bad)
    bad = g(); removed = bad["setup"]["deck"].pop()
    case("missing_card", "format", "setup", f"missing 1x {removed}", game=bad)
    bad = g()
    i = next(k for k, c in enumerate(bad["setup"]["deck"]) if c != "Hero")
    bad["setup"]["deck"][i] = "Hero"
    case("not_a_permutation", "format", "setup", "too many 1x Hero", game=bad)
    bad = g(); bad["setup"]["tiles"] = [1, 2, 3, 4, 4]
    case("tiles_not_permutation", "format", "setup.tiles", "expected an order of the tiles 1 to 5", game=bad)
    bad = g(); del bad["setup"]["deck"]
    case("missing_deck", "format", "setup.deck", "missing", game=bad)
    bad = g(); bad["setup"]["seed"] = 7
    case("unknown_setup_field", "format", "setup.seed", "unknown setup field", game=bad)

    # --- malformed moves ---------------------------------------------------------------------
    bad = g(); bad["moves"][3] = "builder"
    case("move_not_object", "format", "moves[3]", "a move must be an object, got str", game=bad)
    bad = g(); bad["moves"][0]["kind"] = "dance"
    case("unknown_move_kind", "format", "moves[0].kind", "unknown move kind 'dance'", game=bad)
    bad = g(); bad["moves"][0]["role"] = "mayor"
    case("unknown_role", "format", "moves[0].role", "unknown role 'mayor'", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["building"] = "Castle"
    case("unknown_building", "format", f"moves[{j}].building", "unknown card 'Castle'", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "produce"); bad["moves"][j]["goods"] = ["gold"]
    case("unknown_good", "format", f"moves[{j}].goods[0]", "unknown good 'gold'", game=bad)
    bad = g(); bad["moves"][0]["hurry"] = True
    case("unknown_move_field", "format", "moves[0].hurry", "unknown field for a 'role' move", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["pay"] = "Indigo plant"
    case("pay_not_list", "format", f"moves[{j}].pay", "expected a list of card names, got str", game=bad)
    bad = g(); bad["moves"][0]["seat"] = 7
    case("seat_out_of_range", "format", "moves[0].seat", "expected a seat number from 0 to 2, got 7", game=bad)
    bad = g(); bad["moves"][0]["library"] = "yes"
    case("library_not_bool", "format", "moves[0].library", "expected true or false", game=bad)

    # --- illegal moves -----------------------------------------------------------------------
    bad = g(); bad["moves"][0]["seat"] = 1
    case("wrong_seat", "illegal", "turn.seat", "it is seat 0's turn (Ana), not seat 1's", game=bad)
    bad = g(); j = [i for i, m in enumerate(bad["moves"]) if m["kind"] == "role"][1]
    bad["moves"][j]["role"] = bad["moves"][0]["role"]
    case("role_taken", "illegal", "role.taken", "was already chosen this round", game=bad)
    bad = g(); bad["moves"][0] = {"seat": 0, "kind": "pass"}
    case("pass_at_role_choice", "illegal", "turn.kind", "seat 0 must choose a role, not 'pass'", game=bad)
    bad = g(); bad["moves"][0]["library"] = True
    case("library_not_owned", "illegal", "library.use", "owns no library", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build" and len(m["pay"]) >= 1); bad["moves"][j]["pay"] = bad["moves"][j]["pay"][1:]
    case("build_underpaid", "illegal", "builder.cost", "after discounts, but", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["building"] = "Palace"; bad["moves"][j]["pay"] = []
    case("build_not_in_hand", "illegal", "builder.in_hand", "Palace is not in the hand", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["replace"] = "Indigo plant"
    case("crane_not_owned", "illegal", "crane.owned", "building over another building needs a crane", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["goods"] = ["indigo"]
    case("black_market_not_owned", "illegal", "black_market.owned", "paying with goods needs a black market", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "produce" and len(m["goods"]) == 1); bad["moves"][j]["goods"] = ["silver"]
    case("produce_without_building", "illegal", "producer.empty_building", "cannot produce 1 silver", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "produce"); bad["moves"][j]["goods"] = ["indigo"] * 5
    case("produce_too_many", "illegal", "producer.limit", "may produce at most", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "sell" and "silver" not in m["goods"]); bad["moves"][j]["goods"] = ["silver"]
    case("sell_unowned_good", "illegal", "trader.goods", "has 0 silver to sell, not 1", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "sell"); bad["moves"][j]["goods"] = ["indigo"] * 6
    case("sell_too_many", "illegal", "trader.limit", "may sell at most", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "councillor" and "keep" in m); bad["moves"][j]["keep"] = ["Hero", "Palace", "Statue"]
    case("councillor_keeps_too_many", "illegal", "councillor.keep_count", "may keep at most 1 of the drawn cards, not 3", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "councillor" and "keep" in m); bad["moves"][j]["keep"] = ["Triumphal arch"]
    case("councillor_keeps_undrawn", "illegal", "councillor.keep", "the drawn cards has 0x Triumphal arch, needs 1", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "councillor" and "keep" in m); bad["moves"][j] = {"seat": bad["moves"][j]["seat"], "kind": "councillor", "discard": []}
    case("archive_not_owned", "illegal", "councillor.archive", "discarding from the whole hand needs an archive", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "chapel"); bad["moves"][j]["card"] = "Triumphal arch"
    case("chapel_card_not_in_hand", "illegal", "chapel.card", "the hand has 0x Triumphal arch, needs 1", game=bad)
    bad = copy.deepcopy(four); j = first(bad, lambda m: m["kind"] == "hand_limit")
    bad["moves"][j]["discard"] = bad["moves"][j]["discard"][1:]
    case("hand_limit_count", "illegal", "hand_limit.count", "must discard", game=bad)
    bad = g(); bad["moves"].append({"seat": 0, "kind": "role", "role": "builder"})
    case("move_after_the_end", "illegal", "game.over", "the game is already over", game=bad)
    bad = g(); bad["moves"] = bad["moves"][:-5]
    case("game_not_over", "format", "moves", "but the game is not over", game=bad)
    bad = g(); bad["moves"][0] = {"seat": 0, "kind": "draft", "keep": []}
    case("draft_without_variant", "illegal", "turn.kind", "seat 0 must choose a role, not 'draft keep []'", game=bad)
    bad = g(); bad["setup"]["reshuffles"] = []
    case("missing_reshuffle", "format", "setup.reshuffles", "reshuffle 1 is missing", game=bad)
    bad = g(); bad["setup"]["reshuffles"][0][0] = "Palace" if bad["setup"]["reshuffles"][0][0] != "Palace" else "Hero"
    case("wrong_reshuffle", "format", "setup.reshuffles[0]", "is not an order of the", game=bad)
    bad = g(); bad["result"]["scores"][0] += 3
    case("wrong_result_scores", "result", "result.scores", "the log records", game=bad)
    bad = g(); bad["result"]["winners"] = [w for w in range(3) if w not in bad["result"]["winners"]][:1]
    case("wrong_result_winners", "result", "result.winners", "the log records winner seat(s)", game=bad)
    bad = g(); bad["result"]["scores"] = bad["result"]["scores"][:2]
    case("result_wrong_length", "result", "result.scores", "expected a list of 3 scores", game=bad)

    # --- strict JSON: what the standard forbids or leaves open ---------------------------------
    text = json.dumps(base)
    case("repeated_key", "format", None, "the key 'moves' appears twice in one object",
         data=(text[:-1] + ', "moves": "garbage"}').encode())
    case("repeated_key_in_move", "format", "moves[0]", "the key 'role' appears twice in one object",
         data=text.replace('"role": "builder"}', '"role": "builder", "role": "mayor"}', 1).encode())
    case("nan", "format", "meta.seed", "NaN is not a JSON number", data=text.replace('"seed": 2026006079', '"seed": NaN').encode())
    case("infinity", "format", "meta.seed[0]", "Infinity is not a JSON number",
         data=text.replace('"seed": 2026006079', '"seed": [Infinity]').encode())
    case("float_overflow", "format", "meta.seed", "1e999 is not a finite number",
         data=text.replace('"seed": 2026006079', '"seed": 1e999').encode())
    case("huge_integer", "format", "meta.seed", "an integer of 4300 digits is too large",
         data=text.replace('"seed": 2026006079', '"seed": ' + "9" * 4300).encode())
    case("integer_over_64_bits", "format", "meta.seed", "an integer of 20 digits is too large",
         data=text.replace('"seed": 2026006079', '"seed": 18446744073709551616').encode())
    case("surrogate_in_name", "format", "players[0].name", "a lone surrogate in 'An\\ud800a'",
         data=text.replace('"name": "Ana"', '"name": "An\\ud800a"').encode())
    case("surrogate_in_meta", "format", "meta.generator", "a lone surrogate in '\\udfff",
         data=text.replace('"generator": "governor', '"generator": "\\udfffgovernor').encode())
    case("surrogate_in_source_id", "format", "source_id", "a lone surrogate in 'sim\\ud83d",
         data=text.replace('"source_id": "sim', '"source_id": "sim\\ud83d').encode())
    case("surrogate_in_card", "format", "moves[1].building", "a lone surrogate in 'Aqueduct\\udc00'",
         data=text.replace('"building": "Aqueduct"', '"building": "Aqueduct\\udc00"', 1).encode())
    case("gzip_bomb", "format", None, "game is more than the limit of 16777216 bytes once decompressed",
         data=gzip.compress(b" " * 2**20, mtime=0) * 17 + gzip.compress(text.encode(), mtime=0), suffix=".json.gz")

    # --- a loose result, padded names, unused setup, control characters ------------------------
    bad = g(); bad["result"]["winners"] = 0
    case("winners_not_list", "format", "result.winners", "expected a list of seat numbers, got int", game=bad)
    bad = g(); bad["result"]["winners"] = [0, "a"]
    case("winners_mixed", "format", "result.winners[1]", "expected a seat number, got str", game=bad)
    bad = g(); bad["result"]["winners"] = [False]
    case("winners_false", "format", "result.winners[0]", "expected a seat number, got bool", game=bad)
    bad = g(); bad["result"]["scores"] = [float(v) for v in bad["result"]["scores"]]
    case("scores_floats", "format", "result.scores[0]", "expected an integer, got float", game=bad)
    bad = g(); bad["result"]["margin"] = 13
    case("unknown_result_field", "format", "result.margin", "unknown field 'margin' (known: scores, winners)", game=bad)
    bad = g(); bad["moves"][1]["building"] = " Aqueduct "
    case("padded_card_name", "format", "moves[1].building", "card name ' Aqueduct ' has spaces around it", game=bad)
    bad = g(); bad["setup"]["reshuffles"].append(list(bad["setup"]["reshuffles"][-1]))
    used = len(base["setup"]["reshuffles"])
    case("unused_reshuffle", "format", f"setup.reshuffles[{used}]", f"the game reshuffles {used} time(s) but the log records {used + 1}", game=bad)
    bad = g(); bad["players"][0]["name"] = "Ana\nbad: forged.json, game 1: fine"
    case("newline_in_name", "format", "players[0].name", "may not hold control characters: 'Ana\\nbad: forged.json", game=bad)
    bad = g(); bad["players"][1]["name"] = "\x1b[2J\x1b[31mBruno"
    case("escape_in_name", "format", "players[1].name", "may not hold control characters: '\\x1b[2J\\x1b[31mBruno'", game=bad)
    bad = g(); bad["source_id"] = "sim\r\u202eevil"
    case("control_in_source_id", "format", "source_id", "a source id may not hold control characters: 'sim\\r\\u202eevil'", game=bad)
    bad = g(); bad["moves"][1]["building"] = "Aqueduct\r"
    case("cr_in_card_name", "format", "moves[1].building", "card name 'Aqueduct\\r' has spaces around it", game=bad)
    bad = g(); bad["moves"][1]["seat"] = 2
    case("upper_case_suffix", "illegal", "turn.seat", "move 2, seat 2 (Carla), 'build Aqueduct", game=bad, suffix=".JSON")


def pr_cases() -> None:
    """Puerto Rico cases, built from its sample games when they exist."""
    files = sorted(PR.glob("*.json"))
    if not files:
        return
    base = load(files[0])

    def g() -> dict[str, Any]:
        return copy.deepcopy(base)

    n = len(base["players"])
    bad = g(); bad["players"] = bad["players"][:2]
    case("pr_two_players", "format", "players", "puerto_rico is for 3 to 5 players, not 2", game=bad)
    bad = g(); bad["moves"][0]["role"] = "producer"
    case("pr_unknown_role", "format", "moves[0].role", "unknown role 'producer'", game=bad)
    bad = g(); bad["moves"][0]["seat"] = (base["moves"][0].get("seat", 0) + 2) % n
    case("pr_wrong_seat", "illegal", "turn.seat", "'s turn", game=bad)
    bad = g(); bad["moves"][0]["kind"] = "teleport"
    case("pr_unknown_kind", "format", "moves[0].kind", "unknown move kind 'teleport'", game=bad)
    bad = g(); bad["moves"].append(copy.deepcopy(bad["moves"][0]))
    case("pr_move_after_the_end", "illegal", "game.over", "the game is already over", game=bad)
    bad = g(); bad["moves"] = bad["moves"][:-3]
    case("pr_game_not_over", "format", "moves", "but the game is not over", game=bad)
    bad = g(); bad["result"]["scores"][0] += 1
    case("pr_wrong_result", "result", "result.scores", "the log records", game=bad)
    bad = g(); bad["version"] = 9
    case("pr_future_version", "format", "version", "format version 9 is not supported", game=bad)
    bad = g(); j = [i for i, m in enumerate(bad["moves"]) if m["kind"] == "role"][2]
    bad["moves"][j]["role"] = bad["moves"][0]["role"]
    case("pr_role_taken", "illegal", "role.taken", "was already chosen this round", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["building"] = "Residence"
    case("pr_build_unaffordable", "illegal", "builder.cost", "Residence costs", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "build"); bad["moves"][j]["building"] = "Castle"
    case("pr_unknown_building", "format", f"moves[{j}].building", "unknown building 'Castle'", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "sell"); bad["moves"][j]["good"] = "gold"
    case("pr_unknown_good", "format", f"moves[{j}].good", "unknown good 'gold'", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "load" and m["ship"] != "wharf")
    bad["moves"][j]["good"] = "coffee" if bad["moves"][j]["good"] != "coffee" else "tobacco"
    case("pr_load_unowned_good", "illegal", "captain.goods", "to load", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "load" and m["ship"] != "wharf"); bad["moves"][j]["ship"] = "wharf"
    case("pr_wharf_not_owned", "illegal", "wharf.owned", "loading on the wharf needs an occupied wharf", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "load" and m["ship"] != "wharf"); bad["moves"][j] = {"seat": bad["moves"][j]["seat"], "kind": "pass"}
    case("pr_must_load", "illegal", "captain.must_load", "must load when a cargo ship can take goods", game=bad)
    bad = g(); chooser = {}
    for k, m in enumerate(bad["moves"]):
        if m["kind"] == "role":
            last = m["seat"]
        chooser[k] = last
    j = next(k for k, m in enumerate(bad["moves"]) if m["kind"] == "settle" and m["plantation"] != "quarry" and m["seat"] != chooser[k])
    bad["moves"][j]["plantation"] = "quarry"
    case("pr_quarry_not_allowed", "illegal", "settler.quarry", "construction hut", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "mayor"); bad["moves"][j]["buildings"] = {"Harbor": 1}
    case("pr_mayor_unowned_building", "illegal", "mayor.building", "owns no Harbor", game=bad)
    bad = g(); j = first(bad, lambda m: m["kind"] == "hacienda" or m["kind"] == "settle")
    bad["moves"][j] = {"seat": bad["moves"][j]["seat"], "kind": "hacienda"}
    case("pr_hacienda_not_owned", "illegal", "hacienda.owned", "drawing a face-down plantation needs an occupied hacienda", game=bad)
    bad = g(); bad["setup"]["plantations"] = bad["setup"]["plantations"][:-1]
    case("pr_stack_not_permutation", "format", "setup.plantations", "missing 1x indigo", game=bad)
    bad = g(); bad["setup"]["plantations"][0] = "banana"
    case("pr_unknown_plantation", "format", "setup.plantations[0]", "banana", game=bad)
    bad = g(); bad["options"] = {"variant": "nobles"}
    case("pr_unknown_option", "format", "options.variant", "unknown Puerto Rico option", game=bad)


def write() -> None:
    """Write every case and ``expected.json`` (what each rejection must say)."""
    sj_cases()
    pr_cases()
    LOGS.mkdir(exist_ok=True)
    for old in LOGS.iterdir():
        old.unlink()
    expected = {}
    for name, spec in sorted(CASES.items()):
        (LOGS / name).write_bytes(spec["data"])
        expected[name] = {k: spec[k] for k in ("kind", "rule", "contains")}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} bad logs to {LOGS}")


if __name__ == "__main__":
    write()
