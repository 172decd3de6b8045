"""Leak (volumes): a `local` PersistentVolume on a node's NVMe disk that nothing shows to be encrypted."""
# expect: kubernetes-core-volume-host-path-encrypted scratch

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.core.v1.PersistentVolume("scratch", metadata={"name": "scratch-node1"}, spec={
    "capacity": {"storage": "500Gi"}, "access_modes": ["ReadWriteOnce"], "local": {"path": "/mnt/nvme0"},
    "node_affinity": {"required": {"node_selector_terms": [{"match_expressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node1"]}]}]}}})
