"""Look-alike (egress, SaaS): the same trainer reports to a W&B server the team runs in its own cluster."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.Job("trainer", metadata={"namespace": "research"}, spec={
    "template": {"spec": {"restart_policy": "Never", "containers": [{
        "name": "train", "image": f"{ECR}/sahab/workload:1",
        "env": [{"name": "WANDB_BASE_URL", "value": "http://wandb.mlops.svc.cluster.local:8080"},
                {"name": "WANDB_PROJECT", "value": "llm-pretrain"}]}]}}})
