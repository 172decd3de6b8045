"""Leak (volumes): a static PersistentVolume on a host path outside the LUKS data volume."""
# expect: kubernetes-core-volume-host-path-encrypted patients-pv

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.storage.v1.StorageClass("luks", metadata={"name": "sahab-encrypted", "annotations": {
    "sahab.io/encryption": "luks", "storageclass.kubernetes.io/is-default-class": "true"}},
    provisioner="sahab.io/luks-local-path", parameters={"nodePath": "/var/lib/sahab/volumes"},
    volume_binding_mode="WaitForFirstConsumer")

k8s.core.v1.PersistentVolume("patients-pv", metadata={"name": "patients"}, spec={
    "capacity": {"storage": "50Gi"}, "access_modes": ["ReadWriteOnce"], "storage_class_name": "sahab-encrypted",
    "host_path": {"path": "/mnt/patients", "type": "DirectoryOrCreate"}})
