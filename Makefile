# The two commands of the README, and a few more.
.PHONY: demo test setup setup-test lint bench golden lock

DB ?= governor.duckdb
PORT ?= 8501

# Set up, import the sample logs into the default database, open the dashboard.
demo: setup
	.venv/bin/governor import sample_logs --db $(DB)
	.venv/bin/governor dashboard --db $(DB) --port $(PORT)

# Set up (with the test tools and Chromium) and run every test, the browser test included, on the
# compiled engines when setup could build them; then the engines' own tests again on the pure-Python
# engines (GOVERNOR_PURE=1), the other path. Each test module runs whole on one of the two workers
# (--dist loadscope): a module's fixtures, a dashboard server for the browser tests, start once.
# mypy checks the sources while the engines compile (mypyc works in a folder of its own).
test: setup-test
	.venv/bin/ruff check governor replay ingest dashboards analysis play tests bench
	.venv/bin/governor native & native=$$!; \
		.venv/bin/mypy governor replay ingest dashboards analysis play; checked=$$?; \
		wait $$native && exit $$checked
	.venv/bin/python -m pytest -n 2 --dist loadscope -q
	GOVERNOR_PURE=1 .venv/bin/python -m pytest -n 2 --dist loadscope -q $(PURE_TESTS)

# The tests of the rules, replay, observations and analysis, run on the pure-Python engines too (not
# the tests of reading files: their limits and strictness do not depend on the engines; nor the win
# chance's, which reads the observations that tests/replay/test_encode_seats.py checks on both).
PURE_TESTS = tests/analysis --ignore=tests/analysis/winchance tests/governor/envs $(filter-out \
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
