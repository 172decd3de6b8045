"""Leak (registries): the 'in-country mirror' is mirror.gcr.io, a public registry."""
# expect: kubernetes-all-workload-image-registry-allowed cache

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.apps.v1.StatefulSet("cache", spec={"service_name": "cache", "selector": {"match_labels": {"app": "cache"}},
    "template": {"metadata": {"labels": {"app": "cache"}}, "spec": {"containers": [{
        "name": "redis", "image": "mirror.gcr.io/library/redis:7.4"}]}}})
