"""Which exact Kubernetes version a node runs (filter_plugins/sahab_kubeadm.py, `sahab_kubernetes_release`):
a new node gets the running cluster's exact version, a new cluster the newest of its minor, a new minor is an
upgrade of one minor, and anything else is refused with the version to set first."""

from __future__ import annotations

import importlib.util

import pytest
from sahab.components.onprem.runner import ANSIBLE_DIR

_spec = importlib.util.spec_from_file_location("sahab_kubeadm", ANSIBLE_DIR / "filter_plugins/sahab_kubeadm.py")
_plugin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_plugin)
kubernetes_release = _plugin.kubernetes_release

# `apt-cache madison kubeadm` as pkgs.k8s.io versions its packages (one repository per minor; a mirror may carry
# several).
MADISON = "\n".join(
    f"   kubeadm | {v}-1.1 | https://pkgs.k8s.io/core:/stable:/v{v.rsplit('.', 1)[0]}/deb  Packages"
    for v in ("1.34.7", "1.34.2", "1.33.5", "1.33.1", "1.32.6"))


def test_a_new_cluster_gets_the_newest_release_of_its_minor():
    assert kubernetes_release(MADISON, "1.34") == {
        "upgrade": False, "error": "", "version": "v1.34.7", "package": "1.34.7-1.1", "cluster": "",
        "cluster_package": ""}


def test_an_operator_may_pin_the_release_of_a_new_cluster():
    assert kubernetes_release(MADISON, "1.34", pinned="1.34.2")["package"] == "1.34.2-1.1"
    assert "not a 1.34 release" in kubernetes_release(MADISON, "1.34", pinned="1.33.5")["error"]


def test_a_node_of_a_running_cluster_gets_the_clusters_exact_version_not_the_newest():
    release = kubernetes_release(MADISON, "1.34", cluster_version="v1.34.2")
    assert (release["version"], release["package"], release["upgrade"]) == ("v1.34.2", "1.34.2-1.1", False)


def test_the_next_minor_is_an_upgrade_and_new_nodes_join_at_the_clusters_version_first():
    release = kubernetes_release(MADISON, "1.34", cluster_version="v1.33.5")
    assert release["upgrade"] is True and release["version"] == "v1.34.7"
    assert release["cluster_package"] == "1.33.5-1.1"


def test_two_minors_at_once_are_refused_naming_the_step_to_take_first():
    error = kubernetes_release(MADISON, "1.34", cluster_version="v1.32.6")["error"]
    assert "one minor version at a time" in error and "set kubernetes_version to 1.33 first" in error


def test_a_downgrade_is_refused():
    assert "downgrade" in kubernetes_release(MADISON, "1.33", cluster_version="v1.34.7")["error"]


@pytest.mark.parametrize(("minor", "cluster", "says"), [
    ("1.35", "", "no kubeadm 1.35.x in this host's package sources"),
    ("1.34", "v1.34.5", "kubeadm 1.34.5 is not in this host's package sources"),
])
def test_a_release_missing_from_the_sources_is_named(minor, cluster, says):
    assert says in kubernetes_release(MADISON, minor, cluster_version=cluster)["error"]
