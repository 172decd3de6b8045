"""Supply chain: an Argo CD Application rewrites a manifest's image through a Kustomize override to Docker Hub."""
# expect: kubernetes-all-workload-image-registry-allowed api-app

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "api-app", api_version="argoproj.io/v1alpha1", kind="Application",
    metadata={"name": "api", "namespace": "argocd"},
    spec={"project": "default",
          "destination": {"server": "https://kubernetes.default.svc", "namespace": "research"},
          "source": {"repoURL": "https://git.example.ae/platform/api.git", "path": "deploy",
                     "targetRevision": "main",
                     "kustomize": {"images": ["api=docker.io/someone/api:2.0"]}}})
