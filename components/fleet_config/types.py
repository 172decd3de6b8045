"""The building blocks every section of the fleet schema shares: the config root, name and value grammars,
and the frozen, closed base model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sahab.components import validation

ROOT = "sahab:fleet"

Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$")]  # a lower-case DNS label
Accelerator = Literal["h100", "h200", "a100", "l40s", "a10g", "t4", "cpu"]
GpuAccelerator = Literal["h100", "h200", "a100", "l40s", "a10g", "t4"]
Emirate = Literal["abu-dhabi", "dubai", "sharjah", "ajman", "umm-al-quwain", "ras-al-khaimah", "fujairah"]
# A whole disk by its stable /dev/disk/by-id/ name: a kernel name (/dev/nvme1n1) can point at another disk after a
# reboot, and luksFormat would erase that one.
DATA_DISK = re.compile(r"^/dev/disk/by-id/[A-Za-z0-9][A-Za-z0-9._:+@-]{0,199}$")
# An SSH host public key as known_hosts holds it: the key type, then its base64 blob (RFC 4253 section 6.6).
SSH_HOST_KEY = r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|" \
               r"sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]{16,2048}={0,2}$"
# Bounds that keep one stack file from asking for more than a cluster or a node can hold.
MAX_HOSTS = 5000  # Kubernetes' largest supported cluster
MAX_NODE_LABELS = 64
MAX_TAINTS = 32


def _fits(check):
    """A pydantic validator from a grammar check in components.validation."""

    def validate(value: str) -> str:
        problem = check(value)
        if problem:
            raise ValueError(f"{validation.shown(value)} is not allowed; allowed: {problem}")
        return value

    return AfterValidator(validate)


def _port_of(value: str) -> int | None:
    """The port a `host:port` or `scheme://host:port/path` names, if it names one."""
    authority = value.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0]
    _, sep, port = authority.rpartition(":")
    return int(port) if sep and port.isascii() and port.isdigit() else None


def _check_port(value: str) -> str:
    port = _port_of(value)
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"{validation.shown(value)}: port {port} is not allowed; allowed: a port 1-65535")
    return value


PORT_IN_RANGE = AfterValidator(_check_port)
"""The port of a `host:port` or an https URL is 1-65535, as registry hosts' and SSH ports are."""

DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(low: str, high: str) -> Any:
    """A duration setting `<number><s|m|h|d>` (ASCII digits) between `low` and `high`, both included."""

    def seconds(text: str) -> int:
        return int(text[:-1]) * DURATION_UNITS[text[-1]]

    def check(value: str) -> str:
        if len(value) > 12 or not low_s <= seconds(value) <= high_s:
            raise ValueError(f"{validation.shown(value)} is not allowed; allowed: {low} to {high} (a whole "
                             "number then s, m, h or d)")
        return value

    low_s, high_s = seconds(low), seconds(high)
    return Annotated[str, Field(pattern=r"^[0-9]+[smhd]$"), AfterValidator(check)]


Region = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$")]  # me-central-1, uaenorth
# An IAM role or user ARN an EKS access entry can name (the aws partitions; a path is allowed).
IAM_PRINCIPAL = r"^arn:aws(-[a-z]+)*:iam::[0-9]{12}:(role|user)/[A-Za-z0-9+=,.@_/-]{1,512}$"
ENTRA_OBJECT_ID = r"^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$"
# Azure locations Microsoft opens only on request (UAE Central: access by request, no availability zones).


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, use_attribute_docstrings=True)



SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]
"""The name of a secret stack setting `sahab:<name>` (set with `pulumi config set --secret <name>`)."""


def config_path(loc: Iterable[Any], root: str = ROOT) -> str:
    path = root
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(part)):
            path += f".{part}"
        else:  # a key a user mistyped may hold anything, newlines included: quote it
            path += f"[{json.dumps(str(part))}]"
    return path
