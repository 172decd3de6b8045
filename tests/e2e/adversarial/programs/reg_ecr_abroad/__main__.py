"""Leak (registries): images from an ECR in eu-west-1 (a stack may add eu-west-1 to its own residency list; only the
trusted policy config could)."""
# expect: kubernetes-all-workload-image-registry-allowed api

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.apps.v1.Deployment("api", spec={"selector": {"match_labels": {"app": "api"}}, "template": {
    "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{
        "name": "api", "image": "111122223333.dkr.ecr.eu-west-1.amazonaws.com/api:1.4"}]}}})
