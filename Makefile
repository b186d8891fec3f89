# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean neo4j-launcher

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,neo4j,kuzu]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ebbtide demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Builds (once, cached in ~/.cache/ebbtide) the small Neo4j server the tests start. Without
# java and mvn the Neo4j tests skip, saying why; under CI=true they fail instead.
neo4j-launcher: $(STAMP)
	@if command -v java >/dev/null && command -v mvn >/dev/null; then \
		$(BIN)/python tests/neo4j_server.py --build-only || [ "$$CI" != "true" ]; \
	else echo "neo4j-launcher: java or mvn missing; Neo4j tests will skip"; fi

test: lint neo4j-launcher
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/core.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
