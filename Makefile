# Two commands matter: `make demo` (JupyterLab on the demo notebooks) and
# `make test` (everything CI runs). Each sets itself up from scratch.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
PORT ?= 8888

.PHONY: demo test setup lint typecheck pytest nbval jstest e2e browser bench clean

# The venv, the JS build and the package (editable) in one stamp, redone when
# the project's manifests change.
$(VENV)/.installed: pyproject.toml js/package.json js/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	cd js && npm ci --no-audit --no-fund
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

setup: $(VENV)/.installed

demo: setup
	@echo "Starting JupyterLab on notebooks/ (offline demo model unless OPENAI_API_KEY is set)."
	@echo "Open the URL printed below (it carries the login token)."
	$(VENV)/bin/jupyter lab --no-browser --ServerApp.root_dir=notebooks --port=$(PORT) \
		$(if $(filter 0,$(shell id -u)),--allow-root,)

# Debian's chromium drives the browser tests; install it where we may.
browser:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "Installing Debian's chromium for the browser tests..."; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "The browser tests need Chromium at $(CHROMIUM)."; \
			echo "Install it (Debian/Ubuntu: sudo apt-get install chromium) or run: make test CHROMIUM=/path/to/chromium"; \
			exit 1; \
		fi; \
	fi

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	cd js && npm run lint

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	$(VENV)/bin/pytest tests -m "not e2e" -q

nbval: setup
	$(VENV)/bin/pytest --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
		-p no:python -q notebooks

jstest: setup
	cd js && npm test

e2e: setup browser
	GU_CHROMIUM=$(CHROMIUM) $(VENV)/bin/pytest tests/e2e -m e2e -q

test: lint typecheck pytest nbval jstest e2e
	@echo "All checks passed."

bench: setup browser
	$(PY) -m pip install --quiet -e ".[test,bench]"
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) js/node_modules src/ipygenui/static
