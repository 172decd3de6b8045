"""CheckpointAccess (on-prem): a team's training pods reach the site's in-country S3-compatible store.

Why an object store and not a volume: the on-prem encrypted StorageClass is LUKS on each node's own disk
(local-path), so a checkpoint on it is lost with its node, which is the failure checkpoints are for. A
store reached over the network (MinIO, Ceph RGW, a UAE provider's S3) outlives any node; the run resumes
on other nodes from the newest complete checkpoint there.

The store's credentials are secret stack settings, copied into a Secret in the team's namespace (a Pulumi
secret end to end, never in the plan); the pods read them, the endpoint and the team's prefix from their
environment, as boto3 does (`AWS_ENDPOINT_URL_S3`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`).

The caller passes the cluster's Kubernetes provider.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from sahab.components.fleet_config import ObjectStore
from sahab.components.kubernetes.checkpoint_key import checkpoint_key
from sahab.components.kubernetes.common import MANAGED_BY, Args

SECRET_NAME = "checkpoint-store"
ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID"
SECRET_ACCESS_KEY = "AWS_SECRET_ACCESS_KEY"


class CheckpointAccessArgs(Args):
    namespace: str
    """The team namespace (also the object prefix). Required."""
    store: ObjectStore
    """The site's object store: endpoint, bucket, signing region. Required."""
    access_key_id: Any
    """The access key id (a secret Input[str]). Required."""
    secret_access_key: Any
    """The secret access key (a secret Input[str]). Required."""


def pod_env(store: ObjectStore, secret_name: str = SECRET_NAME) -> list[dict]:
    """What the training container needs to reach the store: its endpoint and the Secret's keys."""
    env = [
        {"name": "AWS_ENDPOINT_URL_S3", "value": store.endpoint.rstrip("/")},
        # Many S3-compatible stores refuse the CRC checksums recent SDKs add to every upload by default.
        {"name": "AWS_REQUEST_CHECKSUM_CALCULATION", "value": "when_required"},
        {"name": "AWS_RESPONSE_CHECKSUM_VALIDATION", "value": "when_required"},
    ]
    if store.region:
        env.append({"name": "AWS_DEFAULT_REGION", "value": store.region})
    env += [{"name": key, "valueFrom": {"secretKeyRef": {"name": secret_name, "key": key}}}
            for key in (ACCESS_KEY_ID, SECRET_ACCESS_KEY)]
    return env


class CheckpointAccess(pulumi.ComponentResource):
    """The team's credentials for the site's object store, and where its checkpoints go there."""

    def __init__(self, name: str, args: CheckpointAccessArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:onprem:CheckpointAccess", name, None, opts)
        self.secret = k8s.core.v1.Secret(
            f"{name}-secret", metadata={"name": SECRET_NAME, "namespace": args.namespace, "labels": MANAGED_BY},
            type="Opaque",
            string_data=pulumi.Output.secret({ACCESS_KEY_ID: args.access_key_id,
                                              SECRET_ACCESS_KEY: args.secret_access_key}),
            opts=pulumi.ResourceOptions(parent=self, additional_secret_outputs=["data", "stringData"]))
        self.env = [*pod_env(args.store), checkpoint_key(name, args.namespace, self)]
        self.pod_labels: dict[str, str] = {}
        self.account: str | None = None  # credentials come from the Secret, not an identity
        self.uri = f"s3://{args.store.bucket}/{args.namespace}"
        self.register_outputs({"uri": self.uri, "secret": SECRET_NAME})
