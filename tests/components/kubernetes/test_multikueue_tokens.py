"""MultiKueue's identity on a worker: namespaced rights to change Jobs, read-only across the cluster (Kueue's
watches), and short-lived tokens that a CronJob on the manager renews through TokenRequest.

The rotation script runs here as the CronJob runs it, against two HTTPS API servers on loopback (a manager that
holds the kubeconfig Secrets, a worker that mints tokens), each answering only the tokens it knows.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sahab.components.kubernetes import multikueue, multikueue_rotation
from sahab.components.kubernetes.multikueue import worker_kubeconfig

from tests.plans import stack_plan

NS = "kueue-system"


def _certificate(tmp_path, name: str) -> tuple[str, str, str]:
    """A self-signed certificate for 127.0.0.1: (cert file, key file, PEM)."""
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    (tmp_path / f"{name}.crt").write_text(pem)
    (tmp_path / f"{name}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                             serialization.PrivateFormat.PKCS8,
                                                             serialization.NoEncryption()))
    return str(tmp_path / f"{name}.crt"), str(tmp_path / f"{name}.key"), pem


class FakeApi:
    """A Kubernetes API server that knows some tokens, some Secrets and how to mint service account tokens."""

    def __init__(self, tmp_path, name: str, tokens: set[str]):
        self.tokens, self.secrets, self.minted, self.calls = set(tokens), {}, [], []
        cert, key, self.ca_pem = _certificate(tmp_path, name)
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, code: int, body: dict | None = None):
                data = json.dumps(body or {}).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _serve(self, method: str):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                api.calls.append((method, self.path, self.headers.get("Authorization", "")))
                if self.headers.get("Authorization", "").removeprefix("Bearer ") not in api.tokens:
                    return self._answer(401)
                name = self.path.rsplit("/", 1)[-1]
                if self.path.endswith(f"/namespaces/{NS}/serviceaccounts/multikueue/token") and method == "POST":
                    token = f"short-lived-{len(api.minted)}"
                    api.minted.append((token, json.loads(body)["spec"]["expirationSeconds"]))
                    api.tokens.add(token)
                    return self._answer(201, {"status": {"token": token}})
                if f"/namespaces/{NS}/secrets/" in self.path:
                    if name not in api.secrets:
                        return self._answer(404)
                    if method == "GET":
                        return self._answer(200, api.secrets[name])
                    if method == "PUT":
                        api.secrets[name] = json.loads(body)
                        return self._answer(200, api.secrets[name])
                    if method == "DELETE":
                        del api.secrets[name]
                        if name == "multikueue-bootstrap-token":
                            api.tokens.discard("bootstrap")  # a legacy token ends with its Secret
                        return self._answer(200)
                return self._answer(404)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

            def do_PUT(self):
                self._serve("PUT")

            def do_DELETE(self):
                self._serve("DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()


def _secret(kubeconfig: str) -> dict:
    encoded = base64.b64encode(kubeconfig.encode()).decode()
    return {"apiVersion": "v1", "kind": "Secret", "data": {"kubeconfig": encoded}}


def _token_in(secret: dict) -> str:
    return json.loads(base64.b64decode(secret["data"]["kubeconfig"]))["users"][0]["user"]["token"]


@pytest.fixture
def apis(tmp_path, monkeypatch):
    worker = FakeApi(tmp_path, "worker", {"bootstrap"})
    worker.secrets["multikueue-bootstrap-token"] = {"type": "kubernetes.io/service-account-token"}
    manager = FakeApi(tmp_path, "manager", {"rotation-sa-token"})
    cluster = json.dumps({"clusters": [{"name": "w", "cluster": {
        "server": worker.url, "certificate-authority-data": base64.b64encode(worker.ca_pem.encode()).decode()}}]})
    first = worker_kubeconfig("eks-main", cluster, "bootstrap")
    manager.secrets = {"multikueue-eks-main": _secret(first), "multikueue-eks-main-bootstrap": _secret(first)}
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("rotation-sa-token\n")
    (sa / "ca.crt").write_text(manager.ca_pem)
    monkeypatch.setenv("ROTATION_WORKERS", "eks-main")
    monkeypatch.setenv("ROTATION_TOKEN_SECONDS", str(multikueue.TOKEN_SECONDS))
    yield manager, worker, sa
    manager.close()
    worker.close()


def test_the_first_rotation_replaces_the_bootstrap_token_and_revokes_it(apis, capsys):
    manager, worker, sa = apis
    assert multikueue_rotation.main(sa, manager.url) == 0
    live = manager.secrets["multikueue-eks-main"]
    assert _token_in(live) == "short-lived-0" and worker.minted == [("short-lived-0", 6 * 3600)]
    assert "multikueue-bootstrap-token" not in worker.secrets and "bootstrap" not in worker.tokens
    assert _token_in(manager.secrets["multikueue-eks-main-bootstrap"]) == "bootstrap"  # Pulumi's, only read
    assert "revoked" in capsys.readouterr().out
    # The next run renews with the current token, the bootstrap now being dead.
    assert multikueue_rotation.main(sa, manager.url) == 0
    assert _token_in(manager.secrets["multikueue-eks-main"]) == "short-lived-1"
    assert worker.calls[-2][2] == "Bearer short-lived-0"


def test_a_rotation_without_a_working_token_fails_naming_the_worker_and_changes_nothing(apis, capsys):
    manager, worker, sa = apis
    worker.tokens.clear()
    before = json.dumps(manager.secrets)
    assert multikueue_rotation.main(sa, manager.url) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: worker eks-main: no new token (with the current token: POST ")
    assert "HTTP 401" in err and "\n" not in err
    assert json.dumps(manager.secrets) == before


def test_the_rotation_trusts_only_the_workers_own_ca(apis, tmp_path, capsys):
    manager, worker, sa = apis
    _, _, other_ca = _certificate(tmp_path, "impostor")
    for name in ("multikueue-eks-main", "multikueue-eks-main-bootstrap"):
        doc = json.loads(base64.b64decode(manager.secrets[name]["data"]["kubeconfig"]))
        doc["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(other_ca.encode()).decode()
        manager.secrets[name] = _secret(json.dumps(doc))
    assert multikueue_rotation.main(sa, manager.url) == 1
    assert "CERTIFICATE_VERIFY_FAILED" in capsys.readouterr().err and not worker.minted


@pytest.fixture(scope="module")
def burst():
    return stack_plan("burst")


def test_the_workers_identity_changes_jobs_only_in_team_namespaces(burst):
    def rbac(kind):
        return [r for r in burst.resources if r.type == f"kubernetes:rbac.authorization.k8s.io/v1:{kind}"
                and "-mk-" in r.name]

    mutating = {"create", "update", "patch", "delete", "deletecollection", "*"}
    for role in rbac("ClusterRole"):
        for rule in role.inputs["rules"]:
            assert not mutating & set(rule["verbs"]), (role.name, rule)  # across the cluster: read only
            assert set(rule["resources"]) <= {"jobs", "workloads"}
    teams = {"research", "ml-training"}
    roles = [r for r in rbac("Role") if r.inputs["metadata"]["namespace"] != NS]
    assert {r.inputs["metadata"]["namespace"] for r in roles} == teams
    assert len(roles) == 2 * len(teams)  # each worker, each team
    (token_rules,) = {json.dumps(r.inputs["rules"]) for r in rbac("Role") if r.inputs["metadata"]["namespace"] == NS}
    for rule in json.loads(token_rules):  # in the Kueue namespace: its own next token, its bootstrap's end
        assert rule["resourceNames"] in (["multikueue"], ["multikueue-bootstrap-token"])
        assert rule["verbs"] in (["create"], ["delete"])
    for binding in rbac("ClusterRoleBinding") + rbac("RoleBinding"):
        assert binding.inputs["subjects"] == [{"kind": "ServiceAccount", "name": "multikueue", "namespace": NS}]


def test_the_manager_rotates_every_workers_token_with_a_narrow_account(burst):
    (cron,) = [r.inputs for r in burst.resources if r.type == "kubernetes:batch/v1:CronJob"]
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["ROTATION_WORKERS"] == "eks-main,aks-main" and int(env["ROTATION_TOKEN_SECONDS"]) <= 24 * 3600
    assert cron["spec"]["schedule"] == "17 * * * *" and pod["serviceAccountName"] == "multikueue-token-rotation"
    (script,) = [r.inputs for r in burst.resources if r.type == "kubernetes:core/v1:ConfigMap"
                 and r.inputs["metadata"]["name"] == "multikueue-token-rotation"]
    assert script["data"]["multikueue_rotation.py"] == multikueue.ROTATION_SCRIPT.read_text()
    (role,) = [r.inputs for r in burst.resources if r.name.endswith("-rotation-role")]
    assert [rule["verbs"] for rule in role["rules"]] == [["get"], ["update"]]
    assert role["rules"][1]["resourceNames"] == ["multikueue-eks-main", "multikueue-aks-main"]
    assert all(rule["resources"] == ["secrets"] for rule in role["rules"])
    # No worker keeps a token Secret Kueue reads from: the one it has is the bootstrap, revoked by the first run.
    assert {r.inputs["metadata"]["name"] for r in burst.resources if r.type == "kubernetes:core/v1:Secret"
            and r.inputs.get("type") == "kubernetes.io/service-account-token"} == {"multikueue-bootstrap-token"}
