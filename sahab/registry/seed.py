"""`sahab registry seed`: copy a stack's seed list into its in-country registries with skopeo (or crane).

Each artifact comes from its upstream, or, for an airgapped site, from an OCI image layout carried in (`--from DIR`),
where it is named by `layout_name`: an image by its upstream reference (`quay.io/prometheus/prometheus:v3.14.0`),
a chart by `charts/<chart>:<version>`, Sahab's own image by its path in the registry (`sahab/workload:0.1.0`). A
layout is written the same way: `skopeo copy docker://<source> oci:DIR:<layout name>`. Copies keep every manifest
byte for byte (`--all`, no format conversion), so the digest the registry answers is the upstream's.

Charts that live in a plain Helm repository (not OCI) are pulled and pushed with helm. Credentials reach the tools
only through a private auth file (sahab.registry.credentials).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sahab.components.registry_plan import OWN_SOURCE, Entry
from sahab.errors import SahabError, UsageError
from sahab.registry.credentials import auth_file, docker_config_path

TIMEOUT = 1800  # one copy; a multi-GB CUDA image over a slow link


class SeedError(SahabError):
    exit_code = 1


def layout_name(entry: Entry) -> str:
    """How an artifact is named in an OCI layout carried to an airgapped site."""
    target = entry.target.removeprefix("oci://").partition("@")[0]
    if entry.kind == "chart":
        return target.split("/", 1)[1]  # charts/<chart>:<version>
    if entry.how == "build":
        return target.split("/", 1)[1]  # sahab/workload:<tag>
    return entry.source


def tool() -> str:
    for name in ("skopeo", "crane"):
        if shutil.which(name):
            return name
    raise UsageError("seeding needs skopeo or crane on PATH (Debian: apt-get install skopeo)")


@dataclass
class Copy:
    entry: Entry
    source: str  # what the tool reads: docker://..., oci:DIR:name, or a Helm chart reference
    destination: str  # docker://host/path:tag

    @property
    def host(self) -> str:
        return self.destination.removeprefix("docker://").split("/", 1)[0]


def plan_copies(entries: list[Entry], layout: Path | None, include_cached: bool) -> tuple[list[Copy], list[str]]:
    """The copies to make, and a note for each artifact left out (and why)."""
    copies, notes = [], []
    for entry in entries:
        if entry.how == "cache" and not include_cached:
            continue
        destination = "docker://" + entry.target.removeprefix("oci://").partition("@")[0]
        if layout is not None:
            copies.append(Copy(entry, f"oci:{layout}:{layout_name(entry)}", destination))
        elif entry.how == "build":
            notes.append(f"{entry.target}: built from {OWN_SOURCE}, not copied: docker build and push it, or seed it "
                         f"from a layout (--from)")
        elif entry.kind == "chart" and not entry.source.startswith("oci://"):
            copies.append(Copy(entry, entry.source, destination))  # a Helm repository: helm pull, helm push
        else:
            copies.append(Copy(entry, "docker://" + entry.source.removeprefix("oci://"), destination))
    return copies, notes


def _skopeo(copy: Copy, dest_auth: Path, ca_dir: Path | None) -> list[str]:
    command = ["skopeo", "copy", "--all", "--retry-times", "3", "--dest-authfile", str(dest_auth)]
    if copy.source.startswith("docker://") and docker_config_path().is_file():
        command += ["--src-authfile", str(docker_config_path())]
    if ca_dir is not None:
        command += ["--dest-cert-dir", str(ca_dir)]
    return [*command, copy.source, copy.destination]


def _crane(copy: Copy) -> list[str]:
    source = copy.source.removeprefix("docker://")
    if source.startswith("oci:"):
        raise UsageError("crane copies from registries only; seed from an OCI layout with skopeo")
    return ["crane", "copy", source, copy.destination.removeprefix("docker://")]


def _helm(copy: Copy, workdir: Path, auth: Path, ca_file: Path | None) -> list[list[str]]:
    if not shutil.which("helm"):
        raise SeedError(f"{copy.entry.source}: a chart of a Helm repository needs helm on PATH to be seeded")
    repo, _, chart = copy.entry.source.partition("#")
    name, _, version = chart.rpartition(":")
    push = ["helm", "push", str(workdir / f"{name}-{version}.tgz"),
            "oci://" + copy.destination.removeprefix("docker://").rsplit("/", 1)[0], "--registry-config", str(auth)]
    if ca_file is not None:
        push += ["--ca-file", str(ca_file)]
    return [["helm", "pull", name, "--repo", repo, "--version", version, "--destination", str(workdir)], push]


def seed(copies: list[Copy], ca_file: Path | None = None, say: Callable[[str], None] = print) -> list[str]:
    """Make the copies; returns one failure line per artifact that could not be copied."""
    if not copies:
        return []
    using = tool()
    failures = []
    hosts = sorted({c.host for c in copies})
    with auth_file(hosts) as auth, tempfile.TemporaryDirectory(prefix="sahab-seed-") as scratch:
        ca_dir = None
        if ca_file is not None:  # containers/image reads CA certificates as *.crt files of a folder
            ca_dir = Path(scratch) / "certs"
            ca_dir.mkdir()
            shutil.copyfile(ca_file, ca_dir / "ca.crt")
        env = {"DOCKER_CONFIG": str(auth.parent)}  # crane and helm read the same private file
        if ca_file is not None:
            env["SSL_CERT_FILE"] = str(ca_file)
        for copy in copies:
            if copy.source.startswith("https://") or "#" in copy.source:
                commands = _helm(copy, Path(scratch), auth, ca_file)
            else:
                commands = [_skopeo(copy, auth, ca_dir) if using == "skopeo" else _crane(copy)]
            for command in commands:
                done = _run(command, env)
                if done is not None:
                    failures.append(f"{copy.destination.removeprefix('docker://')}: {done}")
                    break
            else:
                say(f"seeded {copy.destination.removeprefix('docker://')}")
    return failures


def _run(command: list[str], env: dict[str, str]) -> str | None:
    """Run a tool; None when it succeeded, else its last error line."""
    import os

    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, **env},
                              check=False)
    except subprocess.TimeoutExpired:
        return f"{command[0]} did not finish within {TIMEOUT} s"
    if done.returncode == 0:
        return None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return (lines[-1] if lines else f"{command[0]} exited {done.returncode}")[:500]
