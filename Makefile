# Two commands for a fresh machine: `make play` and `make test`; the rest are shortcuts
# for everyday commands (`make help` lists them).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: help play serve author demo validate check snapshot test lint fuzz chromium bench screenshots clean

RUN ?= runs/demo
OUT ?= $(RUN)-validation
PORT ?= 8000
CHROMIUM := /usr/bin/chromium
STRACE := /usr/bin/strace

help:
	@echo "make play                      the dashboard on a new run under runs/"
	@echo "make serve [PORT=8000]         the same app in a browser"
	@echo "make author                    author tools: check, validate finished runs, reports"
	@echo "make demo                      play, validate and summarise the default campaign"
	@echo "make validate RUN=dir [OUT=d]  offline evaluation of a finished run"
	@echo "make check                     author checks of the default campaign"
	@echo "make snapshot RUN=dir          the player's public view of a run, as JSON"
	@echo "make test                      lint and the whole test suite (installs chromium, strace)"
	@echo "make bench                     every benchmark"
	@echo "make screenshots               regenerate docs/screenshots/*.svg"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The workbench alone for the commands that use it (the benchmarks too: they import only
# the workbench's own dependencies); the test extra (pytest, linters, Playwright) only for
# lint, test and fuzz.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

play: $(STAMP)
	$(BIN)/workbench play

serve: $(STAMP)
	$(BIN)/workbench serve --port $(PORT)

author: $(STAMP)
	$(BIN)/workbench author

validate: $(STAMP)
	$(BIN)/workbench validate counterfactual --results $(RUN) --out $(OUT)

check: $(STAMP)
	$(BIN)/workbench check

snapshot: $(STAMP)
	$(BIN)/workbench snapshot $(RUN)

# Debian's chromium for the real-browser test of `workbench serve` (never a downloaded one).
chromium: $(CHROMIUM)

$(CHROMIUM):
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

# Debian's strace for the crash tests: real processes killed and failed at each system call.
$(STRACE):
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y strace

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: the suite starts its own
# Python processes (hosts, CLI runs, Dask workers), and each compiled the package again.
test: lint $(CHROMIUM) $(STRACE)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

# 10,000 hypothesis cases against the real CLI; prints cases tried, exit codes, tracebacks.
fuzz: $(TEST_STAMP)
	CFWB_FUZZ=full $(BIN)/python -m pytest tests/fuzz tests/host/test_api_mutations.py tests/host/test_mcp_mutations.py -q

demo: $(STAMP)
	$(BIN)/workbench demo

bench: $(STAMP)
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

screenshots: $(STAMP)
	$(BIN)/python docs/make_screenshots.py

clean:
	rm -rf $(VENV)
