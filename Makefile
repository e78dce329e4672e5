# Iris: two commands on a fresh machine.
#   make run   — set up, migrate, load demo data, serve on http://127.0.0.1:$(PORT)
#   make test  — set up, then the whole suite (SQLite unless DATABASE_URL says otherwise)

PORT ?= 8000
MCP_PORT ?= 8001
VENV := .venv
PY := $(VENV)/bin/python
# Finds a Python >= 3.12: $(PYTHON) if given, else python3.14..3.12 on PATH, else pyenv's.
FIND_PYTHON := for c in "$(PYTHON)" python3.14 python3.13 python3.12 \
	  $$(command -v pyenv >/dev/null 2>&1 && ls -d "$$(pyenv root)"/versions/3.1[2-9]*/bin/python 2>/dev/null | sort -rV) python3; do \
	  [ -n "$$c" ] || continue; \
	  if "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then echo "$$c"; exit 0; fi; \
	done; exit 1

.PHONY: run test install migrate lint check client

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	@py="$$($(FIND_PYTHON))" || { echo "Iris needs Python >= 3.12 (Django 6). Install one, or run: make $(MAKECMDGOALS) PYTHON=/path/to/python3.12" >&2; exit 1; }; \
	echo "Using $$py ($$("$$py" --version))"; \
	[ -x $(PY) ] || "$$py" -m venv $(VENV)
	@pkg-config --exists icu-uc 2>/dev/null || { echo "Iris needs ICU's headers to build PyICU: apt-get install libicu-dev pkg-config g++" >&2; exit 1; }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@# The Python client (clients/python), with its generator: its tests run with the suite.
	$(PY) -m pip install --quiet -e './clients/python[generate]'
	@touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	@mkdir -p .run
	@# A database written before encryption at rest is sealed in place (a no-op once done).
	@$(PY) manage.py keys_encrypt --no-progress > .run/keys-encrypt.txt
	@DEBUG=$${DEBUG:-true} $(PY) manage.py seed_demo > .run/logins-$(PORT).txt
	@# No worker is alive yet: hand back any task a killed previous run left RUNNING.
	@$(PY) manage.py recover_stalled_tasks --lease-seconds 0
	@export DEBUG=$${DEBUG:-true}; trap 'kill 0' INT TERM EXIT; \
	$(PY) manage.py db_worker --queue-name default & \
	$(PY) manage.py crontask & \
	$(PY) manage.py mcp_serve --port $(MCP_PORT) --issuer-url http://127.0.0.1:$(PORT)/ & \
	$(PY) manage.py runserver 127.0.0.1:$(PORT) --noreload & \
	for _ in $$(seq 60); do $(PY) -c 'import socket,sys; [socket.create_connection(("127.0.0.1", p), 1) for p in ($(PORT), $(MCP_PORT))]' 2>/dev/null && break; sleep 0.5; done; \
	cat .run/logins-$(PORT).txt; \
	echo "MCP server (streamable HTTP, a service client's bearer token): http://127.0.0.1:$(MCP_PORT)/mcp"; \
	echo "Iris is running on http://127.0.0.1:$(PORT)/  (API docs: /api/docs/, admin: /admin/; mail is printed here)"; \
	echo "Worker and scheduler say only warnings; IRIS_VERBOSE_JOBS=true shows their progress. Ctrl-C stops."; \
	wait

CHROMIUM ?= /usr/bin/chromium

test: install
	$(VENV)/bin/pytest $(PYTEST_ARGS)
	@if [ "$(BROWSER_TESTS)" = "no" ]; then \
	  echo "Browser tests not run (BROWSER_TESTS=no)."; \
	elif [ -x "$(CHROMIUM)" ]; then \
	  echo "Browser tests (Chromium at $(CHROMIUM)):"; \
	  IRIS_CHROMIUM="$(CHROMIUM)" DJANGO_ALLOW_ASYNC_UNSAFE=true $(VENV)/bin/pytest -m browser tests/browser; \
	else \
	  echo "SKIPPED the browser tests: no Chromium at $(CHROMIUM) (apt-get install chromium)."; \
	fi

# Regenerate the Python client's operations and models from the current OpenAPI schema.
client: install
	$(PY) clients/python/generate.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
