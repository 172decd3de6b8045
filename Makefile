# Two commands matter: `make demo` and `make test`. Both install into .venv what they need, idempotently.
SHELL := /bin/bash
# pipefail: a failed pip install fails the target even though its output is filtered.
.SHELLFLAGS := -o pipefail -ec
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The stamp changes whenever pyproject.toml does, so a dependency edit reinstalls and nothing else does.
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-16)
PIP_QUIET := 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }

.PHONY: install test demo lint bench clean host-deps azurite

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip $(PIP_QUIET)
	# CPU torch from the wheel on disk first, so nothing later pulls a multi-GB CUDA build.
	$(PY) -m pip install -q torch==2.13.0 $(PIP_QUIET)
	$(PY) -m pip install -q -e '.[dev,workload]' $(PIP_QUIET)
	$(PY) -c "import torch, pulumi, pulumi_aws, pulumi_azure_native, pulumi_kubernetes, pulumi_policy, ansible_runner"
	rm -f $(VENV)/.installed-*
	touch $@

test: install host-deps azurite
	$(PY) -m ruff check .
	$(PY) -m pytest

# The on-prem tests build real Debian 12 hosts with debootstrap (as root; they skip, saying why, otherwise).
host-deps:
	@if [ "$$(id -u)" = 0 ] && ! command -v debootstrap >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap openssh-client >/dev/null; \
	fi

# Azurite (Azure Storage emulator, npm) on loopback for the az:// checkpoint test; skipped without npm.
AZURITE := $(VENV)/azurite/node_modules/.bin/azurite-blob
azurite:
	@if [ ! -x $(AZURITE) ] && command -v npm >/dev/null; then \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/azurite azurite@3.37.0 >/dev/null; \
	fi

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# The main job on the embedded default: what the smb and prod stacks would build, and their policy verdicts.
demo: install
	$(PY) -m sahab plan --stack smb
	$(PY) -m sahab check --stack smb
	$(PY) -m sahab plan --stack prod
	$(PY) -m sahab check --stack prod
