"""The Pulumi backend `pulumi up` keeps the stack's state in, and the key to the stack's secrets.

With the Pulumi CLI here, `pulumi whoami` answers (it asks a Pulumi Cloud backend over the network). Without it,
what the CLI would use is read offline: PULUMI_BACKEND_URL, else the `current` backend of the credentials file
(~/.pulumi/credentials.json, or under PULUMI_CREDENTIALS_PATH / PULUMI_HOME) with its access token
(pulumi/pulumi sdk/go/common/workspace/creds.go: `current`, `accessTokens`, `accounts`). A self-managed backend
encrypts secrets with a passphrase unless the stack names another secrets provider, so `pulumi up` then needs
PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import yaml

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext

AREA = "backend"
CLOUD_SCHEMES = ("https://", "http://")


def credentials_file() -> Path:
    folder = os.environ.get("PULUMI_CREDENTIALS_PATH") or os.environ.get("PULUMI_HOME")
    return Path(folder) / "credentials.json" if folder else Path.home() / ".pulumi" / "credentials.json"


def stored() -> dict:
    try:
        doc = json.loads(credentials_file().read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def current_backend() -> tuple[str, str]:
    """(backend URL, where it came from); ("", "") when there is none."""
    if os.environ.get("PULUMI_BACKEND_URL"):
        return os.environ["PULUMI_BACKEND_URL"], "PULUMI_BACKEND_URL"
    current = stored().get("current")
    return (current, str(credentials_file())) if isinstance(current, str) and current else ("", "")


def _token_for(url: str) -> str:
    if os.environ.get("PULUMI_ACCESS_TOKEN"):
        return "PULUMI_ACCESS_TOKEN"
    creds = stored()
    tokens = creds.get("accessTokens") if isinstance(creds.get("accessTokens"), dict) else {}
    accounts = creds.get("accounts") if isinstance(creds.get("accounts"), dict) else {}
    account = accounts.get(url) if isinstance(accounts.get(url), dict) else {}
    return str(credentials_file()) if tokens.get(url) or account.get("accessToken") else ""


def _login(ctx: DoctorContext) -> Check:
    pulumi = shutil.which("pulumi")
    if pulumi:
        try:
            done = subprocess.run([pulumi, "whoami", "--verbose", "--non-interactive"], capture_output=True,
                                  text=True, timeout=ctx.timeout, cwd=ctx.project_dir)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Check(AREA, "login", FAIL, f"pulumi whoami did not answer ({type(exc).__name__})",
                         "pulumi login")
        if done.returncode == 0:
            return Check(AREA, "login", OK, "; ".join(ln.strip() for ln in done.stdout.splitlines() if ln.strip()))
        last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        return Check(AREA, "login", FAIL, f"pulumi whoami: {last}", "pulumi login (or set PULUMI_BACKEND_URL)")
    url, source = current_backend()
    if not url:
        return Check(AREA, "login", FAIL, f"no backend: PULUMI_BACKEND_URL is unset and {credentials_file()} names "
                     "none", "pulumi login (Pulumi Cloud) or pulumi login s3://BUCKET / file://DIR")
    if url.startswith(CLOUD_SCHEMES):
        token = _token_for(url)
        if not token:
            return Check(AREA, "login", FAIL, f"{url} (from {source}) but no access token for it",
                         f"pulumi login {url}, or set PULUMI_ACCESS_TOKEN")
        return Check(AREA, "login", OK, f"{url} (from {source}; token from {token}; not asked: no pulumi CLI)")
    if url.startswith("file://"):
        folder = Path(os.path.expanduser(url.removeprefix("file://").split("?")[0] or "~"))
        if not folder.is_dir() or not os.access(folder, os.W_OK):
            return Check(AREA, "login", FAIL, f"{url} (from {source}): {folder} is not a writable folder",
                         f"mkdir -p {folder}, or pulumi login to another backend")
    return Check(AREA, "login", OK, f"{url} (from {source})")


def _stack_file(ctx: DoctorContext) -> dict:
    from sahab.project import find_project

    try:
        project = find_project(ctx.project_dir)
        doc = yaml.safe_load((project.stack_config_dir / f"Pulumi.{ctx.stack}.yaml").read_text())
    except Exception:  # the command already loaded this stack; a file that vanished since says nothing here
        return {}
    return doc if isinstance(doc, dict) else {}


def _passphrase(ctx: DoctorContext) -> Check:
    doc = _stack_file(ctx)
    provider = str(doc.get("secretsprovider") or "")
    url = current_backend()[0]
    passphrase = provider == "passphrase" or "encryptionsalt" in doc or (
        not provider and url and not url.startswith(CLOUD_SCHEMES))
    if not passphrase:
        return Check(AREA, "secrets", SKIP, f"secrets provider {provider or 'of the backend (Pulumi Cloud)'}")
    if os.environ.get("PULUMI_CONFIG_PASSPHRASE") is not None:
        return Check(AREA, "secrets", OK, "passphrase provider; PULUMI_CONFIG_PASSPHRASE is set")
    file = os.environ.get("PULUMI_CONFIG_PASSPHRASE_FILE")
    if file and os.access(file, os.R_OK):
        return Check(AREA, "secrets", OK, f"passphrase provider; PULUMI_CONFIG_PASSPHRASE_FILE {file}")
    return Check(AREA, "secrets", FAIL, "the stack's secrets are encrypted with a passphrase, and neither "
                 "PULUMI_CONFIG_PASSPHRASE nor a readable PULUMI_CONFIG_PASSPHRASE_FILE is set",
                 "export PULUMI_CONFIG_PASSPHRASE_FILE=<a file only you can read>")


def checks(ctx: DoctorContext) -> Iterator[Check]:
    yield _login(ctx)
    yield _passphrase(ctx)
