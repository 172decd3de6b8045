"""Jinja filters for Sahab's kubeadm configuration.

`sahab_node_registration` turns a node's labels and taints into kubeadm's structured nodeRegistration. kubeadm
hands labels to the kubelet as a command-line flag (in /var/lib/kubelet/kubeadm-flags.env, which systemd
splits at spaces), so a value outside the Kubernetes grammar could smuggle in another flag: such a value fails
the host here, naming the label or taint, before anything is written. The templates then YAML-encode the
result (to_nice_yaml), so nothing a value holds can change the document's structure either.

`sahab_secretbox_key` and `sahab_certificate_key` derive kubeadm's keys from a Pulumi-generated secret:
base64 of 32 bytes for the Secrets encryption provider, 64 hex digits for kubeadm's certificate key.

`sahab_ca_cert_hash` pins the cluster CA for token discovery as kubeadm does (`caCertHashes`: sha256 of the
certificate's Subject Public Key Info). `sahab_kubeadm_api` and `sahab_kubeadm_args` speak the kubeadm
configuration API of the cluster's version: v1beta4 from kubeadm 1.31 on (where extra arguments are a list of
name/value pairs), v1beta3 before (a map). `sahab_kubernetes_release` decides which exact version a node runs.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

CRI_SOCKET = "unix:///run/containerd/containerd.sock"
# Kubernetes' own grammar (apimachinery validation): a qualified name with an optional DNS-subdomain prefix,
# and a value of at most 63 alphanumerics, '-', '_' and '.', starting and ending alphanumeric.
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
KEY = re.compile(rf"({_PREFIX}/)?{_NAME}")
VALUE = re.compile(rf"({_NAME})?")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _check_key(what: str, key: object) -> str:
    if not isinstance(key, str) or not KEY.fullmatch(key) or len(key.partition("/")[0]) > 253:
        raise AnsibleFilterError(f"{what} key {key!r} is not a valid Kubernetes key (prefix/name, name: up to 63 "
                                 "alphanumerics, '-', '_', '.')")
    return key


def _check_value(what: str, key: str, value: object) -> str:
    value = "" if value is None else value
    if not isinstance(value, str) or not VALUE.fullmatch(value):
        raise AnsibleFilterError(f"{what} {key}: value {value!r} is not a valid Kubernetes value (up to 63 "
                                 "alphanumerics, '-', '_', '.', starting and ending alphanumeric)")
    return value


def node_registration(labels: Mapping[str, object] | None, taints: list | None, name: str) -> dict:
    """kubeadm's nodeRegistration for a node with these labels and taints (validated; duplicates dropped)."""
    checked_labels = {}
    for key, value in sorted((labels or {}).items()):
        checked_labels[_check_key("label", key)] = _check_value("label", key, value)
    checked_taints, seen = [], set()
    for taint in taints or []:
        if not isinstance(taint, Mapping):
            raise AnsibleFilterError(f"taint {taint!r} is not a mapping of key, value and effect")
        key = _check_key("taint", taint.get("key"))
        value = _check_value("taint", key, taint.get("value", ""))
        effect = taint.get("effect")
        if effect not in EFFECTS:
            raise AnsibleFilterError(f"taint {key}: effect {effect!r} is not one of {', '.join(EFFECTS)}")
        if (key, effect) in seen:
            continue
        seen.add((key, effect))
        checked_taints.append({"key": key, "value": value, "effect": effect} if value else
                              {"key": key, "effect": effect})
    registration: dict = {"name": _check_value("node", "name", name), "criSocket": CRI_SOCKET,
                          "taints": checked_taints}
    if checked_labels:
        joined = ",".join(f"{key}={value}" for key, value in checked_labels.items())
        registration["kubeletExtraArgs"] = [{"name": "node-labels", "value": joined}]
    return registration


def secretbox_key(secret: str) -> str:
    if not secret or len(secret) < 32:
        raise AnsibleFilterError("the Secrets encryption secret is missing or shorter than 32 characters")
    return base64.b64encode(hashlib.sha256(b"sahab-secretbox-key\0" + secret.encode()).digest()).decode()


def certificate_key(secret: str) -> str:
    if not secret or len(secret) < 32:
        raise AnsibleFilterError("the certificate key secret is missing or shorter than 32 characters")
    return hashlib.sha256(b"sahab-kubeadm-certificate-key\0" + secret.encode()).hexdigest()


def ca_cert_hash(pem: str) -> str:
    """kubeadm's discovery pin of a CA certificate: sha256:<hex of the DER Subject Public Key Info>."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    try:
        cert = x509.load_pem_x509_certificate(pem.encode() if isinstance(pem, str) else pem)
    except ValueError as exc:
        raise AnsibleFilterError(f"the cluster CA certificate cannot be read: {exc}") from None
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return "sha256:" + hashlib.sha256(spki).hexdigest()


def _minor(version: str) -> tuple[int, int]:
    match = re.match(r"v?(\d+)\.(\d+)", str(version))
    if not match:
        raise AnsibleFilterError(f"{version!r} is not a Kubernetes version")
    return int(match.group(1)), int(match.group(2))


# kubeadm.k8s.io/v1beta4 is served from kubeadm 1.31 on (kubernetes/kubernetes cmd/kubeadm/app/apis/kubeadm/
# v1beta4/doc.go, "v1beta4 ... improves on the v1beta3 format"; first released in v1.31.0); 1.30 knows v1beta3.
V1BETA4_FROM = (1, 31)


def kubeadm_api(version: str) -> str:
    return "kubeadm.k8s.io/" + ("v1beta4" if _minor(version) >= V1BETA4_FROM else "v1beta3")


def kubeadm_args(pairs: list, version: str):
    """Extra arguments as the configuration API of ``version`` takes them: v1beta4 a list of {name, value},
    v1beta3 a map of name to value."""
    if _minor(version) >= V1BETA4_FROM:
        return [{"name": p["name"], "value": str(p["value"])} for p in pairs]
    return {p["name"]: str(p["value"]) for p in pairs}


_MADISON = re.compile(r"^\s*(\S+)\s*\|\s*(\S+)\s*\|", re.MULTILINE)


def _upstream(package_version: str) -> tuple[int, int, int] | None:
    match = re.match(r"^(?:\d+:)?(\d+)\.(\d+)\.(\d+)(?:-|$)", package_version)
    return tuple(int(x) for x in match.groups()) if match else None


def kubernetes_release(madison: str, minor: str, cluster_version: str = "", pinned: str = "") -> dict:
    """The exact Kubernetes version this node runs and the package version that carries it.

    ``madison`` is `apt-cache madison kubeadm` from the node's sources; ``minor`` the version the fleet asks
    for (1.34); ``cluster_version`` what the running cluster's API server reports (v1.33.5), empty for a new
    cluster; ``pinned`` an exact patch the operator chose (1.34.2), empty for the newest the sources carry.
    A node of a running cluster gets the cluster's exact version; a new minor is an upgrade, one minor at a time.
    """
    wanted = _minor(minor)
    offered = {}
    for package, version in _MADISON.findall(madison or ""):
        upstream = _upstream(version)
        if package == "kubeadm" and upstream:
            offered.setdefault(upstream, version)
    result = {"upgrade": False, "error": "", "version": "", "package": "", "cluster": cluster_version or "",
              "cluster_package": ""}
    target = None
    if cluster_version:
        running = tuple(int(x) for x in re.findall(r"\d+", cluster_version)[:3])
        result["cluster_package"] = offered.get(running, "")
        if wanted < running[:2]:
            result["error"] = (f"the cluster runs {cluster_version}; kubernetes_version {minor} would be a downgrade, "
                               "which kubeadm cannot do")
            return result
        if wanted[1] > running[1] + 1 or wanted[0] != running[0]:
            result["error"] = (f"the cluster runs {cluster_version}; kubeadm upgrades one minor version at a time: "
                               f"set kubernetes_version to {running[0]}.{running[1] + 1} first, converge, then "
                               f"{minor}")
            return result
        if wanted == running[:2]:
            target = running
        else:
            result["upgrade"] = True
    if target is None:
        if pinned:
            target = tuple(int(x) for x in re.findall(r"\d+", pinned)[:3])
            if target[:2] != wanted:
                result["error"] = f"the pinned version {pinned} is not a {minor} release"
                return result
        else:
            candidates = sorted(v for v in offered if v[:2] == wanted)
            if not candidates:
                result["error"] = f"no kubeadm {minor}.x in this host's package sources"
                return result
            target = candidates[-1]
    if target not in offered:
        result["error"] = (f"kubeadm {'.'.join(map(str, target))} is not in this host's package sources "
                           f"(offered: {', '.join('.'.join(map(str, v)) for v in sorted(offered)) or 'none'})")
        return result
    result["version"] = "v" + ".".join(map(str, target))
    result["package"] = offered[target]
    return result


class FilterModule:
    def filters(self):
        return {
            "sahab_node_registration": node_registration,
            "sahab_secretbox_key": secretbox_key,
            "sahab_certificate_key": certificate_key,
            "sahab_ca_cert_hash": ca_cert_hash,
            "sahab_kubeadm_api": kubeadm_api,
            "sahab_kubeadm_args": kubeadm_args,
            "sahab_kubernetes_release": kubernetes_release,
        }
