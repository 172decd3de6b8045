"""On-prem nodes pull through the site's mirror: the containerd role's hosts.toml (rendered by Ansible's own
templating from the real template), the variables Sahab hands the roles, and kubeadm's image repository."""

from __future__ import annotations

import tomllib

import yaml
from sahab.components.artifacts import UPSTREAMS
from sahab.components.fleet_config import parse_fleet
from sahab.components.onprem.from_config import cluster_args, pool_args, registry_variables
from sahab.components.onprem.runner import ANSIBLE_DIR

from tests.components.onprem.test_kubeadm_rendering import init_config, render

ROLE = ANSIBLE_DIR / "roles" / "sahab_containerd"
MIRROR = "registry.sahab.example.ae:5000"


def hosts_toml(upstream: str, endpoint: str) -> dict:
    text = (ROLE / "templates" / "hosts.toml.j2").read_text()
    return tomllib.loads(render(text, item={"key": upstream, "value": endpoint}))


def prod():
    doc = yaml.safe_load((ANSIBLE_DIR.parent / "stacks" / "Pulumi.prod.yaml").read_text())
    return parse_fleet(doc["config"]["sahab:fleet"])


def test_a_prefixed_mirror_endpoint_is_used_as_the_api_root_as_is():
    config = hosts_toml("quay.io", f"https://{MIRROR}/v2/quay")
    assert config == {"server": f"https://{MIRROR}/v2/quay", "capabilities": ["pull", "resolve"],
                      "override_path": True}


def test_no_public_upstream_is_tried_when_the_mirror_is_down():
    # containerd tries [host] entries first and the server last: the mirror is the server, and there is no host.
    for upstream in ("docker.io", "quay.io", "registry.k8s.io", "nvcr.io"):
        config = hosts_toml(upstream, "https://registry.site.ae")
        assert config["server"] == "https://registry.site.ae"
        assert "host" not in config
        assert "override_path" not in config  # a plain mirror keeps containerd's /v2 path


def test_a_hostile_endpoint_cannot_add_a_table_or_key():
    config = hosts_toml("quay.io", 'https://m.ae"]\n[evil]\nx = "1')
    assert set(config) == {"server", "capabilities"}


def test_sahab_points_every_upstream_of_prod_at_the_mirror_and_names_node_images_there():
    fleet = prod()
    variables = registry_variables(fleet)
    assert variables["sahab_containerd_registry_mirrors"] == {
        u.host: f"https://{MIRROR}/v2/{u.alias}" for u in UPSTREAMS.values()}
    assert variables["sahab_containerd_sandbox_image"] == f"{MIRROR}/k8s/pause:3.10.1"
    assert variables["sahab_control_plane_image_repository"] == f"{MIRROR}/k8s"
    assert variables["sahab_control_plane_kube_vip_image"] == f"{MIRROR}/ghcr/kube-vip/kube-vip:v1.0.0"
    cluster = fleet.cluster("auh-onprem")
    assert cluster_args(fleet, cluster).access.variables["sahab_control_plane_image_repository"] == f"{MIRROR}/k8s"
    pool = next(p for p in fleet.node_pools if p.cluster == "auh-onprem")
    assert pool_args(fleet, pool).access.variables["sahab_containerd_registry_mirrors"]["nvcr.io"] == \
        f"https://{MIRROR}/v2/nvcr"


def test_without_a_mirror_the_roles_keep_their_upstream_defaults():
    doc = yaml.safe_load((ANSIBLE_DIR.parent / "stacks" / "Pulumi.prod.yaml").read_text())
    fleet = doc["config"]["sahab:fleet"]
    del fleet["registries"]["onprem"]
    assert registry_variables(parse_fleet(fleet)) == {}


def test_kubeadm_pulls_its_images_and_coredns_from_the_mirrors_registry_k8s_io_prefix():
    docs = init_config(schedulable=False, sahab_control_plane_image_repository=f"{MIRROR}/k8s")
    cluster = docs["ClusterConfiguration"]
    assert cluster["imageRepository"] == f"{MIRROR}/k8s"
    # kubeadm names CoreDNS <dns.imageRepository>/coredns: registry.k8s.io/coredns/coredns in the mirror's layout.
    assert cluster["dns"] == {"imageRepository": f"{MIRROR}/k8s/coredns"}
    assert init_config(schedulable=False)["ClusterConfiguration"]["dns"] == {}
