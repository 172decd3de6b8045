"""`sahab registry seed` and `pin` against a real registry on loopback: Debian's docker-registry (distribution 2.8)
serving TLS with a CA this test makes and htpasswd basic auth. An airgapped site's stack (smb's fleet, its mirror
the loopback registry) is seeded from an OCI layout the test builds, one distinct image or chart per artifact,
then pinned; `sahab check` with the digest rule mandatory fails before the pin and passes after, with no waiver.

Credentials reach the commands through the Docker config (seed) and the environment (pin), and the tools never
see them on their command line (a recording skopeo shim on PATH). Needs skopeo, docker-registry, htpasswd and
openssl (`make host-deps`); skipped with the reason otherwise."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tools.ports import free_port

TOOLS = ("skopeo", "docker-registry", "htpasswd", "openssl")
MISSING = [t for t in TOOLS if shutil.which(t) is None]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)} "
                                                                           "(make host-deps, as root)")]
USER = "seeder"
DIGEST_RULE = "kubernetes-all-workload-image-digest-pinned"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """A TLS, basic-auth registry on 127.0.0.1: (host, CA file, password). Stopped afterwards."""
    folder = tmp_path_factory.mktemp("registry")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
             "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=sahab test CA", cwd=folder)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "1", "-out", "server.pem", "-extfile", "san.ext", cwd=folder)
    password = secrets.token_urlsafe(18)
    htpasswd = subprocess.run(["htpasswd", "-Bbn", USER, password], capture_output=True, text=True, check=True)
    (folder / "htpasswd").write_text(htpasswd.stdout)
    port = free_port()
    config = {"version": 0.1, "log": {"level": "error"},
              "storage": {"filesystem": {"rootdirectory": str(folder / "data")}},
              "http": {"addr": f"127.0.0.1:{port}", "tls": {"certificate": str(folder / "server.pem"),
                                                           "key": str(folder / "server.key")}},
              "auth": {"htpasswd": {"realm": "sahab-test", "path": str(folder / "htpasswd")}}}
    (folder / "config.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.Popen(["docker-registry", "serve", str(folder / "config.yml")], stdout=subprocess.DEVNULL,
                            stderr=(folder / "registry.log").open("w"))
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail(f"docker-registry did not listen: {(folder / 'registry.log').read_text()[-2000:]}")
        yield f"localhost:{port}", folder / "ca.pem", password
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def program(tmp_path_factory, registry):
    """This project with one more stack: smb's fleet as an airgapped site whose mirror is the loopback registry."""
    host = registry[0]
    folder = tmp_path_factory.mktemp("program")
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    (folder / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "__main__.py", folder / "stacks" / "__main__.py")
    (folder / ".venv").symlink_to(ROOT / ".venv")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.smb.yaml").read_text())
    fleet = doc["config"]["sahab:fleet"]
    fleet["registries"] = {"onprem": {"host": host}}
    fleet["sites"][0]["airgapped"] = True
    (folder / "stacks" / "Pulumi.site.yaml").write_text(yaml.safe_dump(doc))
    return folder


def sahab(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _blob(layout: Path, data: bytes, media_type: str) -> dict:
    digest = hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256" / digest).write_bytes(data)
    return {"mediaType": media_type, "digest": f"sha256:{digest}", "size": len(data)}


def _manifest(layout: Path, name: str, chart: bool) -> dict:
    """One small, distinct artifact: a one-file image, or a Helm chart as Helm pushes it."""
    if chart:
        config = _blob(layout, json.dumps({"name": name, "version": "0.0.0"}).encode(),
                       "application/vnd.cncf.helm.config.v1+json")
        layers = [_blob(layout, gzip.compress(name.encode(), mtime=0),
                        "application/vnd.cncf.helm.chart.content.v1.tar+gzip")]
    else:
        tar = io.BytesIO()
        with tarfile.open(fileobj=tar, mode="w") as archive:
            info = tarfile.TarInfo("artifact.txt")
            info.size = len(name.encode())
            archive.addfile(info, io.BytesIO(name.encode()))
        raw = tar.getvalue()
        layers = [_blob(layout, gzip.compress(raw, mtime=0), "application/vnd.oci.image.layer.v1.tar+gzip")]
        config = _blob(layout, json.dumps({"architecture": "amd64", "os": "linux", "config": {"Labels": {"n": name}},
                                           "rootfs": {"type": "layers", "diff_ids": [
                                               "sha256:" + hashlib.sha256(raw).hexdigest()]}}).encode(),
                       "application/vnd.oci.image.config.v1+json")
    manifest = _blob(layout, json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                                         "config": config, "layers": layers}).encode(),
                     "application/vnd.oci.image.manifest.v1+json")
    return {**manifest, "annotations": {"org.opencontainers.image.ref.name": name}}


@pytest.fixture(scope="module")
def layout(tmp_path_factory, program):
    """An OCI layout holding every artifact of the site's seed list under the names `registry seed --from` reads:
    (folder, layout name -> manifest digest)."""
    from sahab.project import find_project
    from sahab.registry.seed import layout_name
    from sahab.registry.stack import entries

    folder = tmp_path_factory.mktemp("layout")
    (folder / "blobs" / "sha256").mkdir(parents=True)
    _, listed = entries(find_project(program), "site")
    manifests = [_manifest(folder, layout_name(e), e.kind == "chart") for e in listed]
    (folder / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    (folder / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": manifests,
                                                   "mediaType": "application/vnd.oci.image.index.v1+json"}))
    return folder, {m["annotations"]["org.opencontainers.image.ref.name"]: m["digest"] for m in manifests}


@pytest.fixture(scope="module")
def recorded_argv(tmp_path_factory):
    """A skopeo on PATH that records its argv, then runs the real one."""
    folder = tmp_path_factory.mktemp("shim")
    log = folder / "argv.log"
    shim = folder / "skopeo"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {shutil.which("skopeo")} "$@"\n')
    shim.chmod(0o755)
    return folder, log


def check(program: Path, tmp_path: Path, host: str) -> dict:
    # The digest rule mandatory; the site's mirror the one registry its images may come from (the trusted policy
    # config names it, as policies/config/smb.json names smb's).
    mandatory = tmp_path / "mandatory.json"
    mandatory.write_text(json.dumps({DIGEST_RULE: "mandatory",
                                     "kubernetes-all-workload-image-registry-allowed": {"allowedRegistries": [host]}}))
    no_waivers = tmp_path / "waivers.yaml"
    no_waivers.write_text("waivers: []\n")
    done = sahab("check", "--stack", "site", "--program", str(program), "--policy-config", str(mandatory),
                 "--waivers", str(no_waivers), "--format", "json", "--quiet")
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return {"code": done.returncode, **json.loads(done.stdout)}


def test_seed_pin_and_check_against_a_real_registry(registry, program, layout, recorded_argv, tmp_path):
    host, ca, password = registry
    folder, manifests = layout
    before = check(program, tmp_path, host)
    assert before["code"] == 1 and [v for v in before["violations"] if v["policy"] == DIGEST_RULE]

    docker_config = tmp_path / "docker"
    docker_config.mkdir()
    auth = base64.b64encode(f"{USER}:{password}".encode()).decode()
    (docker_config / "config.json").write_text(json.dumps({"auths": {host: {"auth": auth}}}))
    shims, argv_log = recorded_argv
    seeded = sahab("registry", "seed", "--stack", "site", "--program", str(program), "--from", str(folder),
                   "--ca-file", str(ca), env={"DOCKER_CONFIG": str(docker_config),
                                              "PATH": f"{shims}:{os.environ['PATH']}"})
    assert seeded.returncode == 0, seeded.stderr[-3000:]
    assert f"{len(manifests)} of {len(manifests)} artifacts seeded" in seeded.stderr
    argv = argv_log.read_text()
    assert argv.count("copy --all") == len(manifests) and password not in argv and auth not in argv

    pinned = sahab("registry", "pin", "--stack", "site", "--program", str(program), "--ca-file", str(ca),
                   env={"SAHAB_REGISTRY_USERNAME": USER, "SAHAB_REGISTRY_PASSWORD": password})
    assert pinned.returncode == 0, pinned.stderr[-3000:]
    lock = {line.split()[0]: line.split()[1] for line in (program / "stacks" / "digests.lock").read_text()
            .splitlines() if line and not line.startswith("#")}
    from sahab.project import find_project
    from sahab.registry.seed import layout_name
    from sahab.registry.stack import entries

    _, listed = entries(find_project(program), "site", digests={})
    assert len(lock) == len(listed)
    for entry in listed:  # the registry's answer is the layout's manifest, byte for byte
        assert lock[entry.target.removeprefix("oci://")] == manifests[layout_name(entry)], entry.target
    assert password not in pinned.stdout + pinned.stderr

    after = check(program, tmp_path, host)
    assert [v for v in after["violations"] if v["policy"] == DIGEST_RULE] == []
    assert after["code"] == 0, [v["message"] for v in after["violations"] if v["enforcement"] == "mandatory"]


def test_pin_refuses_without_the_right_credentials(registry, program):
    host, ca, _ = registry
    done = sahab("registry", "pin", "--stack", "site", "--program", str(program), "--ca-file", str(ca),
                 env={"SAHAB_REGISTRY_USERNAME": USER, "SAHAB_REGISTRY_PASSWORD": "wrong",
                      "DOCKER_CONFIG": "/nonexistent"})
    assert done.returncode == 1 and f"failed: {host}/" in done.stderr and "credentials refused" in done.stderr


def test_pin_refuses_a_registry_its_ca_does_not_vouch_for(registry, program):
    done = sahab("registry", "pin", "--stack", "site", "--program", str(program),
                 env={"SAHAB_REGISTRY_USERNAME": USER, "SAHAB_REGISTRY_PASSWORD": registry[2]})
    assert done.returncode == 1 and "CERTIFICATE_VERIFY_FAILED" in done.stderr
