"""Registry credentials, from the environment or the Docker config, never from the command line (where `ps` and
shell history would keep them).

Per registry host, in this order:
1. `SAHAB_REGISTRY_USERNAME` and `SAHAB_REGISTRY_PASSWORD` (both, for every registry of the run: CI);
2. the Docker config: `$REGISTRY_AUTH_FILE` (the containers tools' auth file), else `$DOCKER_CONFIG/config.json`,
   else `~/.docker/config.json`: its `auths` entry for the host (`auth`, or `username`/`password`), else its
   credential helper (`credHelpers[host]` or `credsStore`: `docker-credential-<name> get`), as `docker login`,
   `helm registry login`, `aws ecr get-login-password | docker login` and `az acr login` leave them.
Tools Sahab runs (skopeo, crane, helm) get them in a private temporary auth file (mode 0600), removed afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

USERNAME_ENV, PASSWORD_ENV = "SAHAB_REGISTRY_USERNAME", "SAHAB_REGISTRY_PASSWORD"


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)

    def basic(self) -> str:
        return base64.b64encode(f"{self.username}:{self.password}".encode()).decode()


def docker_config_path() -> Path:
    if os.environ.get("REGISTRY_AUTH_FILE"):
        return Path(os.environ["REGISTRY_AUTH_FILE"])
    base = Path(os.environ["DOCKER_CONFIG"]) if os.environ.get("DOCKER_CONFIG") else Path.home() / ".docker"
    return base / "config.json"


def _docker_config() -> dict:
    path = docker_config_path()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _from_helper(helper: str, host: str) -> Credentials | None:
    try:
        done = subprocess.run([f"docker-credential-{helper}", "get"], input=host, capture_output=True, text=True,
                              timeout=30, check=False)
        answer = json.loads(done.stdout) if done.returncode == 0 else {}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if isinstance(answer, dict) and answer.get("Secret"):
        return Credentials(str(answer.get("Username") or ""), str(answer["Secret"]))
    return None


def for_host(host: str) -> Credentials | None:
    """The credentials for one registry host, or None (anonymous)."""
    user, password = os.environ.get(USERNAME_ENV), os.environ.get(PASSWORD_ENV)
    if user and password:
        return Credentials(user, password)
    doc = _docker_config()
    auths = doc.get("auths") if isinstance(doc.get("auths"), dict) else {}
    for key in (host, f"https://{host}", f"http://{host}", f"https://{host}/v2/", f"https://{host}/v1/"):
        entry = auths.get(key)
        if not isinstance(entry, dict):
            continue
        if entry.get("auth"):
            try:
                user, _, password = base64.b64decode(entry["auth"]).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                continue
            return Credentials(user, password)
        if entry.get("username") and entry.get("password"):
            return Credentials(str(entry["username"]), str(entry["password"]))
    helpers = doc.get("credHelpers") if isinstance(doc.get("credHelpers"), dict) else {}
    helper = helpers.get(host) or doc.get("credsStore")
    return _from_helper(str(helper), host) if helper else None


@contextmanager
def auth_file(hosts: list[str]) -> Iterator[Path]:
    """A private Docker-config auth file with the credentials of `hosts` (tools read it; nothing on argv)."""
    auths = {h: {"auth": c.basic()} for h in hosts if (c := for_host(h)) is not None}
    with tempfile.TemporaryDirectory(prefix="sahab-auth-") as folder:
        path = Path(folder) / "config.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump({"auths": auths}, out)
        yield path
