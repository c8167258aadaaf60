"""The speed benchmark measured again for one game keeps the other games of its results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import bench_analysis_speed


def earlier(path: Path, rollouts: int = 100, seeds: list[int] | None = None) -> Path:
    path.write_text(json.dumps({
        "machine": {"cpu": "old"}, "rollouts": rollouts, "seeds": seeds or [1, 2, 3],
        "games": {"San Juan, 4 players": {"cpu_ratio": 0.2},
                  "Puerto Rico, 5 players": {"cpu_ratio": 0.3, "machine": {"cpu": "older"}}},
    }))
    return path


def test_the_games_not_measured_again_are_kept_with_their_machine(tmp_path: Path) -> None:
    kept = bench_analysis_speed._kept_games(earlier(tmp_path / "r.json"), 100, [1, 2, 3],
                                            {"Puerto Rico, 5 players"})
    assert kept == {"Puerto Rico, 5 players": {"cpu_ratio": 0.3, "machine": {"cpu": "older"}}}
    kept = bench_analysis_speed._kept_games(earlier(tmp_path / "r.json"), 100, [1, 2, 3], {"San Juan, 4 players"})
    assert kept == {"San Juan, 4 players": {"cpu_ratio": 0.2, "machine": {"cpu": "old"}}}


def test_other_settings_are_not_mixed(tmp_path: Path) -> None:
    out = earlier(tmp_path / "r.json", rollouts=40)
    with pytest.raises(SystemExit) as caught:
        bench_analysis_speed._kept_games(out, 100, [1, 2, 3], {"Puerto Rico, 5 players"})
    assert str(caught.value) == (f"bench_analysis_speed: {out} was measured with --rollouts 40 --seeds 1 2 3: "
                                 "give the same to keep its other games")


def test_no_earlier_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as caught:
        bench_analysis_speed._kept_games(tmp_path / "none.json", 100, [1, 2], {"Puerto Rico, 5 players"})
    assert str(caught.value).startswith(f"bench_analysis_speed: cannot keep the other games of {tmp_path / 'none.json'}: ")
