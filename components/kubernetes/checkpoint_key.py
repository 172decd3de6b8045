"""The key that signs a team's checkpoints (workloads/train/integrity.py), delivered to its training pods only.

A Pulumi-generated secret in a Kubernetes Secret of the team's namespace, read by the training container as
SAHAB_CHECKPOINT_KEY. Whoever else can write the checkpoint store (its other users, a backup job, a stolen store
credential) does not hold it, so what they write is refused before the pods unpickle it. Each checkpoint access
component (components/{aws,azure,onprem}/checkpoint_access.py) makes one per team and cluster, as its child; a
burst stack's Jobs on that cluster read the same Secret by name (components.checkpoint_build.referenced_access).
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_random as random
from sahab.components.kubernetes.common import MANAGED_BY

SECRET_NAME = "checkpoint-signing-key"
SECRET_KEY = "key"
ENV_NAME = "SAHAB_CHECKPOINT_KEY"  # workloads.train.integrity.KEY_ENV
KEY_LENGTH = 64  # characters from [A-Za-z0-9]: about 380 bits, past HMAC-SHA256's 256
ENV = {"name": ENV_NAME, "valueFrom": {"secretKeyRef": {"name": SECRET_NAME, "key": SECRET_KEY}}}


def checkpoint_key(name: str, namespace: str, parent: pulumi.Resource) -> dict:
    """Create the team's key and its Secret under `parent`; the training container's environment entry for it."""
    child = pulumi.ResourceOptions(parent=parent)
    key = random.RandomPassword(f"{name}-signing-key", length=KEY_LENGTH, special=False, opts=child)
    k8s.core.v1.Secret(
        f"{name}-signing-key-secret",
        metadata={"name": SECRET_NAME, "namespace": namespace, "labels": MANAGED_BY},
        type="Opaque", string_data=pulumi.Output.secret({SECRET_KEY: key.result}),
        opts=pulumi.ResourceOptions(parent=parent, additional_secret_outputs=["data", "stringData"]))
    return ENV
