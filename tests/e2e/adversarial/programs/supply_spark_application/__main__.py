"""Supply chain: a SparkApplication names its driver and executor image once, at `spec.image`, beside no
container fields."""
# expect: kubernetes-all-workload-image-registry-allowed feature-build

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "feature-build", api_version="sparkoperator.k8s.io/v1beta2", kind="SparkApplication",
    metadata={"name": "feature-build", "namespace": "research"},
    spec={"type": "Python", "mode": "cluster", "image": "ghcr.io/someone/spark-py:3.5.1",
          "mainApplicationFile": "local:///opt/job.py", "sparkVersion": "3.5.1",
          "driver": {"cores": 1, "memory": "2g"}, "executor": {"instances": 2, "cores": 2, "memory": "4g"}})
