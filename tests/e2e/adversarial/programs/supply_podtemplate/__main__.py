"""Supply chain: a PodTemplate (read by controllers that stamp pods from it) names a Docker Hub image."""
# expect: kubernetes-all-workload-image-registry-allowed worker-template

import pulumi_kubernetes as k8s

k8s.core.v1.PodTemplate(
    "worker-template", metadata={"namespace": "research"},
    template={"spec": {"containers": [{"name": "worker", "image": "python:3.12-slim"}]}})
