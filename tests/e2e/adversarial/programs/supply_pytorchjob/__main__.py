"""Supply chain: a Kubeflow PyTorchJob's master replica runs an image from GitHub's registry."""
# expect: kubernetes-all-workload-image-registry-allowed finetune

import pulumi_kubernetes as k8s

template = {"spec": {"containers": [{"name": "pytorch", "image": "ghcr.io/example/finetune:1.2",
                                     "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}
k8s.apiextensions.CustomResource(
    "finetune", api_version="kubeflow.org/v1", kind="PyTorchJob", metadata={"namespace": "research"},
    spec={"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": template},
                                  "Worker": {"replicas": 3, "template": template}}})
