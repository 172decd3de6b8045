# Two commands matter: `make demo` and `make test`. Both install into .venv what they need, idempotently.
SHELL := /bin/bash
# pipefail: a failed pip install fails the target even though its output is filtered.
.SHELLFLAGS := -o pipefail -ec
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Every dependency is pinned, with the hash of every file of its version, in the lock files (`make lock`
# regenerates them: tools/lock.py); they install on CPython 3.11-3.13 on Linux, macOS and Windows.
LOCKS := requirements.lock requirements-dev.lock requirements-pack.lock requirements-release.lock
# The stamp changes whenever pyproject.toml or a lock does, so a dependency edit reinstalls and nothing else does.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCKS) 2>/dev/null | sha256sum | cut -c1-16)
PIP_QUIET := 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }

.PHONY: bytecode install lock lock-verify test test-site demo lint bench clean host-deps azurite policy-pack dist

install: $(STAMP)

$(STAMP): pyproject.toml $(LOCKS)
	@$(PYTHON) tools/lock.py check
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# Exactly what the lock names, hashes checked, no resolver (torch: the CPU 2.13.0 wheel on disk).
	$(PY) -m pip install -q --require-hashes --no-deps -r requirements-dev.lock $(PIP_QUIET)
	# setuptools warns about each data folder of sahab.playbook (ansible/); they are data, not packages.
	PYTHONWARNINGS=ignore $(PY) -m pip install -q --no-deps --no-build-isolation -e . $(PIP_QUIET)
	$(PY) -m pip check
	$(PY) -c "import torch, pulumi, pulumi_aws, pulumi_azure_native, pulumi_kubernetes, pulumi_policy, ansible_runner"
	rm -f $(VENV)/.installed-*
	touch $@

# The checkout's own modules compiled once (pip compiles what it installs; an editable install's source is not). The
# tests start hundreds of Python processes that import it, and where PYTHONDONTWRITEBYTECODE is set each one would
# compile it again: ~1.4 s of CPU per `sahab check --stack smb`. Only sources newer than their bytecode are compiled.
bytecode: install
	$(PY) -m compileall -q -j 0 sahab components policies workloads tests tools benchmarks ansible stacks

# Resolve pyproject.toml again (uv, for every platform at once) and rewrite the lock files; commit them.
# The workload image's locks are cut from the new dev lock once .venv holds it (tools/lock.py image).
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) tools/lock.py compile
	$(MAKE) install
	$(PY) tools/lock.py image

# pip resolves each lock for other machines (macOS, Windows, Linux aarch64; other Pythons), hashes required.
# The .venv's pip (the dev lock's, 25.1+): an older pip judges Requires-Python by its own interpreter.
lock-verify: install
	$(PY) tools/lock.py verify

# Three workers (pytest-xdist) on the two cores CI has: the host, tunnel and fleet tests spend part of their time
# waiting (SSH, a rendezvous, a late node), and a third worker's tests fill those waits (on one 2-core machine:
# 526 to 577 s in five runs, against 603 and 625 s with two workers). Each module, and the test hosts, stay on one
# worker; `alone` tests run with nothing beside them; the stack plans and the wheel's virtualenv are made once for
# all workers (tests/conftest.py, tests/workers.py).
TEST_WORKERS ?= 3
test: install host-deps azurite bytecode
	$(PY) -m ruff check .
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup

# The multi-host on-prem scenarios (root): Sahab's playbooks form, grow, repair and upgrade a cluster of test hosts
# running the stand-in kubeadm (tests/e2e/multihost). One JSON line per scenario; exits non-zero if any fails.
test-site: install host-deps bytecode
	$(PY) -m tests.e2e.multihost.run

# The on-prem tests build real Debian 12 hosts with debootstrap (as root; they skip, saying why, otherwise); the
# site tests package stand-ins (dpkg-scanpackages), the key and firewall checks use gpg and nft -c.
# The registry tests seed and pin a real registry on loopback: skopeo, docker-registry (distribution 2.8),
# htpasswd (apache2-utils) and openssl.
host-deps:
	@if [ "$$(id -u)" = 0 ] && ! { command -v debootstrap && command -v dpkg-scanpackages && command -v gpg \
	    && command -v nft; } >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap openssh-client \
	    dpkg-dev gnupg nftables >/dev/null; \
	fi
	@# Debian's chromium: Playwright prints the evidence page to PDF through it (never a browser it downloads).
	@if [ "$$(id -u)" = 0 ] && ! command -v chromium >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@# The site-gateway test: two gateway hosts in network namespaces (iproute2: ip netns, veth), the outer link
	@# captured with tcpdump. The gateways' own strongSwan and FRR come from a package snapshot beside the base image.
	@if [ "$$(id -u)" = 0 ] && ! { command -v tcpdump && command -v ip && command -v nsenter; } >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tcpdump iproute2 util-linux >/dev/null; \
	fi
	@if [ "$$(id -u)" = 0 ] && ! { command -v skopeo && command -v docker-registry && command -v htpasswd; } >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq skopeo docker-registry apache2-utils openssl >/dev/null; \
	fi

# Azurite (Azure Storage emulator, npm) on loopback for the az:// checkpoint test; skipped without npm.
AZURITE := $(VENV)/azurite/node_modules/.bin/azurite-blob
azurite:
	@if [ ! -x $(AZURITE) ] && command -v npm >/dev/null; then \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/azurite azurite@3.37.0 >/dev/null; \
	fi

lint: install
	$(PY) -m ruff check .

# The publishable CrossGuard pack (self-contained, own virtualenv): cd dist/policy-pack && pulumi policy publish ORG
# The standard library alone builds it (no .venv): a copy of policies/ and requirements-pack.lock.
policy-pack:
	$(PYTHON) tools/policy_pack.py dist/policy-pack

# The sdist and wheel in dist/, checked as PyPI would (the release workflow does the same on a tag).
dist: install
	rm -rf dist/sahab-*.tar.gz dist/sahab-*.whl
	PYTHONWARNINGS=ignore $(PY) -m build --no-isolation --outdir dist .
	$(PY) -m twine check --strict dist/sahab-*.tar.gz dist/sahab-*.whl

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# The main job on the embedded default: what the smb and prod stacks would build, and their policy verdicts.
# Per stack: resources by kind, readiness and placements, the policy verdict with waivers by rule (tools/demo.py).
# VERBOSE=1 adds everything `sahab plan` and `sahab check` print.
demo: install
	$(PY) tools/demo.py $(if $(VERBOSE),--verbose) smb prod
