"""Look-alike: a ConfigMap that merely mentions an image in its data runs nothing and is not a violation."""
# expect: pass

import pulumi_kubernetes as k8s

k8s.core.v1.ConfigMap("release-notes", metadata={"namespace": "research"},
                      data={"image": "docker.io/library/python:3.12", "name": "upstream base image of v1.3"})
