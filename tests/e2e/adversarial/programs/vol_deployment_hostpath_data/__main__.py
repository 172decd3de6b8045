"""Leak (volumes): a Deployment writing its database to a host directory."""
# expect: kubernetes-core-volume-host-path-encrypted registry-db

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.storage.v1.StorageClass("luks", metadata={"name": "sahab-encrypted", "annotations": {
    "sahab.io/encryption": "luks", "storageclass.kubernetes.io/is-default-class": "true"}},
    provisioner="sahab.io/luks-local-path", parameters={"nodePath": "/var/lib/sahab/volumes"},
    volume_binding_mode="WaitForFirstConsumer")

k8s.apps.v1.Deployment("registry-db", metadata={"namespace": "research"}, spec={
    "selector": {"match_labels": {"app": "db"}}, "template": {"metadata": {"labels": {"app": "db"}}, "spec": {
        "containers": [{"name": "db", "image": f"{ECR}/postgres:16",
                        "volume_mounts": [{"name": "data", "mount_path": "/var/lib/postgresql/data"}]}],
        "volumes": [{"name": "data", "host_path": {"path": "/srv/registry-db"}}]}}})
