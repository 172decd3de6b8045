"""Look-alike (registries): a FIPS ECR endpoint of another account, still in me-central-1."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.core.v1.Pod("tool", spec={"containers": [{
    "name": "tool", "image": "999999999999.dkr.ecr-fips.me-central-1.amazonaws.com/tools/cli:3"}]})
