"""Look-alike (hosts): vendor names in descriptions, tags and annotations send nothing anywhere."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.core.v1.ConfigMap("notes", metadata={"namespace": "research", "annotations": {
    "runbook": "https://app.datadoghq.eu/notebook/1"}, "labels": {"vendor": "datadog"}},
    data={"README": "we evaluated Datadog (datadoghq.eu) and New Relic; both are abroad"})
