"""Look-alike (egress, URLs): the AWS CLI copies to `s3://backups` through `--endpoint-url`, the site's object
store at a private address."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.CronJob("backup", metadata={"namespace": "research"}, spec={
    "schedule": "0 3 * * *",
    "job_template": {"spec": {"template": {"spec": {"restart_policy": "Never", "containers": [{
        "name": "backup", "image": f"{ECR}/tools/aws-cli:2",
        "args": ["s3", "sync", "/data", "s3://backups/research", "--endpoint-url", "http://10.10.0.20:9000"]}]}}}}})
