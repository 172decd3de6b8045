"""What every platform component shares: the args base model, label keys and Pod Security levels."""

from __future__ import annotations

import pulumi
from pydantic import BaseModel, ConfigDict

MANAGED_BY = {"app.kubernetes.io/managed-by": "sahab"}

# Pod Security Admission: the label keys and the levels Sahab uses. Privileged is kept to the few system
# namespaces whose agents need host access (GPU operator, node exporter, the on-prem volume provisioner).
PSA_MODES = ("enforce", "audit", "warn")
PSA_VERSION = "v1.31"

# Annotation and provisioner the policy pack recognises as the on-prem encrypting storage class.
ENCRYPTION_ANNOTATION = "sahab.io/encryption"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"


StrInput = str | pulumi.Output
"""A string now or later: a plain value or a Pulumi Output (e.g. a key ARN from the cluster component)."""


class Args(BaseModel):
    """Frozen component arguments that refuse unknown keys; Pulumi Inputs are allowed as values."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


def pod_security_labels(level: str) -> dict[str, str]:
    """Namespace labels that enforce, audit and warn at one Pod Security level, pinned to a policy version
    so a cluster upgrade does not silently change what is admitted."""
    labels: dict[str, str] = {}
    for mode in PSA_MODES:
        labels[f"pod-security.kubernetes.io/{mode}"] = level
        labels[f"pod-security.kubernetes.io/{mode}-version"] = PSA_VERSION
    return labels


def system_namespace_labels(name: str, level: str) -> dict[str, str]:
    return {"kubernetes.io/metadata.name": name, **MANAGED_BY, **pod_security_labels(level)}
