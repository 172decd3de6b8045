"""Jinja filters for Sahab's kubeadm configuration.

`sahab_node_registration` turns a node's labels and taints into kubeadm's structured nodeRegistration. kubeadm
hands labels to the kubelet as a command-line flag (in /var/lib/kubelet/kubeadm-flags.env, which systemd
splits at spaces), so a value outside the Kubernetes grammar could smuggle in another flag: such a value fails
the host here, naming the label or taint, before anything is written. The templates then YAML-encode the
result (to_nice_yaml), so nothing a value holds can change the document's structure either.

`sahab_secretbox_key` and `sahab_certificate_key` derive kubeadm's keys from a Pulumi-generated secret:
base64 of 32 bytes for the Secrets encryption provider, 64 hex digits for kubeadm's certificate key.
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


class FilterModule:
    def filters(self):
        return {
            "sahab_node_registration": node_registration,
            "sahab_secretbox_key": secretbox_key,
            "sahab_certificate_key": certificate_key,
        }
