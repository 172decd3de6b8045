"""Supply chain: a Flux HelmRelease takes its values from a ConfigMap when it installs: the pack cannot see which
images they name, so the registry rule fails closed."""
# expect: kubernetes-all-workload-image-registry-allowed cache-release

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "cache-release", api_version="helm.toolkit.fluxcd.io/v2", kind="HelmRelease",
    metadata={"name": "cache", "namespace": "research"},
    spec={"interval": "10m", "chart": {"spec": {"chart": "redis", "sourceRef": {"kind": "HelmRepository",
                                                                                "name": "in-country"}}},
          "valuesFrom": [{"kind": "ConfigMap", "name": "cache-values"}]})
