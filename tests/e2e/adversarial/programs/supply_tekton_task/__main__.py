"""Supply chain: a Tekton Task's step pulls its builder image from quay.io."""
# expect: kubernetes-all-workload-image-registry-allowed build-model

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "build-model", api_version="tekton.dev/v1", kind="Task", metadata={"namespace": "ci"},
    spec={"steps": [{"name": "package", "image": "quay.io/builders/packager:3",
                     "script": "tar czf /workspace/model.tgz /workspace/model"}]})
