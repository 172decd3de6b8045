"""The site's registry mirror (`sahab:fleet.registries.onprem`), when the stack names one: Helm on this machine
pulls the platform's charts from it during `pulumi up` (README: seeding the registry), and every node pulls
through it. Asked the way a registry client asks: a TLS handshake verified against this machine's trust store
(SSL_CERT_FILE / SSL_CERT_DIR honoured), then `GET /v2/`, which a registry answers 200, or 401 when it wants a
token first (OCI Distribution Spec, "Determining support"; Harbor and distribution answer 401 to anonymous
clients and hand out anonymous pull tokens)."""

from __future__ import annotations

import http.client
import socket
import ssl
from collections.abc import Iterator

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext

AREA = "mirror"


def checks(ctx: DoctorContext) -> Iterator[Check]:
    registries = getattr(ctx.fleet, "registries", None)
    host = registries.host_of("onprem") if registries is not None else None
    if not host:
        yield Check(AREA, "registry mirror", SKIP, "the stack names no on-prem registry mirror")
        return
    address, _, port = host.rpartition(":") if host.rsplit(":", 1)[-1].isdigit() else (host, "", "443")
    connection = http.client.HTTPSConnection(address, int(port), timeout=ctx.timeout,
                                             context=ssl.create_default_context())
    try:
        connection.request("GET", "/v2/", headers={"User-Agent": "sahab-doctor"})
        answer = connection.getresponse()
        api = answer.getheader("Docker-Distribution-API-Version", "")
        status = answer.status
    except ssl.SSLCertVerificationError as exc:
        yield Check(AREA, host, FAIL, f"its TLS certificate is not trusted here: {exc.verify_message}",
                    "add the mirror's CA to this machine's trust store (and the nodes', for containerd)")
        return
    except (OSError, http.client.HTTPException) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        if isinstance(exc, socket.timeout):
            reason = f"no answer within {ctx.timeout:.0f} s"
        yield Check(AREA, host, FAIL, f"cannot reach it over TLS: {reason}",
                    "start the mirror, or name the one that runs in sahab:fleet.registries.onprem")
        return
    finally:
        connection.close()
    if status in (200, 401):
        how = "answers without a login" if status == 200 else "wants a token first (401), as registries do"
        yield Check(AREA, host, OK, f"TLS verified; /v2/ {how}{f' ({api})' if api else ''}")
    else:
        yield Check(AREA, host, FAIL, f"TLS verified, but /v2/ answered {status}: not a registry's API",
                    "point sahab:fleet.registries.onprem at the registry itself (host:port of its /v2/ API)")
