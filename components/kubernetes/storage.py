"""EncryptedStorage: the cluster's storage classes, every one of which encrypts; one is the default.

- EKS: the EBS CSI driver with `encrypted: "true"` and the cluster's customer-managed KMS key.
- AKS: the Azure Disk CSI driver with the cluster's Disk Encryption Set (customer-managed key).
- On-prem: LUKS. Ansible (role `sahab_data_volumes`) formats each node's data disk with LUKS2 and mounts
  the opened device-mapper volume at `/var/lib/sahab/volumes`. Rancher's local-path provisioner, installed
  here under the provisioner name `sahab.io/luks-local-path`, creates every volume as a directory there.
  Its setup script refuses to create a volume whose parent is not a device-mapper mount, so a node whose
  encrypted volume is not open never gets a volume on its plain root disk. The class carries the
  annotation `sahab.io/encryption: luks`, which the policy pack recognises.

When a cluster's key is not known yet (its cluster component is not part of this program), EKS volumes
are encrypted with the account's AWS-managed EBS key and AKS disks with Azure's platform-managed key:
still encrypted at rest, but not with a key Sahab controls.
"""

from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s
from pydantic import field_validator
from sahab.components.artifacts import Images
from sahab.components.kinds import KindName
from sahab.components.kinds import get as kind_spec
from sahab.components.kubernetes.common import (
    DEFAULT_CLASS_ANNOTATION,
    MANAGED_BY,
    Args,
    StrInput,
    system_namespace_labels,
)
from sahab.components.kubernetes.node_validator import IMAGE_UID
from sahab.components.kubernetes.placement import Placement

DEFAULT_CLASS = "sahab-encrypted"
PROVISIONER_ACCOUNT = "local-path-provisioner"
# The account the provisioner gives its helper pods (its --service-account-name; local-path-provisioner v0.0.37
# defaults to local-path-provisioner-service-account, which Sahab does not create): no rights, no token.
HELPER_ACCOUNT = "local-path-helper"
ONPREM_PROVISIONER = "sahab.io/luks-local-path"
ONPREM_VOLUME_PATH = "/var/lib/sahab/volumes"


class EncryptedStorageArgs(Args):
    cluster_kind: KindName
    """Where the cluster runs; its kind's storage class (components.kinds) picks the driver and how it encrypts."""
    encryption_key: StrInput | None = None
    """EKS: the KMS key ARN for EBS volumes; AKS: the Disk Encryption Set id; on-prem: unused (LUKS).
    Default: unset (the cloud's own key, see the module doc)."""
    class_name: str = DEFAULT_CLASS
    """Name of the default encrypted class. Default: sahab-encrypted."""
    onprem_volume_path: str = ONPREM_VOLUME_PATH
    """On-prem: where Ansible mounts the LUKS data volume on every node. Default: /var/lib/sahab/volumes."""
    placement: Placement = Placement()
    """On-prem: where the provisioner runs. Default: anywhere untainted."""
    onprem_namespace: str = "sahab-storage"
    """On-prem: namespace of the provisioner. Default: sahab-storage."""
    images: Images = Images()
    """On-prem: where the local-path provisioner (rancher v0.0.37) and its helper pod's image (busybox) come from,
    at the versions components.artifacts pins. Default: their upstream registries."""

    @field_validator("onprem_volume_path")
    @classmethod
    def _absolute(cls, v: str) -> str:
        if not v.startswith("/") or v.rstrip("/") == "":
            raise ValueError(f"{v!r} must be an absolute path below /")
        return v.rstrip("/")


def storage_class_spec(args: EncryptedStorageArgs, key: StrInput | None = None) -> dict:
    """provisioner, parameters and the rest of the class for the cluster kind (metadata aside). `key` may be an
    Output: it stays the one leaf a preview does not know, so `encrypted`/`diskEncryptionType` stay visible."""
    spec: dict = {"reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"}
    return {**spec, **kind_spec(args.cluster_kind).storage_class.parameters(args, key)}


# The group a volume's directory belongs to: the workload image's (workloads/Dockerfile*), which Sahab's training
# pods run as (runAsGroup and fsGroup).
VOLUME_GROUP = IMAGE_UID


def setup_script(volume_path: str) -> str:
    """Helper-pod script: create a volume directory only on the encrypted (device-mapper) data volume.

    The helper pod bind-mounts the volume's parent directory; /proc/self/mountinfo names the device behind
    that mount (the field after the fstype, past the ` - ` separator)."""
    return f"""#!/bin/sh
set -eu
base="$(dirname "$VOL_DIR")"
if [ "$base" != "{volume_path}" ]; then
  echo "refusing $VOL_DIR: volumes live under {volume_path} only" >&2
  exit 1
fi
if ! awk -v mp="$base" '$5 == mp {{ for (i = 7; $i != "-"; i++) {{}}; if ($(i + 2) ~ /^\\/dev\\/mapper\\//) ok = 1 }}
    END {{ exit ok ? 0 : 1 }}' /proc/self/mountinfo; then
  echo "refusing $VOL_DIR: $base is not the LUKS data volume (no device-mapper mount); run Ansible first" >&2
  exit 1
fi
# hostPath volumes ignore fsGroup: a volume belongs to the workload image's group ({VOLUME_GROUP}, the group Sahab's
# pods run as) and nobody else; the base ({volume_path}, 0711, Ansible) lets pods through without listing it.
mkdir -p "$VOL_DIR"
chown 0:{VOLUME_GROUP} "$VOL_DIR"
chmod 0770 "$VOL_DIR"
"""


TEARDOWN_SCRIPT = """#!/bin/sh
set -eu
rm -rf "$VOL_DIR"
"""


def provisioner_config(args: EncryptedStorageArgs) -> dict[str, str]:
    """The local-path provisioner's ConfigMap data: paths per node, the scripts and the helper pod."""
    helper_pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "helper-pod"},
        # The provisioner binds the helper to the volume's node by name, so it must tolerate whatever
        # taints that node has (GPU nodes, disk pressure), or a NoExecute taint would evict it mid-setup.
        # It runs as root (it makes directories on the host's root-owned volume), so it is hardened as far as that
        # allows: the runtime's seccomp profile, no privilege escalation, no API token (validateHelperPodTemplate
        # in local-path-provisioner v0.0.37 admits these hardening fields).
        "spec": {"priorityClassName": "system-node-critical", "tolerations": [{"operator": "Exists"}],
                 "automountServiceAccountToken": False,
                 "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                 "containers": [{"name": "helper-pod", "image": args.images.reference("local-path-helper"),
                                 "imagePullPolicy": "IfNotPresent",
                                 "securityContext": {"allowPrivilegeEscalation": False},
                                 "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}]},
    }
    config = {"nodePathMap": [{"node": "DEFAULT_PATH_FOR_NON_LISTED_NODES", "paths": [args.onprem_volume_path]}]}
    return {"config.json": json.dumps(config, indent=2), "setup": setup_script(args.onprem_volume_path),
            "teardown": TEARDOWN_SCRIPT, "helperPod.yaml": json.dumps(helper_pod, indent=2)}


class EncryptedStorage(pulumi.ComponentResource):
    """The encrypted default StorageClass (and, on-prem, the provisioner that backs it)."""

    class_name: pulumi.Output[str]

    def __init__(self, name: str, args: EncryptedStorageArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:EncryptedStorage", name, None, opts)
        depends: list[pulumi.Resource] = []
        kind = kind_spec(args.cluster_kind).storage_class
        if kind.provisioner_installed:
            depends = self._local_path_provisioner(name, args)

        # Only the key waits: the key reference is the one unknown leaf of the parameters, so a preview shows the
        # driver, `encrypted: "true"` / `diskEncryptionType` and the binding mode before the key exists.
        spec = storage_class_spec(args, args.encryption_key)
        annotations = {DEFAULT_CLASS_ANNOTATION: "true", **kind.annotations}
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-default",
            metadata={"name": args.class_name, "labels": MANAGED_BY, "annotations": annotations},
            provisioner=spec["provisioner"],
            parameters=spec["parameters"],
            reclaim_policy=spec["reclaimPolicy"],
            volume_binding_mode=spec["volumeBindingMode"],
            allow_volume_expansion=spec.get("allowVolumeExpansion", False),
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends))
        self.class_name = storage_class.metadata.name
        self.register_outputs({"className": self.class_name})

    def _local_path_provisioner(self, name: str, args: EncryptedStorageArgs) -> list[pulumi.Resource]:
        ns_name, sa_name = args.onprem_namespace, PROVISIONER_ACCOUNT
        child = pulumi.ResourceOptions(parent=self)
        # Privileged: the helper pods mount host directories. Only this namespace.
        ns = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": ns_name, "labels": system_namespace_labels(ns_name, "privileged")}, opts=child)
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[ns])
        meta = {"namespace": ns_name, "labels": MANAGED_BY}
        sa = k8s.core.v1.ServiceAccount(f"{name}-provisioner-sa", metadata={"name": sa_name, **meta},
                                        automount_service_account_token=True, opts=in_ns)
        helper_sa = k8s.core.v1.ServiceAccount(f"{name}-helper-sa", metadata={"name": HELPER_ACCOUNT, **meta},
                                               automount_service_account_token=False, opts=in_ns)
        subjects = [{"kind": "ServiceAccount", "name": sa_name, "namespace": ns_name}]
        # Helper pods in its own namespace only; volumes, claims and classes cluster-wide (read, except PVs).
        role = k8s.rbac.v1.Role(f"{name}-provisioner-role", metadata={"name": sa_name, **meta}, rules=[
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch", "create", "delete"]}],
            opts=in_ns)
        binding = k8s.rbac.v1.RoleBinding(f"{name}-provisioner-rolebinding", metadata={"name": sa_name, **meta},
                                          role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                    "name": sa_name}, subjects=subjects, opts=in_ns)
        cluster_role = k8s.rbac.v1.ClusterRole(f"{name}-provisioner-clusterrole", metadata={
            "name": "sahab-local-path-provisioner", "labels": MANAGED_BY}, rules=[
            {"apiGroups": [""], "resources": ["nodes", "persistentvolumeclaims", "configmaps", "pods", "pods/log"],
             "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["persistentvolumes"],
             "verbs": ["get", "list", "watch", "create", "patch", "update", "delete"]},
            {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
            {"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses"], "verbs": ["get", "list", "watch"]},
        ], opts=child)
        cluster_binding = k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-provisioner-clusterrolebinding", metadata={"name": "sahab-local-path-provisioner",
                                                                "labels": MANAGED_BY},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                      "name": "sahab-local-path-provisioner"}, subjects=subjects, opts=in_ns)
        config = k8s.core.v1.ConfigMap(f"{name}-provisioner-config", metadata={
            "name": "local-path-config", **meta}, data=provisioner_config(args), opts=in_ns)
        labels = {"app.kubernetes.io/name": "local-path-provisioner"}
        deployment = k8s.apps.v1.Deployment(
            f"{name}-provisioner", metadata={"name": "local-path-provisioner", **meta},
            spec={"replicas": 1, "selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": sa_name,
                    "nodeSelector": dict(args.placement.node_selector),
                    "tolerations": list(args.placement.tolerations),
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65534,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": "provisioner", "image": args.images.reference("local-path-provisioner"),
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["local-path-provisioner", "start", "--config", "/etc/config/config.json",
                                    "--provisioner-name", ONPREM_PROVISIONER,
                                    "--service-account-name", HELPER_ACCOUNT],
                        "env": [{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath":
                                                                                         "metadata.namespace"}}},
                                {"name": "CONFIG_MOUNT_PATH", "value": "/etc/config/"}],
                        "ports": [{"name": "health", "containerPort": 8080, "protocol": "TCP"}],
                        "readinessProbe": {"httpGet": {"path": "/ready", "port": "health"}, "periodSeconds": 5},
                        "livenessProbe": {"httpGet": {"path": "/health", "port": "health"}, "periodSeconds": 10},
                        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"},
                                      "limits": {"cpu": "200m", "memory": "128Mi"}},
                        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "capabilities": {"drop": ["ALL"]}},
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/config/"}],
                    }],
                    "volumes": [{"name": "config", "configMap": {"name": "local-path-config"}}],
                }}},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[ns, sa, helper_sa, role, binding, cluster_role,
                                                                 cluster_binding, config]))
        return [deployment]
