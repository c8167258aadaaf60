# The two commands of the README, and a few more.
.PHONY: demo test setup setup-test lint bench golden

DB ?= governor.duckdb
PORT ?= 8501

# Set up, import the sample logs into the default database, open the dashboard.
demo: setup
	.venv/bin/governor import sample_logs --db $(DB)
	.venv/bin/governor dashboard --db $(DB) --port $(PORT)

# Set up (with the test tools and Chromium) and run every test, the browser test included, on the
# compiled engines when setup could build them; then the engines' own tests again on the pure-Python
# engines (GOVERNOR_PURE=1), the other path.
test: setup-test
	.venv/bin/ruff check governor replay ingest dashboards analysis tests bench
	.venv/bin/mypy governor replay ingest dashboards analysis
	.venv/bin/governor native
	.venv/bin/python -m pytest -n 2 -q
	GOVERNOR_PURE=1 .venv/bin/python -m pytest -n 2 -q $(PURE_TESTS)

# The tests of the rules, replay and analysis, run on the pure-Python engines too (not the load test's
# 10,000-game import, nor the tests of reading files and of the command line's exits).
PURE_TESTS = tests/san_juan tests/puerto_rico tests/analyse $(filter-out \
	tests/test_load.py tests/test_cli_exits.py tests/test_input_limits.py tests/test_strict_input.py \
	tests/test_log_schema.py, $(wildcard tests/test_*.py))

setup:
	./scripts/setup.sh

setup-test:
	./scripts/setup.sh --test

lint:
	.venv/bin/ruff check governor replay ingest dashboards analysis tests bench
	.venv/bin/mypy governor replay ingest dashboards analysis

bench: setup
	.venv/bin/python bench/run_all.py

golden: setup
	.venv/bin/governor golden --logs sample_logs --out tests/golden
