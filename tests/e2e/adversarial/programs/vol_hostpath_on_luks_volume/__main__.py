"""Look-alike (volumes): a static PersistentVolume under the LUKS class's node path."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.storage.v1.StorageClass("luks", metadata={"name": "sahab-encrypted", "annotations": {
    "sahab.io/encryption": "luks", "storageclass.kubernetes.io/is-default-class": "true"}},
    provisioner="sahab.io/luks-local-path", parameters={"nodePath": "/var/lib/sahab/volumes"},
    volume_binding_mode="WaitForFirstConsumer")

k8s.core.v1.PersistentVolume("datasets-pv", metadata={"name": "datasets"}, spec={
    "capacity": {"storage": "50Gi"}, "access_modes": ["ReadWriteOnce"], "storage_class_name": "sahab-encrypted",
    "host_path": {"path": "/var/lib/sahab/volumes/datasets"}})
