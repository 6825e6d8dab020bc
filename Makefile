# Two entry points (see README): `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/regime: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/regime
	$(BIN)/regime diagnose

test: $(BIN)/regime
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: $(BIN)/regime
	$(BIN)/python bench/throughput.py
	$(BIN)/python bench/cold_start.py
	$(BIN)/python bench/batch.py

clean:
	rm -rf $(VENV) build *.egg-info
