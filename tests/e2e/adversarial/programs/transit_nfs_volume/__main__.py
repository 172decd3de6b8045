"""Leak (in transit): a pod mounting plain NFS: data crosses the network unencrypted."""
# expect: cloud-all-filesystem-mount-encrypted-in-transit reader

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.core.v1.Pod("reader", metadata={"namespace": "research"}, spec={
    "containers": [{"name": "r", "image": f"{ECR}/tools/reader:1",
                    "volume_mounts": [{"name": "data", "mount_path": "/data", "read_only": True}]}],
    "volumes": [{"name": "data", "nfs": {"server": "10.40.3.9", "path": "/exports/data"}}]})
