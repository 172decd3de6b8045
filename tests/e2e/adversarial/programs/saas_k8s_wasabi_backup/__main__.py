"""Leak (S3-compatible host): a CronJob syncs checkpoints to a Wasabi bucket in Amsterdam through an endpoint
variable."""
# expect: cloud-all-resource-references-in-country checkpoint-sync

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.CronJob("checkpoint-sync", metadata={"namespace": "research"}, spec={"schedule": "0 2 * * *",
    "job_template": {"spec": {"template": {"spec": {"restart_policy": "OnFailure", "containers": [{
        "name": "sync", "image": f"{ECR}/tools/aws-cli:2",
        "args": ["s3", "sync", "/checkpoints", "s3://ckpt-archive"],
        "env": [{"name": "AWS_ENDPOINT_URL", "value": "https://s3.eu-central-1.wasabisys.com"}]}]}}}}})
