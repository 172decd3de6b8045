"""Leak (volumes): a Job writing to a host path in a stack with no encrypted node path at all."""
# expect: kubernetes-core-volume-host-path-encrypted export

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.Job("export", spec={"template": {"spec": {"restart_policy": "Never", "containers": [{
    "name": "export", "image": f"{ECR}/exporter:1", "volume_mounts": [{"name": "out", "mount_path": "/out"}]}],
    "volumes": [{"name": "out", "host_path": {"path": "/var/lib/sahab/volumes/export"}}]}}})
