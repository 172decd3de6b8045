# Two commands matter: `make demo` and `make test`. Both install into .venv what they need, idempotently.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The stamp changes whenever pyproject.toml does, so a dependency edit reinstalls and nothing else does.
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-16)
PIP_QUIET := 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true

.PHONY: install test demo lint bench clean

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

test: install
	$(PY) -m ruff check .
	$(PY) -m pytest

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

demo: install
	$(PY) -m sahab plan --stack smb
	$(PY) -m sahab plan --stack prod
