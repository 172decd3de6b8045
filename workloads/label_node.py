"""`python -m workloads.label_node KEY=VALUE`: label the node this pod runs on, from inside the pod.

Used by the training Job's validation step: a node that fails its benchmark marks itself so the Job's node
affinity keeps retried pods off it. Talks only to the in-cluster API server, with the pod's service-account
token (the Job binds that account to a ClusterRole that may only get and patch nodes).
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.request
from pathlib import Path

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")


def label_request(node: str, key: str, value: str, *, api: str, token: str) -> urllib.request.Request:
    """A JSON merge patch that sets one label on one node."""
    body = json.dumps({"metadata": {"labels": {key: value}}}).encode()
    return urllib.request.Request(
        f"{api}/api/v1/nodes/{node}", data=body, method="PATCH",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json",
                 "Accept": "application/json"})


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or "=" not in args[0]:
        print("error: usage: python -m workloads.label_node KEY=VALUE", file=sys.stderr)
        return 2
    key, value = args[0].split("=", 1)
    node = os.environ.get("NODE_NAME")
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    if not node or not host:
        print("error: NODE_NAME and KUBERNETES_SERVICE_HOST must be set (run inside the training pod)",
              file=sys.stderr)
        return 2
    token = (SERVICE_ACCOUNT / "token").read_text().strip()
    context = ssl.create_default_context(cafile=str(SERVICE_ACCOUNT / "ca.crt"))
    request = label_request(node, key, value, api=f"https://{host}:{port}", token=token)
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        print(f"labelled node {node}: {key}={value} (HTTP {response.status})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
