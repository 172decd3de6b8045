"""Leak (egress, SaaS): a trainer reports its runs (metrics, configs, artifacts) to Weights & Biases' multi-tenant
cloud, which keeps them in Google Cloud regions in North America."""
# expect: cloud-all-resource-references-in-country trainer

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.Job("trainer", metadata={"namespace": "research"}, spec={
    "template": {"spec": {"restart_policy": "Never", "containers": [{
        "name": "train", "image": f"{ECR}/sahab/workload:1",
        "env": [{"name": "WANDB_BASE_URL", "value": "https://api.wandb.ai"},
                {"name": "WANDB_PROJECT", "value": "llm-pretrain"}]}]}}})
