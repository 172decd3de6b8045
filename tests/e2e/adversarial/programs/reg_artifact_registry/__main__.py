"""Leak (registries): an init container from Google Artifact Registry in us (us-docker.pkg.dev)."""
# expect: kubernetes-all-workload-image-registry-allowed trainer

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.Job("trainer", spec={"template": {"spec": {"restart_policy": "Never",
    "init_containers": [{"name": "fetch", "image": "us-docker.pkg.dev/vertex-ai/training/fetch:2"}],
    "containers": [{"name": "train", "image": f"{ECR}/sahab/workload:1"}]}}})
