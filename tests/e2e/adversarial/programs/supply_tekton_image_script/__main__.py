"""Supply chain: a Tekton step with nothing but an image and a script (no name, command or args)."""
# expect: kubernetes-all-workload-image-registry-allowed lint-task

import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "lint-task", api_version="tekton.dev/v1", kind="Task",
    metadata={"name": "lint", "namespace": "research"},
    spec={"steps": [{"image": "python:3.12-slim", "script": "pip install ruff && ruff check ."}]})
