"""Supply chain: an Argo Workflow (a CRD, not a core workload kind) runs a step from Docker Hub."""
# expect: kubernetes-all-workload-image-registry-allowed nightly-export

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "nightly-export", api_version="argoproj.io/v1alpha1", kind="Workflow",
    metadata={"generate_name": "export-", "namespace": "research"},
    spec={"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": "copy", "template": "copy"}]]},
        {"name": "copy", "container": {"image": "docker.io/someone/s3-sync:latest",
                                       "command": ["sync", "/data", "s3://bucket"]}},
    ]})
