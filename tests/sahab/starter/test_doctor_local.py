"""`sahab doctor`'s local areas, each with and without what it checks: SSH and sudo and clocks on real test hosts,
the Pulumi backend login and secrets passphrase, cloud credentials, the program's virtualenv, the registry mirror
(a TLS server on loopback)."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from tests.sahab.starter.conftest import ROOT, sahab

SMB1_KEY_WRONG = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAF2THcYyCMSVaAGtZQ04/xZZyQAtsyoxhmsoyTFHu6W"


def _stack(project: Path, hosts) -> None:
    """A stack of the given (test host, recorded host key) pairs, as sahab init writes them."""
    lines = "\n".join(f"          - {{name: {h.name}, address: {h.address}, port: {h.port}, cpus: 2, memory_gib: 4, "
                      f"ssh_host_keys: ['{key}']}}" for h, key in hosts)
    (project / "stacks" / "Pulumi.office.yaml").write_text(
        "config:\n  sahab:fleet:\n    name: office\n    environment: smb\n    sites:\n      - name: office\n"
        "        emirate: dubai\n        city: Dubai\n        ssh_user: sahab\n        hosts:\n" + lines + "\n")


def _doctor(project: Path, *areas: str, env: dict | None = None) -> dict[str, dict]:
    args = ["doctor", "--stack", "office", "--program", str(project), "--format", "json", "--timeout", "5"]
    for area in areas:
        args += ["--only", area]
    done = sahab(*args, env=env)
    assert done.returncode in (0, 1), done.stderr
    checks = json.loads(done.stdout)["checks"]
    return {f"{c['area']}:{c['name']}": {**c, "rc": done.returncode} for c in checks}


@pytest.fixture(scope="module")
def agent(site) -> dict:
    """An ssh-agent holding the test client key: what Ansible uses when the stack sets no key."""
    out = subprocess.run(["ssh-agent", "-s"], capture_output=True, text=True, check=True).stdout
    env = dict(part.split("=", 1) for part in out.replace(";", "\n").split() if "=" in part and part.startswith("SSH_"))
    subprocess.run(["ssh-add", "-q", str(site["key"])], env={**os.environ, **env}, check=True, capture_output=True)
    yield env
    # The agent is no child of ours: if it ended meanwhile, its pid may be another process's by now.
    pid = int(env["SSH_AGENT_PID"])
    try:
        still_the_agent = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"ssh-agent")
    except OSError:
        still_the_agent = False
    if still_the_agent:
        os.kill(pid, signal.SIGTERM)


@pytest.mark.hosts
def test_ssh_sudo_and_clock_on_every_host(site, project, agent):
    smb1, smb2, smb3 = site["hosts"]
    _stack(project, [(smb1, smb1.host_public_key), (smb2, smb2.host_public_key)])
    found = _doctor(project, "ssh", "clock", env=agent)
    ssh = [c for c in found.values() if c["area"] == "ssh"]
    assert [c["status"] for c in ssh] == ["ok", "ok"] and "passwordless sudo" in ssh[0]["detail"]
    clocks = [c for key, c in found.items() if key.startswith("clock:smb")]
    assert [c["status"] for c in clocks] == ["ok", "ok"] and "s from this machine" in clocks[0]["detail"]

    # Without the key in an agent; with a recorded host key that is not the host's.
    refused = _doctor(project, "ssh", env={"SSH_AUTH_SOCK": ""})
    assert all(c["status"] == "fail" and "login refused" in c["detail"] for c in refused.values())
    _stack(project, [(smb1, SMB1_KEY_WRONG), (smb2, smb2.host_public_key)])
    wrong = _doctor(project, "ssh", env=agent)
    assert wrong[f"ssh:smb1 (sahab@{smb1.address}:{smb1.port})"]["status"] == "fail"
    assert "differs" in wrong[f"ssh:smb1 (sahab@{smb1.address}:{smb1.port})"]["detail"]
    assert wrong[f"ssh:smb2 (sahab@{smb2.address}:{smb2.port})"]["status"] == "ok"

    # No sudo, and a clock 300 s ahead, on smb3.
    sudoers, date = smb3.path("/etc/sudoers.d/sahab"), smb3.path("/usr/local/bin/date")
    saved = sudoers.read_text()
    try:
        sudoers.unlink()
        date.write_text('#!/bin/sh\necho "$(( $(/bin/date +%s) + 300 )).000000000"\n')
        date.chmod(0o755)
        _stack(project, [(smb3, smb3.host_public_key)])
        broken = _doctor(project, "ssh", "clock", env=agent)
        key = f"smb3 (sahab@{smb3.address}:{smb3.port})"
        assert broken[f"ssh:{key}"]["status"] == "fail"
        assert "no passwordless sudo" in broken[f"ssh:{key}"]["detail"]
        assert broken[f"clock:{key}"]["status"] == "fail"
        assert 295 < float(broken[f"clock:{key}"]["detail"].split()[0]) < 301
        assert broken[f"clock:{key}"]["rc"] == 1
    finally:
        sudoers.write_text(saved)
        sudoers.chmod(0o440)
        date.unlink()


def _in_process(project: Path, area: str, stack: str = "office") -> dict[str, object]:
    """One area's checks run in this process (the CLI's exit code and lines are asserted in the host test)."""
    import importlib

    from sahab.components.fleet_config import parse_fleet

    from sahab.doctor import DoctorContext
    from sahab.project import find_project, load_stack

    found = find_project(project)
    config = load_stack(found, stack)
    raw = config.values.get("sahab:fleet")
    ctx = DoctorContext(project_dir=found.root, stack=stack, fleet=parse_fleet(json.loads(raw)) if raw else None,
                        config=dict(config.values), timeout=5)
    return {c.name: c for c in importlib.import_module(f"sahab.doctor.{area}").checks(ctx)}


@pytest.fixture()
def clean_env(monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no pulumi CLI: the offline reading
    for var in list(os.environ):
        if var.startswith(("PULUMI_", "AWS_", "ARM_", "AZURE_", "SSL_CERT")):
            monkeypatch.delenv(var)
    return home


def test_backend_login_and_secrets_passphrase(project, tmp_path, clean_env, monkeypatch):
    home = clean_env
    (project / "stacks" / "Pulumi.office.yaml").write_text("config: {}\n")
    found = _in_process(project, "backend")
    assert found["login"].status == "fail" and "pulumi login" in found["login"].remedy
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{state}")
    found = _in_process(project, "backend")
    assert found["login"].status == "ok" and found["secrets"].status == "fail"  # a self-managed backend's passphrase
    secret = tmp_path / "passphrase"
    secret.write_text("correct horse")
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE_FILE", str(secret))
    assert _in_process(project, "backend")["secrets"].status == "ok"
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/missing")
    assert _in_process(project, "backend")["login"].status == "fail"
    monkeypatch.delenv("PULUMI_BACKEND_URL")
    (home / ".pulumi").mkdir()
    creds = home / ".pulumi" / "credentials.json"
    creds.write_text(json.dumps({"current": "https://api.pulumi.com", "accessTokens": {}}))
    found = _in_process(project, "backend")
    assert found["login"].status == "fail" and "no access token" in found["login"].detail
    creds.write_text(json.dumps({"current": "https://api.pulumi.com",
                                 "accessTokens": {"https://api.pulumi.com": "pul-0000"}}))
    found = _in_process(project, "backend")
    assert found["login"].status == "ok" and found["secrets"].status == "skip"
    assert "pul-0000" not in repr(found)


def test_backend_asks_the_pulumi_cli_when_there_is_one(project, tmp_path, clean_env, monkeypatch):
    (project / "stacks" / "Pulumi.office.yaml").write_text("config: {}\n")
    tool = tmp_path / "bin" / "pulumi"
    tool.parent.mkdir()
    monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
    tool.write_text("#!/bin/sh\n[ \"$1\" = whoami ] || exit 2\necho 'User: alice'\necho 'Backend URL: "
                    "https://api.pulumi.com'\n")
    tool.chmod(0o755)
    found = _in_process(project, "backend")["login"]
    assert found.status == "ok" and "alice" in found.detail
    tool.write_text("#!/bin/sh\necho 'error: PULUMI_ACCESS_TOKEN must be set for login during non-interactive "
                    "CLI sessions' >&2\nexit 255\n")
    found = _in_process(project, "backend")["login"]
    assert found.status == "fail" and "PULUMI_ACCESS_TOKEN must be set" in found.detail


def test_cloud_credentials_only_for_the_clouds_of_the_stack(clean_env, monkeypatch):
    home = clean_env
    (home / ".aws").mkdir()
    found = _in_process(ROOT, "credentials", "smb")
    assert list(found) == ["clouds"] and found["clouds"].status == "skip"
    found = _in_process(ROOT, "credentials", "prod")
    assert found["aws"].status == "fail" and found["azure"].status == "fail"
    (home / ".aws" / "credentials").write_text("[fleet]\naws_access_key_id = AKIAEXAMPLE\n"
                                               "aws_secret_access_key = x\n")
    (home / ".azure").mkdir()
    (home / ".azure" / "azureProfile.json").write_text(json.dumps(
        {"subscriptions": [{"id": "00000000-0000-0000-0000-000000000001", "isDefault": True}]}))
    monkeypatch.setenv("AWS_PROFILE", "fleet")
    found = _in_process(ROOT, "credentials", "prod")
    assert found["aws"].status == "ok" and "profile fleet" in found["aws"].detail
    assert found["azure"].status == "ok"
    monkeypatch.setenv("AWS_PROFILE", "other")
    monkeypatch.setenv("ARM_CLIENT_SECRET", "x")
    found = _in_process(ROOT, "credentials", "prod")
    assert found["aws"].status == "fail" and found["azure"].status == "fail" and "client id" in found["azure"].detail


def test_program_virtualenv_against_its_requirements(project):
    shutil.copy(ROOT / "stacks" / "requirements.txt", project / "stacks" / "requirements.txt")
    (project / "stacks" / "Pulumi.office.yaml").write_text("config: {}\n")
    found = _in_process(project, "python")
    assert found["virtualenv"].status == "ok", found
    with open(project / "stacks" / "requirements.txt", "a") as extra:
        extra.write("\nsahab-no-such-package==1.0 \\\n    --hash=sha256:00\n")
    found = _in_process(project, "python")
    assert found["virtualenv"].status == "fail" and "sahab-no-such-package" in found["virtualenv"].detail
    (project / ".venv").unlink()
    found = _in_process(project, "python")
    assert found["virtualenv"].status == "fail" and "pulumi install" in found["virtualenv"].remedy


class _Registry(http.server.BaseHTTPRequestHandler):
    status = 401

    def do_GET(self):
        self.send_response(self.status if self.path == "/v2/" else 404)
        self.send_header("Docker-Distribution-API-Version", "registry/2.0")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture()
def tls_registry(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    handler = type("Handler", (_Registry,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"port": server.server_address[1], "ca": cert, "handler": handler}
    server.shutdown()


def test_registry_mirror_tls_and_v2(project, tls_registry, clean_env, monkeypatch):
    (project / "stacks" / "Pulumi.office.yaml").write_text("config: {}\n")
    assert _in_process(project, "mirror")["registry mirror"].status == "skip"

    def with_mirror(host: str):
        (project / "stacks" / "Pulumi.office.yaml").write_text(
            "config:\n  sahab:fleet:\n    name: office\n    environment: smb\n"
            f"    registries: {{onprem: {{host: '{host}'}}}}\n")
        return _in_process(project, "mirror")[host]

    host = f"localhost:{tls_registry['port']}"
    untrusted = with_mirror(host)
    assert untrusted.status == "fail" and "not trusted" in untrusted.detail
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_registry["ca"]))
    good = with_mirror(host)
    assert good.status == "ok" and "401" in good.detail
    tls_registry["handler"].status = 404
    wrong = with_mirror(host)
    assert wrong.status == "fail" and "404" in wrong.detail
    closed = with_mirror("localhost:9")
    assert closed.status == "fail" and "cannot reach" in closed.detail
