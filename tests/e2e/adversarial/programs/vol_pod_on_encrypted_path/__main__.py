"""Look-alike (volumes): a training pod caching shards under the LUKS data volume, and a claim on the encrypted
default class."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.storage.v1.StorageClass("luks", metadata={"name": "sahab-encrypted", "annotations": {
    "sahab.io/encryption": "luks", "storageclass.kubernetes.io/is-default-class": "true"}},
    provisioner="sahab.io/luks-local-path", parameters={"nodePath": "/var/lib/sahab/volumes"},
    volume_binding_mode="WaitForFirstConsumer")

k8s.core.v1.PersistentVolumeClaim("cache-claim", metadata={"namespace": "research"}, spec={
    "access_modes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}})
k8s.core.v1.Pod("trainer", metadata={"namespace": "research"}, spec={
    "containers": [{"name": "train", "image": f"{ECR}/sahab/workload:1",
                    "volume_mounts": [{"name": "shards", "mount_path": "/shards"}]}],
    "volumes": [{"name": "shards", "host_path": {"path": "/var/lib/sahab/volumes/shards"}}]})
