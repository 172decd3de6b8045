"""The grammars of the places fleet settings end up in: Kubernetes labels and taints, DNS names, cloud resource
names, Linux user names, image references, Pulumi names, Prometheus durations.

Pure functions, no Pulumi. Each check returns None when the value fits its target, or a short sentence saying
what the target allows; the schema (components.fleet_config) turns that into a ConfigError naming the config path.
A setting is checked against the grammar of the strictest place it reaches, so nothing a target would refuse
or misread (a space that splits a kubelet flag, a newline that adds a line to a unit file) gets that far.
"""

from __future__ import annotations

import ipaddress
import re

# ---- Kubernetes (k8s.io/apimachinery/pkg/util/validation) ------------------------------------------------

DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

LABEL_KEY_ALLOWED = ("an optional DNS subdomain prefix and '/', then 1-63 letters, digits, '-', '_' or '.' "
                     "starting and ending with a letter or digit")
LABEL_VALUE_ALLOWED = "0-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"

# Label namespaces the kubelet refuses in --node-labels (NodeRestriction), apart from the two it allows.
_KUBELET_RESTRICTED = ("kubernetes.io", "k8s.io")
_KUBELET_ALLOWED = ("node.kubernetes.io", "kubelet.kubernetes.io")
# Namespaces whose node labels Sahab, the GPU operator or the clouds set themselves: a user label there would
# override what schedulers and device plugins rely on (e.g. point sahab.io/pool at another pool).
MANAGED_LABEL_NAMESPACES = ("sahab.io", "nvidia.com", "kubernetes.azure.com", "eks.amazonaws.com")


def _in_namespace(prefix: str, namespaces: tuple[str, ...]) -> bool:
    return any(prefix == ns or prefix.endswith("." + ns) for ns in namespaces)


def dns1123_label(value: str) -> str | None:
    if len(value) > 63 or not DNS1123_LABEL.fullmatch(value):
        return "1-63 lower-case letters, digits or '-', starting and ending with a letter or digit"
    return None


def qualified_name(value: str) -> str | None:
    """A label key or taint key: `[prefix/]name`."""
    prefix, _, name = value.rpartition("/")
    if "/" in value and (not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return LABEL_KEY_ALLOWED
    if not name or len(name) > 63 or not _QUALIFIED_NAME.fullmatch(name):
        return LABEL_KEY_ALLOWED
    return None


def label_value(value: str) -> str | None:
    if len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        return LABEL_VALUE_ALLOWED
    return None


# Keys in a managed namespace that the operator is meant to set: the GPU operator's MIG manager partitions a
# node by the layout this label names, so choosing the layout is the pool's setting.
USER_SET_MANAGED_LABELS = frozenset({"nvidia.com/mig.config"})


def node_label_key(key: str) -> str | None:
    """A label a user adds to a pool's nodes: valid, not one the kubelet may not set, not one Sahab manages."""
    problem = qualified_name(key)
    if problem:
        return problem
    prefix = key.rpartition("/")[0]
    if _in_namespace(prefix, _KUBELET_RESTRICTED) and not _in_namespace(prefix, _KUBELET_ALLOWED):
        return "a key outside kubernetes.io/ and k8s.io/ (there the kubelet may set only node.kubernetes.io/ " \
               "and kubelet.kubernetes.io/ keys)"
    if _in_namespace(prefix, MANAGED_LABEL_NAMESPACES) and key not in USER_SET_MANAGED_LABELS:
        return f"a key outside {', '.join(n + '/' for n in MANAGED_LABEL_NAMESPACES)} (Sahab, the GPU operator " \
               "and the clouds set those); use your own prefix"
    return None


# Namespaces a team may not take: Kubernetes' own, and those Sahab's platform installs into.
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
PLATFORM_NAMESPACES = frozenset({"gpu-operator", "kueue-system", "monitoring", "node-exporter", "sahab-storage",
                                 "sahab-system"})
RESERVED_NAMESPACES = SYSTEM_NAMESPACES | PLATFORM_NAMESPACES


def team_namespace(name: str) -> str | None:
    if name in RESERVED_NAMESPACES or name.startswith("kube-"):
        others = ", ".join(sorted(n for n in RESERVED_NAMESPACES if not n.startswith("kube-")))
        return f"{name!r} is a system or platform namespace; not allowed: kube-*, {others}"
    return None


def repeated(names: list[str]) -> list[int]:
    """The positions of names used earlier in the list: where a list whose names must be unique (teams, hosts,
    a pool's servers) repeats one."""
    seen: set[str] = set()
    found = []
    for i, name in enumerate(names):
        if name in seen:
            found.append(i)
        seen.add(name)
    return found


# An on-prem control plane (kubeadm's stacked etcd, kube-vip): two etcd members lose their majority when either
# fails, so two hosts are less available than one; with three or more, clients reach the API server on a virtual
# IP that kube-vip moves to a live host.
def splits_etcd(control_plane_hosts: int) -> bool:
    return control_plane_hosts == 2


def needs_api_vip(control_plane_hosts: int) -> bool:
    return control_plane_hosts >= 3


# Kubernetes minor versions Sahab supports: offered by EKS and AKS and published on pkgs.k8s.io (on-prem).
# Add a version here when the clouds ship it and the platform has been checked against it.
KUBERNETES_VERSIONS = ("1.30", "1.31", "1.32", "1.33", "1.34")
# A MultiKueue manager must leave Jobs with `spec.managedBy` to Kueue: the JobManagedBy feature is on by default
# (beta) from Kubernetes 1.32; below it the manager's own Job controller would run a dispatched Job as well.
MULTIKUEUE_MANAGER_MIN_KUBERNETES = "1.32"
# Training Jobs end on their rendezvous index's success (`successPolicy`, on by default from 1.31): an older API
# server drops the field silently and the run would wait for every index, failed nodes' included.
TRAINING_MIN_KUBERNETES = "1.31"


def older_than(version: str, minimum: str) -> bool:
    return tuple(map(int, version.split("."))) < tuple(map(int, minimum.split(".")))


def kubernetes_version(value: str) -> str | None:
    if value not in KUBERNETES_VERSIONS:
        return f"a Kubernetes minor version Sahab supports: {', '.join(KUBERNETES_VERSIONS)}"
    return None


# ---- Prometheus --------------------------------------------------------------------------------------------

_RETENTION = re.compile(r"[1-9][0-9]{0,4}[hdw]")


def prometheus_retention(value: str) -> str | None:
    if not _RETENTION.fullmatch(value):
        return "a positive whole number of hours, days or weeks, like 36h, 15d or 8w"
    return None


# ---- Linux and SSH -----------------------------------------------------------------------------------------

_LINUX_USER = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


def linux_user(value: str) -> str | None:
    """A portable user name (useradd's NAME_REGEX, POSIX portable characters, at most 32)."""
    if not _LINUX_USER.fullmatch(value):
        return "a Linux user name: 1-32 lower-case letters, digits, '_' or '-', not starting with a digit or '-'"
    return None


def canonical_address(value: str) -> str | None:
    """An IP address written the one way Python writes it back: `ipaddress` alone would also take an IPv6 zone
    id (`fe80::1%<almost anything>`), which would reach Ansible, a shell and YAML as it is."""
    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        return "an IPv4 or IPv6 address like 10.10.0.10"
    if getattr(ip, "scope_id", None) is not None:
        return "an address without an IPv6 zone id (nothing from '%' on)"
    if str(ip) != value:
        return f"the address in its canonical form, {str(ip)!r}"
    return None


def canonical_cidr(value: str, example: str = "10.40.0.0/16") -> str | None:
    """A network block in canonical form: host bits zero, no zone id, written as Python writes it back."""
    try:
        net = ipaddress.ip_network(value, strict=True)
    except ValueError:
        return f"a CIDR block like {example} (host bits zero)"
    if "%" in value:
        return "a block without an IPv6 zone id (nothing from '%' on)"
    if str(net) != value:
        return f"the block in its canonical form, {str(net)!r}"
    return None


def host_address(value: str) -> str | None:
    """An address Ansible and the kubelet can use for one server: a unicast IP, canonical."""
    problem = canonical_address(value)
    if problem:
        return problem
    ip = ipaddress.ip_address(value)
    if ip.is_unspecified or ip.is_multicast or (ip.version == 4 and ip == ipaddress.IPv4Address("255.255.255.255")):
        return "a unicast address of one server (not unspecified, multicast or broadcast)"
    return None


def node_network(value: str) -> str | None:
    """A site's node network: a canonical IPv4 or IPv6 CIDR (host bits zero), not the whole internet."""
    try:
        net = ipaddress.ip_network(value)
    except ValueError:
        return "a network in CIDR form like 192.168.50.0/24 or fd00:50::/64, host bits zero"
    if str(net) != value or net.prefixlen < (8 if net.version == 4 else 16):
        return ("a network in canonical CIDR form like 192.168.50.0/24 or fd00:50::/64, /8 (IPv4) or /16 (IPv6) "
                "or narrower")
    return None


# ---- Free text that ends up in evidence and tags ----------------------------------------------------------

_PLAIN_TEXT = re.compile(r"[\w][\w .,'()-]{0,63}")


def plain_text(value: str) -> str | None:
    if not _PLAIN_TEXT.fullmatch(value) or value != value.strip():
        return "1-64 letters, digits, spaces and . , ' ( ) -, starting with a letter or digit"
    return None


# ---- Pulumi --------------------------------------------------------------------------------------------------

_CONFIG_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,99}")
_STACK_PART = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}"
_STACK_REFERENCE = re.compile(rf"({_STACK_PART}/)?({_STACK_PART}/)?{_STACK_PART}")


def config_key_name(value: str) -> str | None:
    if not _CONFIG_KEY.fullmatch(value):
        return "a config key name: a letter, then up to 99 letters, digits, '_' or '-'"
    return None


def stack_name(value: str) -> str | None:
    """A stack's own name (what `Pulumi.<stack>.yaml` is named after): no path, no separator."""
    if not re.fullmatch(_STACK_PART, value) or value.strip(".") == "":
        return "letters, digits, '-', '_' and '.', starting with a letter or digit (at most 100)"
    return None


def stack_reference(value: str) -> str | None:
    if not _STACK_REFERENCE.fullmatch(value):
        return "a stack name, project/stack or org/project/stack (letters, digits, '-', '_' and '.')"
    return None


# ---- Container images (the OCI distribution reference grammar) ------------------------------------------

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST_PART = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_DOMAIN = rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*(?::[0-9]{{1,5}})?/)"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_IMAGE = re.compile(rf"{_DOMAIN}?{_COMPONENT}(?:/{_COMPONENT})*(?::{_TAG})?(?:@sha256:[a-f0-9]{{64}})?")


def image_reference(value: str) -> str | None:
    allowed = "an image reference like registry.example.ae/sahab/workload:0.1.0 (optionally @sha256:<digest>)"
    if len(value) > 255 or not _IMAGE.fullmatch(value):
        return allowed
    host = value.split("/", 1)[0] if "/" in value else ""
    _, sep, port = host.rpartition(":")
    if sep and port.isdigit() and not 1 <= int(port) <= 65535:
        return f"{allowed}; its registry's port is 1-65535"
    return None


# ---- Cloud settings ------------------------------------------------------------------------------------------

# An AWS Region's name (the partition's grammar), e.g. me-central-1: an S3 replica lives in one.
AWS_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]$")


def pool_sizes(min_size: int, desired_size: int, max_size: int) -> str | None:
    """A node pool's sizes as every autoscaler (EKS node groups, AKS agent pools, on-prem) takes them."""
    if not min_size <= desired_size <= max_size:
        return (f"sizes must satisfy min_size <= desired_size <= max_size "
                f"(got {min_size} <= {desired_size} <= {max_size})")
    return None


# ---- Network ranges ---------------------------------------------------------------------------------------------

MIN_PUBLIC_PREFIX = 8


def api_access_cidr(value: str) -> str | None:
    """A source range allowed to reach a public Kubernetes API endpoint: IPv4, no wider than a /8."""
    problem = canonical_cidr(value, example="203.0.113.0/24")
    if problem:
        return problem
    net = ipaddress.ip_network(value)
    if net.version != 4:
        return "an IPv4 CIDR block (EKS and AKS take IPv4 ranges for API access)"
    if net.prefixlen < MIN_PUBLIC_PREFIX:
        return f"at most a /{MIN_PUBLIC_PREFIX}: the API server must not be open to the whole internet"
    return None


# ---- Cloud names, checked at their final length -----------------------------------------------------------

# Pulumi auto-naming appends '-' and 7 random characters to a resource's logical name.
AUTONAME_SUFFIX = 8
S3_BUCKET_MAX = 63
IAM_ROLE_MAX = 64
EKS_CLUSTER_MAX = 100
EKS_NODEGROUP_MAX = 63
EKS_NODEGROUP_PREFIX_SUFFIX = 26  # node_group_name_prefix gets a 26-character unique id
AKS_CLUSTER_MAX = 63
AKS_DNS_PREFIX_MAX = 54

_S3_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_S3_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_S3_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")


def autonamed(logical_name: str) -> int:
    """The length of the physical name Pulumi gives a resource with this logical name."""
    return len(logical_name) + AUTONAME_SUFFIX


def s3_bucket_name(value: str) -> str | None:
    """S3's general purpose bucket naming rules."""
    if not _S3_BUCKET.fullmatch(value) or ".." in value:
        return "3-63 lower-case letters, digits, '.' or '-', starting and ending with a letter or digit"
    if value.startswith(_S3_RESERVED_PREFIXES) or value.endswith(_S3_RESERVED_SUFFIXES):
        return "a prefix or suffix S3 reserves"
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return None
    return "not formatted like an IP address"


_AZURE_STORAGE = re.compile(r"[a-z0-9]{3,24}")


def azure_storage_account_name(value: str) -> str | None:
    if not _AZURE_STORAGE.fullmatch(value):
        return "3-24 lower-case letters and digits"
    return None


_AKS_DNS_PREFIX = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,52}[A-Za-z0-9])?")


def aks_dns_prefix(value: str) -> str | None:
    if not _AKS_DNS_PREFIX.fullmatch(value):
        return f"1-{AKS_DNS_PREFIX_MAX} letters, digits or '-', starting and ending with a letter or digit"
    return None


AKS_SYSTEM_POOL = "system"
_AKS_POOL_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")


def aks_agent_pool_name(pool_name: str) -> str | None:
    """The AKS agent pool name of a Sahab pool (1-12 lower-case letters and digits, starting with a letter), or
    None when the pool's name leaves no such name."""
    name = re.sub(r"[^a-z0-9]", "", pool_name.lower())[:12]
    return name if _AKS_POOL_NAME.fullmatch(name) else None


def aks_pool_clashes(pool_names: list[str]) -> list[tuple[int, str, str | None]]:
    """The pools of one AKS cluster whose agent pool name is already taken: (position, that name, the earlier pool
    holding it, or None for the system pool). A pool whose name leaves no agent pool name is refused on its own."""
    taken: dict[str, str] = {}
    found: list[tuple[int, str, str | None]] = []
    for i, name in enumerate(pool_names):
        aks = aks_agent_pool_name(name)
        if aks is not None and (aks in taken or aks == AKS_SYSTEM_POOL):
            found.append((i, aks, taken.get(aks)))
        elif aks is not None:
            taken[aks] = name
    return found


def shown(value: object, limit: int = 60) -> str:
    """A value for an error message: repr'd (newlines and quotes visible), cut to a readable length."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(str(value))} characters)"
