"""Leak (SaaS host, through a chart): Prometheus remote-writes every sample to Grafana Cloud."""
# expect: cloud-all-resource-references-in-country monitoring

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.helm.v3.Release("monitoring", chart="oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/kube-prometheus-stack",
    version="65.1.1", values={"prometheus": {"prometheusSpec": {"remoteWrite": [
        {"url": "https://prometheus-prod-01-prod-eu-west-0.grafana.net/api/prom/push"}]}}})
