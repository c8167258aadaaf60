"""The agents: built-in ones named on the command line, users' ones loaded from a module or a file,
what a seat sees, and the search agent's choice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from play.agents import AgentError, bot_version, load_agent, make_engine_bot
from play.views import seat_view
from replay.registry import engine_for


def test_load_agent_errors(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match=r"^unknown agent 'best' \(built-in: random, heuristic, expert, search, search:R;"):
        load_agent("best", "san_juan")
    with pytest.raises(AgentError, match="no such file"):
        load_agent(str(tmp_path / "missing.py"), "san_juan")
    broken = tmp_path / "broken.py"
    broken.write_text("raise ValueError('nope')\n")
    with pytest.raises(AgentError, match=r"ValueError while loading: nope"):
        load_agent(str(broken), "san_juan")
    assert load_agent("search:3", "san_juan").name == "search:3"


@pytest.mark.parametrize(("game", "versions"), [
    # San Juan's expert values its cards since version 2; the searches play with it, so they say so. The
    # analysis' search is version 3 since its race looks for a better move than the prior's.
    ("san_juan", {"random": "1", "heuristic": "1", "expert": "2", "search": "3+expert2", "search:20": "1+expert2"}),
    ("puerto_rico", {"random": "1", "heuristic": "1", "expert": "1", "search": "3", "search:20": "1"}),
])
def test_an_agent_is_of_the_version_of_the_bots_it_plays_with(game: str, versions: dict[str, str]) -> None:
    assert {spec: load_agent(spec, game).version for spec in versions} == versions


def test_a_bot_a_game_does_not_declare_is_refused() -> None:
    with pytest.raises(AgentError, match=r"^unknown bot 'random'$"):
        make_engine_bot("san_juan", "random", 1)
    with pytest.raises(AgentError, match=r"^San Juan has no 'best' bot \(bots: heuristic, random, expert\)$"):
        bot_version("san_juan", "best")


def test_seat_view_hides_other_hands_and_the_next_tile() -> None:
    engine = engine_for("san_juan")
    log = engine.new_random_game(["A", "B", "C"], 7, {})
    state = engine.simulation_state(log, 7)
    view = seat_view("san_juan", state, 1, ["A", "B", "C"])
    assert ["hand" in p for p in view["players"]] == [False, True, False]
    assert [p["hand_size"] for p in view["players"]] == [len(p.hand) for p in state.players]
    assert "next_tile" not in view and view["seat"] == 1
    hidden = set(state.players[0].hand) | set(state.players[2].hand) | set(state.draw_pile)
    own = set(state.players[1].hand)
    text = json.dumps(view)
    assert all(name in text for name in own)
    # No hidden card appears unless a visible one has the same name.
    assert all(name not in text for name in hidden - own - {b for p in state.players for b in p.buildings})


@pytest.mark.parametrize(("game", "bot"), [("san_juan", "expert"), ("puerto_rico", "heuristic")])
def test_search_rolls_out_with_the_games_rollout_bot(game: str, bot: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search:R`` is the analysis' machinery: its rollouts are played by the bot the game declares
    for ``governor analyse`` (San Juan's expert, Puerto Rico's heuristic bot), whose choice is its
    first candidate, and R rollouts are asked for each candidate."""
    import analysis.rollouts
    from play.agents import make_engine_bot

    asked: list[analysis.rollouts.RolloutTask] = []
    real = analysis.rollouts.run_task

    def spy(task: analysis.rollouts.RolloutTask) -> analysis.rollouts.RolloutResult:
        asked.append(task)
        return real(task)

    monkeypatch.setattr(analysis.rollouts, "run_task", spy)
    engine = engine_for(game)
    names = ["A", "B", "C"]
    state = engine.simulation_state(engine.new_random_game(names, 5, {}), 5)
    while len(engine.legal_moves(state)) < 3:
        state = engine.apply(state, engine.legal_moves(state)[0])
    agent = load_agent("search:2", game)
    agent.reset(9)  # type: ignore[attr-defined]
    move = agent.choose_working(engine.working(state))  # type: ignore[attr-defined]
    assert len(asked) == 1 and asked[0].bot == bot and asked[0].count == 2
    prior = make_engine_bot(game, bot, 9).choose_working(engine.working(state))
    assert asked[0].candidates[0] == engine.canonical_move(prior)
    assert move in asked[0].candidates


def test_search_plays_the_rollout_bots_move_unless_another_is_clearly_better() -> None:
    """A candidate beats the rollout bot's move (candidate 0) only by more than twice the standard error
    of the difference of their shares of wins: with 20 rollouts 12 wins against 10 is noise, 18 against
    5 is not; with 100, 65 against 50 is enough and 62 is not."""
    from play.agents import preferred

    assert preferred([10, 12, 11], [20, 20, 20]) == 0
    assert preferred([5, 18, 11], [20, 20, 20]) == 1
    assert preferred([50, 65], [100, 100]) == 1
    assert preferred([50, 62], [100, 100]) == 0
    assert preferred([10, 10], [20, 20]) == 0  # equals: the first
    assert preferred([0, 0, 20], [20, 20, 20]) == 2  # a sure win against a sure loss
    assert preferred([0, 3, 4], [0, 20, 20]) == 2  # the bot's move never played: the best share
    assert preferred([2.5, 9], [20, 10]) == 1  # shares, not sums: 0.125 against 0.9 of fewer rollouts
    assert preferred([7.5, 7], [20, 10]) == 0  # 0.375 against 0.7: within the margin of 10 rollouts
