"""The registry's answer: a manifest's digest read from the OCI distribution (v2) API.

`HEAD /v2/<name>/manifests/<tag>` with an Accept header naming every manifest type a runtime pulls (OCI index and
manifest, Docker manifest list and v2 manifest), so the registry answers with the digest of the manifest it would
serve a node, in `Docker-Content-Digest` (OCI distribution spec, "Pulling manifests"). A registry that leaves the
header out of a HEAD is asked with GET and the digest computed from the bytes. Authentication follows the
registry's challenge: Basic, or a Bearer token from its realm (the Docker token protocol), with the credentials of
sahab.registry.credentials. HTTPS only; `ca_file` adds a CA to trust (a site registry with its own).
"""

from __future__ import annotations

import hashlib
import json
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from sahab.components.image_refs import DIGEST
from sahab.errors import SahabError
from sahab.registry.credentials import Credentials, for_host

MANIFEST_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
TIMEOUT = 30.0
_PARAM = re.compile(r'(\w+)="([^"]*)"')


class RegistryError(SahabError):
    """The registry refused or could not be reached; says which reference."""


class NotFound(RegistryError):
    """The registry holds no such manifest."""


class Registry:
    def __init__(self, host: str, ca_file: Path | None = None, credentials: Credentials | None = None):
        self.host = host
        self.credentials = credentials if credentials is not None else for_host(host)
        self.context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        self._authorization: str | None = None

    def digest(self, repository: str, tag: str) -> str:
        """The digest of `<host>/<repository>:<tag>` as the registry serves it."""
        url = f"https://{self.host}/v2/{repository}/manifests/{urllib.parse.quote(tag, safe='')}"
        where = f"{self.host}/{repository}:{tag}"
        _, headers, _ = self._request("HEAD", url, where)
        digest = headers.get("Docker-Content-Digest")
        if not digest:
            _, headers, body = self._request("GET", url, where)
            digest = "sha256:" + hashlib.sha256(body).hexdigest()
        if not DIGEST.match(digest or ""):
            raise RegistryError(f"{where}: the registry answered digest {digest!r}, not sha256:<64 hex>")
        return digest

    def _request(self, method: str, url: str, where: str, retry: bool = True) -> tuple[int, dict, bytes]:
        headers = {"Accept": ", ".join(MANIFEST_TYPES), "User-Agent": "sahab-registry-pin"}
        if self._authorization:
            headers["Authorization"] = self._authorization
        request = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=TIMEOUT) as response:
                return response.status, dict(response.headers), response.read() if method == "GET" else b""
        except urllib.error.HTTPError as exc:
            if exc.code == 401 and retry:
                self._authorization = self._authorize(exc.headers.get("WWW-Authenticate", ""), where)
                return self._request(method, url, where, retry=False)
            if exc.code == 404:
                raise NotFound(f"{where}: not in the registry (seed it, or pull it once through the cache)") from None
            reason = "credentials refused" if exc.code in (401, 403) else f"HTTP {exc.code} {exc.reason}"
            raise RegistryError(f"{where}: {reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise RegistryError(f"{where}: {getattr(exc, 'reason', exc)}") from None

    def _authorize(self, challenge: str, where: str) -> str:
        scheme, _, rest = challenge.partition(" ")
        if self.credentials is None and scheme.lower() == "basic":
            raise RegistryError(f"{where}: the registry asks for credentials and none are set "
                                "(SAHAB_REGISTRY_USERNAME/SAHAB_REGISTRY_PASSWORD, or `docker login`)")
        if scheme.lower() == "basic":
            return f"Basic {self.credentials.basic()}"
        if scheme.lower() != "bearer":
            raise RegistryError(f"{where}: unsupported authentication {scheme!r}")
        params = dict(_PARAM.findall(rest))
        realm = params.pop("realm", "")
        if not realm.startswith("https://"):
            raise RegistryError(f"{where}: token realm {realm!r} is not https")
        token_request = urllib.request.Request(f"{realm}?{urllib.parse.urlencode(params)}")
        if self.credentials is not None:
            token_request.add_header("Authorization", f"Basic {self.credentials.basic()}")
        try:
            with urllib.request.urlopen(token_request, context=self.context, timeout=TIMEOUT) as response:
                answer = json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RegistryError(f"{where}: no token from {realm} ({getattr(exc, 'reason', exc)})") from None
        token = answer.get("token") or answer.get("access_token")
        if not token:
            raise RegistryError(f"{where}: {realm} answered no token")
        return f"Bearer {token}"
