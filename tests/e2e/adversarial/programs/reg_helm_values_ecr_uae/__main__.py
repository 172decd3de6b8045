"""Look-alike (registries): chart images set in values, all from an ECR in me-central-1."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("metrics", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/metrics-server",
    version="3.12.2", values={"image": {"repository": f"{ECR}/metrics-server/metrics-server", "tag": "v0.7.2"}})
