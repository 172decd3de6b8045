"""EfaDevicePlugin: AWS's EFA device plugin on an EKS cluster, so pods can ask for `vpc.amazonaws.com/efa`.

EKS's AL2023 accelerated AMIs carry the EFA driver and user-space stack but not the device plugin (EKS user
guide, "Manage EFA devices on Amazon EKS"). One Helm release of aws/eks-charts' `aws-efa-k8s-device-plugin`
runs a DaemonSet on the nodes of EFA pools only (`sahab.io/efa: "true"`, set by components.pool_plan) and
tolerates their taints; its chart and image come from the cluster's in-country registry.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from sahab.components.artifacts import Images
from sahab.components.kubernetes.common import Args
from sahab.components.pool_plan import LABEL_EFA

NAMESPACE = "kube-system"  # where the chart's own instructions install it, beside the other node agents


class EfaDevicePluginArgs(Args):
    images: Images = Images()
    """Where the chart (pinned, v0.5.30) and its image (v0.5.20) come from. Default: upstream."""


def helm_values(args: EfaDevicePluginArgs) -> dict:
    return {
        "image": args.images.values("efa-device-plugin"),
        "nodeSelector": {LABEL_EFA: "true"},
        # EFA pools are GPU pools with the GPU taint and whatever taints the fleet adds: a device plugin must
        # run on every one of their nodes.
        "tolerations": [{"operator": "Exists"}],
    }


class EfaDevicePlugin(pulumi.ComponentResource):
    def __init__(self, name: str, args: EfaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:EfaDevicePlugin", name, None, opts)
        chart, version, repository = args.images.chart("efa-device-plugin")
        self.release = k8s.helm.v3.Release(
            f"{name}-release", name="aws-efa-k8s-device-plugin", chart=chart, version=version,
            repository_opts=repository, namespace=NAMESPACE, values=helm_values(args), atomic=True,
            opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})
