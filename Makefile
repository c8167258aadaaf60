# The two commands of the README, and a few more.
.PHONY: demo test setup setup-test lint bench golden lock

DB ?= governor.duckdb
PORT ?= 8501

# Set up, import the sample logs into the default database, open the dashboard.
demo: setup
	.venv/bin/governor import sample_logs --db $(DB)
	.venv/bin/governor dashboard --db $(DB) --port $(PORT)

# Set up (with the test tools and Chromium) and run every test, the browser test included, on the
# compiled engines when setup could build them, and the engines' own tests on the pure-Python engines
# (GOVERNOR_PURE=1), the other path. The engines compile on one core (about 2 minutes) while mypy checks
# the sources and the pure-Python run goes on beside it (it never loads the compiled engines), so that
# neither core waits. Each test module runs whole on one of the two workers (--dist loadscope): a
# module's fixtures, a dashboard server for the browser tests, start once.
test:
	./scripts/setup.sh --test --no-build
	.venv/bin/ruff check governor replay ingest dashboards analysis play tests bench
	.venv/bin/governor native build & build=$$!; \
		.venv/bin/mypy governor replay ingest dashboards analysis play; checked=$$?; \
		GOVERNOR_PURE=1 .venv/bin/python -m pytest -n 2 --dist loadscope -q $(PURE_TESTS); tested=$$?; \
		wait $$build; built=$$?; [ $$checked = 0 ] && [ $$tested = 0 ] && [ $$built = 0 ]
	.venv/bin/governor native
	.venv/bin/python -m pytest -n 2 --dist loadscope -q

# The tests of the rules, replay, observations and analysis, run on the pure-Python engines too (not
# the tests of reading files: their limits and strictness do not depend on the engines; nor the win
# chance's, which reads the observations that tests/replay/test_encode_seats.py checks on both; nor
# those of analysing a whole database or lake, stopped or not, which test the storing around the
# analysis that the other tests of tests/analysis check on both; nor those of how the analysis races
# its candidates and cuts its rollouts, which test its bookkeeping of rollouts on any workers, not
# the engines that the rollouts run on).
PURE_TESTS = tests/analysis --ignore=tests/analysis/winchance --ignore=tests/analysis/test_batch.py \
	--ignore=tests/analysis/test_batch_lake.py --ignore=tests/analysis/test_batch_stop.py \
	--ignore=tests/analysis/test_racing.py --ignore=tests/analysis/test_rollout_cutoff.py tests/governor/envs $(filter-out \
	tests/replay/test_input_limits.py tests/replay/test_strict_input.py tests/replay/test_log_schema.py \
	tests/replay/test_native.py, \
	$(wildcard tests/replay/test_*.py)) tests/replay/san_juan tests/replay/puerto_rico

setup:
	./scripts/setup.sh

setup-test:
	./scripts/setup.sh --test

lint:
	.venv/bin/ruff check governor replay ingest dashboards analysis play tests bench
	.venv/bin/mypy governor replay ingest dashboards analysis play

bench: setup
	.venv/bin/python bench/run_all.py

golden: setup
	.venv/bin/governor golden --logs sample_logs --out tests/golden

# Refresh constraints.txt, the tested versions setup installs: the newest the ranges in pyproject.toml
# allow today (uv's resolver); then run `make test` before committing it.
lock: setup
	.venv/bin/python -m pip install --quiet uv
	.venv/bin/uv pip compile pyproject.toml --extra test --extra cluster --extra native --extra env --universal \
		--python-version 3.11 --upgrade --annotation-style line --custom-compile-command "make lock" -o constraints.txt
