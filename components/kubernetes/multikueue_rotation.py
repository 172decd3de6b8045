"""Rotates the MultiKueue manager's tokens for its workers: run every hour by a CronJob on the manager cluster.

Not a Pulumi module: the component ships this file in a ConfigMap and the training image's Python runs it, so it
uses the standard library only.

Kueue v0.19.2 reads each worker's kubeconfig from a Secret and accepts only a static bearer token in it (no
tokenFile, no exec plugin: kubernetes-sigs/kueue v0.19.2, pkg/controller/admissionchecks/multikueue/
multikueuecluster.go, validateKubeconfig and validateRestConfig), and reconnects when the Secret changes. So the
token is short-lived and this job replaces it before it ends: for each worker it asks the worker's API server for a
new token of the `multikueue` service account (TokenRequest, ROTATION_TOKEN_SECONDS, default 6 h), with the current
token, or with the bootstrap token Pulumi wrote while the current one does not work, and writes it into the Secret
Kueue reads (`multikueue-<worker>`), with the server and CA of the bootstrap Secret Pulumi keeps current
(`multikueue-<worker>-bootstrap`). The bootstrap token is the one long-lived credential, a legacy service account
token Secret on the worker: once a rotation has worked, this job deletes that Secret, which ends the token with it.
If rotation stops for longer than a token lives, `pulumi up --refresh` makes a new bootstrap.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import sys
import urllib.error
import urllib.request
from pathlib import Path

ACCOUNT = "multikueue"
BOOTSTRAP_SECRET = "multikueue-bootstrap-token"  # on each worker, in the Kueue namespace
DEFAULT_SA_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


class ApiError(RuntimeError):
    pass


def _call(url: str, token: str, ca_pem: str, method: str = "GET", body: dict | None = None) -> dict:
    context = ssl.create_default_context(cadata=ca_pem)
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                                              "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as answer:  # the CA given, https only
            text = answer.read()
    except urllib.error.HTTPError as exc:
        raise ApiError(f"{method} {url}: HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ApiError(f"{method} {url}: {getattr(exc, 'reason', exc)}") from None
    return json.loads(text) if text else {}


def _kubeconfig(secret: dict) -> dict:
    return json.loads(base64.b64decode(secret["data"]["kubeconfig"]))


def _parts(kubeconfig: dict) -> tuple[str, str, str]:
    """(server, CA as PEM, token) of the single cluster and user of a kubeconfig the component wrote."""
    cluster = kubeconfig["clusters"][0]["cluster"]
    ca_pem = base64.b64decode(cluster["certificate-authority-data"]).decode()
    return cluster["server"].rstrip("/"), ca_pem, kubeconfig["users"][0]["user"]["token"]


def with_token(kubeconfig: dict, token: str) -> dict:
    doc = json.loads(json.dumps(kubeconfig))
    doc["users"][0]["user"] = {"token": token}
    return doc


def rotate(worker: str, manager: str, manager_token: str, manager_ca: str, namespace: str, seconds: int) -> str:
    """Mint and store a new token for one worker; what was done, for the log."""
    secrets = f"{manager}/api/v1/namespaces/{namespace}/secrets"
    live = _call(f"{secrets}/multikueue-{worker}", manager_token, manager_ca)
    bootstrap = _kubeconfig(_call(f"{secrets}/multikueue-{worker}-bootstrap", manager_token, manager_ca))
    server, ca_pem, bootstrap_token = _parts(bootstrap)
    current = _parts(_kubeconfig(live))[2]
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
               "spec": {"expirationSeconds": seconds}}
    minted, used, failures = None, None, []
    for name, token in (("current", current), ("bootstrap", bootstrap_token)):
        try:
            answer = _call(f"{server}/api/v1/namespaces/{namespace}/serviceaccounts/{ACCOUNT}/token", token, ca_pem,
                           "POST", request)
            minted, used = answer["status"]["token"], name
            break
        except ApiError as exc:
            failures.append(f"with the {name} token: {exc}")
    if minted is None:
        raise ApiError(f"worker {worker}: no new token ({'; '.join(failures)})")
    live["data"]["kubeconfig"] = base64.b64encode(json.dumps(with_token(bootstrap, minted)).encode()).decode()
    _call(f"{secrets}/multikueue-{worker}", manager_token, manager_ca, "PUT", live)
    revoked = ""
    try:  # the bootstrap token ends with its Secret on the worker
        _call(f"{server}/api/v1/namespaces/{namespace}/secrets/{BOOTSTRAP_SECRET}", minted, ca_pem, "DELETE")
        revoked = "; its bootstrap token revoked"
    except ApiError as exc:
        if "HTTP 404" not in str(exc):
            raise
    return f"worker {worker}: new {seconds}s token (minted with the {used} token){revoked}"


def main(sa_dir: Path = DEFAULT_SA_DIR, manager: str | None = None) -> int:
    namespace = os.environ.get("ROTATION_NAMESPACE", "kueue-system")
    workers = [w for w in os.environ.get("ROTATION_WORKERS", "").split(",") if w]
    seconds = int(os.environ.get("ROTATION_TOKEN_SECONDS", "21600"))
    manager = manager or f"https://{os.environ['KUBERNETES_SERVICE_HOST']}:{os.environ['KUBERNETES_SERVICE_PORT']}"
    token, ca_pem = (sa_dir / "token").read_text().strip(), (sa_dir / "ca.crt").read_text()
    failed = False
    for worker in workers:
        try:
            print(rotate(worker, manager, token, ca_pem, namespace, seconds))
        except (ApiError, KeyError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
