"""Supply chain: an Argo CD Application gives its chart values as YAML text (`helm.values`), and they pull from
Quay."""
# expect: kubernetes-all-workload-image-registry-allowed exporter-app

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "exporter-app", api_version="argoproj.io/v1alpha1", kind="Application",
    metadata={"name": "exporter", "namespace": "argocd"},
    spec={"project": "default",
          "destination": {"server": "https://kubernetes.default.svc", "namespace": "monitoring"},
          "source": {"repoURL": "https://git.example.ae/platform/charts.git", "path": "exporter",
                     "targetRevision": "main",
                     "helm": {"values": "image:\n  repository: quay.io/someone/exporter\n  tag: v1.2.0\n"}}})
