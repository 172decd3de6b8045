"""Supply chain: a Helm v4 Chart (rendered by the provider) sets an image from quay.io in its values."""
# expect: kubernetes-all-workload-image-registry-allowed redis

import pulumi_kubernetes as k8s

k8s.helm.v4.Chart("redis", chart="oci://registry-1.docker.io/bitnamicharts/redis", version="20.1.0",
                  namespace="cache", values={"image": {"registry": "quay.io", "repository": "opstree/redis",
                                                       "tag": "v7.2.4"}})
