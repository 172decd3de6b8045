"""Supply chain: a Flux HelmRelease (a CRD) overrides a chart's image in its values with a Docker Hub one."""
# expect: kubernetes-all-workload-image-registry-allowed jupyterhub

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "jupyterhub", api_version="helm.toolkit.fluxcd.io/v2", kind="HelmRelease",
    metadata={"namespace": "notebooks"},
    spec={"interval": "10m", "chart": {"spec": {"chart": "jupyterhub", "version": "4.0.0",
                                                "sourceRef": {"kind": "HelmRepository", "name": "jupyterhub"}}},
          "values": {"singleuser": {"image": {"name": "docker.io/jupyter/datascience-notebook",
                                              "tag": "2024-05-01"}},
                     "hub": {"image": {"repository": "docker.io/jupyterhub/k8s-hub", "tag": "4.0.0"}}}})
