"""Supported systems are data: each role's repository tasks, rendered by Ansible's templating for a host's facts,
point at that distribution's and architecture's repositories, with keys checked against shipped fingerprints.

The test hosts are Debian 12, so Ubuntu 22.04 and 24.04 (and arm64) are proven here, by rendering the very task
arguments the roles pass to sahab_apt_source with the group variables and role defaults Ansible would use.
To refresh the data: read each source named in ansible/group_vars/all/distributions.yml again, update the
entries and `sahab_distribution_data_read`.
"""

from __future__ import annotations

import datetime
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from sahab.components.onprem.runner import ANSIBLE_DIR

from tests.components.onprem.test_kubeadm_rendering import render

ROLES = ANSIBLE_DIR / "roles"
GROUP_VARS = {k: v for f in sorted((ANSIBLE_DIR / "group_vars/all").glob("*.yml"))
              for k, v in yaml.safe_load(f.read_text()).items()}
STALE_AFTER_DAYS = 365


def facts(distribution: str, version: str, architecture: str = "x86_64", kernel: str = "6.8.0-48-generic"):
    return {"distribution": distribution, "distribution_version": version,
            "distribution_major_version": version.split(".")[0], "architecture": architecture, "kernel": kernel,
            "os_family": "Debian", "is_chroot": False}


def variables(host_facts: dict, role: str) -> dict:
    """What a role's tasks see: group variables, the role's defaults, the host's facts; templated lazily."""
    defaults = yaml.safe_load((ROLES / role / "defaults/main.yml").read_text())
    return {**GROUP_VARS, **defaults, "ansible_facts": host_facts, "sahab_kubernetes_version": "1.34"}


def repository_tasks(role: str, tasks_file: str = "main.yml") -> list[dict]:
    tasks = yaml.safe_load((ROLES / role / "tasks" / tasks_file).read_text())
    return [t["vars"] for t in tasks
            if t.get("ansible.builtin.include_role", {}).get("name") == "sahab_apt_source"]


def resolve(value, context: dict):
    """Template a value until no expression is left (role defaults refer to group variables and facts)."""
    for _ in range(6):
        if isinstance(value, str) and "{{" in value:
            value = render(value, **context)
        elif isinstance(value, list):
            return [resolve(v, context) for v in value]
        else:
            return value.strip() if isinstance(value, str) else value
    return value


def sources(host_facts: dict, role: str, tasks_file: str = "main.yml") -> list[dict]:
    context = variables(host_facts, role)
    for name in ("sahab_system", "sahab_system_data", "sahab_architecture"):  # in the order they build on
        context[name] = resolve(context[name], context)
    return [{k: resolve(v, context) for k, v in task.items()} for task in repository_tasks(role, tasks_file)]


UBUNTU_2404 = facts("Ubuntu", "24.04")


def test_ubuntu_24_04_gets_dockers_ubuntu_noble_repository():
    (docker,) = sources(UBUNTU_2404, "sahab_containerd")
    assert docker["sahab_apt_source_uris"] == "https://download.docker.com/linux/ubuntu"
    assert docker["sahab_apt_source_suites"] == "noble"
    assert docker["sahab_apt_source_components"] == ["stable"]
    assert docker["sahab_apt_source_key_url"] == "https://download.docker.com/linux/ubuntu/gpg"
    assert docker["sahab_apt_source_fingerprints"] == ["9DC858229FC7DD38854AE2D88D81803C0EBFCD88"]


@pytest.mark.parametrize(("architecture", "cuda_arch", "deb_arch"), [("x86_64", "x86_64", "amd64"),
                                                                     ("aarch64", "sbsa", "arm64")])
def test_ubuntu_24_04_gets_cuda_ubuntu2404_for_its_architecture(architecture, cuda_arch, deb_arch):
    cuda, toolkit = sources(facts("Ubuntu", "24.04", architecture), "sahab_nvidia", "install.yml")
    assert cuda["sahab_apt_source_uris"] == (
        f"https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/{cuda_arch}/")
    assert cuda["sahab_apt_source_key_url"].endswith(f"/ubuntu2404/{cuda_arch}/3bf863cc.pub")
    assert cuda["sahab_apt_source_fingerprints"] == ["EB693B3035CD5710E231E123A4B469963BF863CC"]
    assert toolkit["sahab_apt_source_uris"] == f"https://nvidia.github.io/libnvidia-container/stable/deb/{deb_arch}/"
    assert toolkit["sahab_apt_source_fingerprints"] == ["C95B321B61E88C1809C4F759DDCAE044F796ECB0"]


@pytest.mark.parametrize(("distribution", "version", "docker", "suite", "cuda"), [
    ("Debian", "12.7", "linux/debian", "bookworm", "debian12"),
    ("Ubuntu", "22.04", "linux/ubuntu", "jammy", "ubuntu2204"),
    ("Ubuntu", "24.04", "linux/ubuntu", "noble", "ubuntu2404"),
])
def test_every_supported_system_renders_its_own_repositories(distribution, version, docker, suite, cuda):
    host = facts(distribution, version)
    (docker_source,) = sources(host, "sahab_containerd")
    assert docker_source["sahab_apt_source_uris"] == f"https://download.docker.com/{docker}"
    assert docker_source["sahab_apt_source_suites"] == suite
    cuda_source, _ = sources(host, "sahab_nvidia", "install.yml")
    assert f"/repos/{cuda}/x86_64/" in cuda_source["sahab_apt_source_uris"]
    (kubernetes,) = sources(host, "sahab_kubernetes")
    assert kubernetes["sahab_apt_source_uris"] == "https://pkgs.k8s.io/core:/stable:/v1.34/deb/"
    assert kubernetes["sahab_apt_source_suites"] == "/"
    assert kubernetes["sahab_apt_source_fingerprints"] == ["DE15B14486CD377B9E876E1A234654DA9A296436"]


def supported(host_facts: dict) -> tuple[bool, str]:
    """sahab_os's own up-front check, rendered for these facts."""
    tasks = yaml.safe_load((ROLES / "sahab_os/tasks/main.yml").read_text())
    check = tasks[0]["ansible.builtin.assert"]
    context = {**GROUP_VARS, "ansible_facts": host_facts, "inventory_hostname": "node-1"}
    context["sahab_system"] = resolve(GROUP_VARS["sahab_system"], context)
    ok = all(render("{{ " + condition + " }}", **context) for condition in check["that"])
    return ok, render(check["fail_msg"], **context)


@pytest.mark.parametrize(("distribution", "version", "architecture"), [
    ("Debian", "12.7", "x86_64"), ("Debian", "12.7", "aarch64"), ("Ubuntu", "22.04", "x86_64"),
    ("Ubuntu", "24.04", "aarch64")])
def test_the_supported_systems_pass_the_up_front_check(distribution, version, architecture):
    assert supported(facts(distribution, version, architecture))[0]


@pytest.mark.parametrize(("distribution", "version", "architecture"), [
    ("Debian", "11.9", "x86_64"), ("Debian", "13.1", "x86_64"), ("Ubuntu", "20.04", "x86_64"),
    ("Ubuntu", "24.10", "x86_64"), ("Rocky", "9.4", "x86_64"), ("Ubuntu", "24.04", "ppc64le")])
def test_anything_else_is_refused_up_front_with_the_list(distribution, version, architecture):
    ok, message = supported(facts(distribution, version, architecture))
    assert not ok
    assert "Debian-12, Ubuntu-22.04, Ubuntu-24.04 on x86_64, aarch64" in message


def test_the_data_says_when_it_was_read_and_is_fresh():
    read = datetime.date.fromisoformat(str(GROUP_VARS["sahab_distribution_data_read"]))
    age = (datetime.date.today() - read).days
    assert age <= STALE_AFTER_DAYS, (
        f"the distribution data was read {age} days ago: read each source named in "
        "ansible/group_vars/all/distributions.yml again, update it and sahab_distribution_data_read")


def test_every_fingerprint_is_a_full_v4_fingerprint():
    for name, fingerprints in GROUP_VARS["sahab_apt_keys"].items():
        for fingerprint in fingerprints:
            assert len(fingerprint) == 40 and int(fingerprint, 16) >= 0, name


@pytest.fixture(scope="module")
def gpg_key(tmp_path_factory) -> Iterator[tuple[str, str]]:
    """An OpenPGP key made with gpg, and gpg's own fingerprint of it."""
    home = tmp_path_factory.mktemp("gnupg")
    try:
        subprocess.run(["gpg", "--homedir", str(home), "--batch", "--passphrase", "", "--quick-gen-key",
                        "Sahab test <test@example.invalid>", "ed25519", "default", "never"],
                       check=True, capture_output=True, timeout=60)
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"gpg cannot make a test key here: {exc}")
    armored = subprocess.run(["gpg", "--homedir", str(home), "--armor", "--export"], check=True,
                             capture_output=True, text=True).stdout
    listing = subprocess.run(["gpg", "--homedir", str(home), "--with-colons", "--list-keys"], check=True,
                             capture_output=True, text=True).stdout
    fingerprint = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))
    yield armored, fingerprint
    # gpg started an agent for this home; it would outlive the run (one gpg-agent daemon left per suite run)
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "gpg-agent"], capture_output=True, timeout=30)


def key_check(content: str, fingerprints: list[str]) -> bool:
    tasks = yaml.safe_load((ROLES / "sahab_apt_source/tasks/main.yml").read_text())
    check = next(t for t in tasks if "ansible.builtin.assert" in t)["ansible.builtin.assert"]
    return render("{{ " + check["that"] + " }}", sahab_apt_source_key={"content": content},
                  sahab_apt_source_fingerprints=fingerprints)


def test_a_downloaded_key_is_trusted_only_with_a_shipped_fingerprint(gpg_key):
    armored, fingerprint = gpg_key
    assert key_check(armored, [fingerprint])
    spaced = " ".join(fingerprint[i:i + 4] for i in range(0, 40, 4)).lower()  # as vendors print them
    assert key_check(armored, [spaced])
    assert not key_check(armored, ["9DC858229FC7DD38854AE2D88D81803C0EBFCD88"])


def test_not_a_key_fails_the_check(gpg_key):
    with pytest.raises(Exception, match="OpenPGP"):
        key_check("<html>captive portal</html>", ["9DC858229FC7DD38854AE2D88D81803C0EBFCD88"])


def test_python3_debian_is_installed_before_any_deb822_repository():
    tasks = yaml.safe_load((ROLES / "sahab_apt_source/tasks/main.yml").read_text())
    modules = [next(k for k in t if k.startswith("ansible.builtin.")) for t in tasks]
    install = next(i for i, t in enumerate(tasks) if "python3-debian" in str(t.get("ansible.builtin.apt", "")))
    assert install < modules.index("ansible.builtin.deb822_repository")
    # and no role adds a repository any other way
    for tasks_file in Path(ROLES).glob("*/tasks/*.yml"):
        if tasks_file.parts[-3] != "sahab_apt_source":
            assert "deb822_repository" not in tasks_file.read_text(), tasks_file
