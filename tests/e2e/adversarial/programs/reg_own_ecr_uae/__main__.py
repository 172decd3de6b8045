"""Look-alike (registries): a third-party program whose images come from its own ECR in me-central-1, with no
sahab:fleet at all."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.apps.v1.Deployment("api", spec={"selector": {"match_labels": {"app": "api"}}, "template": {
    "metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": f"{ECR}/api:1.4"}]}}})
