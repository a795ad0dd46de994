# Two commands matter: `make demo` (JupyterLab on the demo notebooks) and
# `make test` (everything CI runs). Each sets itself up from scratch.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
PORT ?= 8888
LITE_VENV ?= .lite-venv

.PHONY: demo test setup peers lint typecheck pytest nbval jstest e2e packaging browser bench clean lite protocol

# The venv, the JS dependencies and the package (editable) in stamps, redone
# when the project's manifests change: one per set of extras, so the demo
# installs only JupyterLab and the checks add the test toolchain.
$(VENV)/.created:
	@echo "Creating the virtual environment in $(VENV) and updating pip (about 15 s)..."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	touch $@

js/node_modules/.package-lock.json: js/package.json js/package-lock.json
	@echo "Installing the widget's JS dependencies with npm ci (about 20 s)..."
	cd js && npm ci --no-audit --no-fund

# The reference peers the tests run against: the official AG-UI client and
# the MCP reference server (tests/peers/package.json).
tests/peers/node_modules/.package-lock.json: tests/peers/package.json tests/peers/package-lock.json
	@echo "Installing the test peers (@ag-ui/client, MCP server-everything) with npm ci (about 10 s)..."
	cd tests/peers && npm ci --no-audit --no-fund

peers: tests/peers/node_modules/.package-lock.json

$(VENV)/.installed-%: $(VENV)/.created pyproject.toml js/node_modules/.package-lock.json
	@echo "Installing ipygenui with its '$*' extra and building the widget ($(INSTALL_TIME_$*))..."
	$(PY) -m pip install --quiet -e ".[$*]"
	touch $@

INSTALL_TIME_demo := about 50 s on a fresh clone: JupyterLab, pandas, matplotlib
INSTALL_TIME_test := about 2 min on a fresh clone: JupyterLab, Playwright, mypy, ruff, pandas...

setup: $(VENV)/.installed-test

# The demo runs on a git-ignored copy of notebooks/, so JupyterLab's autosave
# never leaves the tracked notebooks modified. A copy is refreshed only when
# its tracked notebook is newer.
DEMO_DIR := .demo/notebooks
DEMO_NOTEBOOKS := $(patsubst notebooks/%,$(DEMO_DIR)/%,$(wildcard notebooks/*.ipynb))
# Files the notebooks use beside them (the agents notebook's MCP server script).
DEMO_FILES := $(patsubst notebooks/%,$(DEMO_DIR)/%,$(wildcard notebooks/*.py))

$(DEMO_DIR)/%.py: notebooks/%.py
	@mkdir -p $(DEMO_DIR)
	cp $< $@

$(DEMO_DIR)/%.ipynb: notebooks/%.ipynb
	@mkdir -p $(DEMO_DIR)
	@if [ -f $@ ]; then cp $@ $@.bak && echo "$< changed: your copy is kept as $@.bak"; fi
	cp $< $@

demo: $(VENV)/.installed-demo $(DEMO_NOTEBOOKS) $(DEMO_FILES)
	@echo "Starting JupyterLab on $(DEMO_DIR), a git-ignored copy of notebooks/"
	@echo "(offline demo model unless OPENAI_API_KEY is set)."
	@echo "Open the URL printed below (it carries the login token)."
	$(VENV)/bin/jupyter lab --no-browser --ServerApp.root_dir=$(DEMO_DIR) --port=$(PORT) \
		$(if $(filter 0,$(shell id -u)),--allow-root,)

# The JupyterLite site in lite/_output: the notebooks, ipygenui's wheel and the
# widget, run in the browser by Pyodide (lite/build.py), built in its own venv.
$(LITE_VENV)/.installed: lite/requirements-build.txt
	@echo "Creating the JupyterLite build environment in $(LITE_VENV) (about 20 s)..."
	$(PYTHON) -m venv $(LITE_VENV)
	$(LITE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LITE_VENV)/bin/python -m pip install --quiet -r lite/requirements-build.txt
	touch $@

lite: $(LITE_VENV)/.installed js/node_modules/.package-lock.json
	$(LITE_VENV)/bin/python lite/build.py

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

# The browser's side of the chat's and the workbench's wire protocols
# (js/src/protocol-wire.generated.js, js/src/workbench/protocol-wire.generated.js),
# generated from the pydantic models of src/ipygenui/{widget,workbench}/_protocol.py.
# The files are checked in: run this after changing a message; lint and a
# test say when one is stale.
WIRE_CODEGEN := ipygenui.widget._wire_codegen ipygenui.workbench._wire_codegen

protocol: setup
	for module in $(WIRE_CODEGEN); do $(PY) -m $$module || exit 1; done

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	for module in $(WIRE_CODEGEN); do $(PY) -m $$module --check || exit 1; done
	cd js && npm run lint

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup peers
	$(VENV)/bin/pytest tests -m "not e2e and not packaging" -q

# Binder's build from binder/ alone in a fresh venv (every notebook run with
# no key); a wheel built after a js/src edit; docs/install.md's commands run
# as written in fresh venvs (the wheel then installed with no Node and the
# quickstart run offline) in a clone named ipygenui, which runs the tests
# that read paths (tests/project/test_install.py): several minutes.
packaging: setup
	@echo "Building fresh environments and wheels from this checkout (about 8 min)..."
	$(VENV)/bin/pytest tests -m packaging -q

nbval: setup
	$(VENV)/bin/pytest --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
		-p no:python -q notebooks

jstest: setup
	cd js && npm test

# The documentation site in site/ (mkdocs.yml; open site/index.html): the six
# notebooks executed with the offline model, every snippet of the pages run,
# warnings (a broken link or anchor included) as errors; then every public
# name must be in the API reference, and the links to other hosts, which
# cannot be checked offline, are listed in site/external-links.txt.
.PHONY: docs
INSTALL_TIME_docs := about 1 min on a fresh clone: mkdocs-material, mkdocstrings, the demo's packages
docs: $(VENV)/.installed-docs
	@echo "Building the documentation site into site/ (about 80 s: it runs the six notebooks)..."
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	$(PY) docs/hooks/check_site.py site

e2e: setup peers browser lite
	GU_CHROMIUM=$(CHROMIUM) $(VENV)/bin/pytest tests/e2e -m e2e -q

test: lint typecheck pytest nbval jstest docs e2e packaging
	@echo "All checks passed."

bench: setup browser
	$(PY) -m pip install --quiet -e ".[test,bench]"
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) js/node_modules tests/peers/node_modules src/ipygenui/static .demo $(LITE_VENV) lite/_output lite/.cache lite/static
