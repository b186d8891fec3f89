# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,neo4j]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ebbtide demo

lint: $(STAMP)
	$(BIN)/ruff check .

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/core.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
