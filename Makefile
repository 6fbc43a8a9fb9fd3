# The two commands: `make demo` runs the sample weekend end to end; `make test` runs the tests.
# Both create or refresh the local virtualenv first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-long venv bytecode lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq -e '.[dev,airflow]'
	touch $(STAMP)

venv: $(STAMP)

# The project's modules compiled to bytecode, as an installed package has them: every command is a
# fresh process, and one that compiles its ~150 modules first spends 0.1-0.3 s on it (where
# PYTHONDONTWRITEBYTECODE is set, Python never keeps what it compiled; it still reads these).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 models parsers pipelines dags tests benchmarks sample_data

demo: bytecode
	$(BIN)/bridgeledger demo --workdir build/demo

# One worker per core (pytest-xdist); the tests of the log's PostgreSQL backend share one worker, so
# that one throwaway server is started (`tests/conftest.py`). A single file runs plainly with pytest.
PYTEST := $(BIN)/python -m pytest -q -n auto --dist loadgroup

test: lint bytecode
	$(PYTEST)

# The same tests with Hypothesis' long profile: every property test runs its full number of
# examples, randomly drawn (`make test` runs a quarter of them, the same ones each time).
test-long: lint bytecode
	HYPOTHESIS_PROFILE=long $(PYTEST)

lint: $(STAMP)
	$(BIN)/ruff check models parsers pipelines dags tests benchmarks sample_data
	$(BIN)/mypy

bench: bytecode
	$(BIN)/python -m benchmarks.bench_store
	$(BIN)/python -m benchmarks.bench_pbn
	$(BIN)/python -m benchmarks.bench_lin
	$(BIN)/python -m benchmarks.bench_scoring
	$(BIN)/python -m benchmarks.bench_site
	$(BIN)/python -m benchmarks.bench_ranking

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache
