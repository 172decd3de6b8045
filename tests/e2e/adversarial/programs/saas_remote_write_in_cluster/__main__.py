"""Look-alike (hosts, through a chart): Prometheus remote-writes to a Thanos receiver inside the cluster."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("monitoring", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/kube-prometheus-stack",
    version="65.1.1", values={"prometheus": {"prometheusSpec": {"remoteWrite": [
        {"url": "http://thanos-receive.monitoring.svc.cluster.local:19291/api/v1/receive"}]}}})
