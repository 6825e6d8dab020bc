# Two entry points (see README): `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-fast typecheck lint bench differential fuzz clean

$(BIN)/regime: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# setuptools' 'Editable installation' banner warns of a folder named like the package: regime/ is that package
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# Every built-in case's verdict in one table, one case's full report, and how to see the others.
DEMO_CASE := cases/b_training_run.yaml
demo: $(BIN)/regime
	@$(BIN)/regime diagnose --quiet
	@echo
	@$(BIN)/regime diagnose $(DEMO_CASE)
	@echo
	@echo "Any case: $(BIN)/regime diagnose cases/NAME.yaml (NAME from the table); the whole report: add --full"
	@echo "  as Markdown or JSON: add -f markdown or -f json"
	@echo "  as HTML with charts: $(BIN)/regime report -o report, then open report/index.html"

# pytest-xdist: one worker per CPU (-n auto), so two cores run the suite in about half the time.
# The `dask` tests start a cluster of their own (2 worker processes): one pytest process, after.
test: $(BIN)/regime typecheck
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto -m "not dask"
	$(BIN)/python -m pytest -q -m dask tests/test_distributed.py

# mypy on the package, followed through regime/'s links from the checkout.
typecheck: $(BIN)/regime
	$(BIN)/mypy -p regime

# The edit loop: in-process tests only (no fresh interpreters, fuzzing or differential runs).
test-fast: $(BIN)/regime
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n auto -m "not slow and not e2e"

bench: $(BIN)/regime
	$(BIN)/python bench/throughput.py
	$(BIN)/python bench/cold_start.py
	$(BIN)/python bench/batch.py
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/roofline_matrix.py --quiet

# Both evaluators on >= 10,000 generated and mutated cases (and every shipped and corpus case):
# byte-identical reports or identical errors, else exit 1. A few minutes.
differential: $(BIN)/regime
	$(BIN)/python tests/differential.py --generated 6000 --mutated 4500

# The long fuzz profile (the suite runs a bounded, fixed-seed one): fresh seed, counts per class.
fuzz: $(BIN)/regime
	$(BIN)/python bench/fuzz.py

clean:
	rm -rf $(VENV) build *.egg-info
