"""Pulumi's wire format (property values with signatures) turned into what a plan shows and what a provider
receives."""

from __future__ import annotations

from typing import Any

from sahab.engine.plan_types import (
    SIG_ARCHIVE,
    SIG_ASSET,
    SIG_KEY,
    SIG_OUTPUT,
    SIG_RESOURCE,
    SIG_SECRET,
    UNKNOWABLE,
    UNKNOWN,
    is_unknown,
)
from sahab.project import REDACTED


def to_plain(value: Any, *, redact: bool = True) -> Any:
    """Decode wire-format values into plain JSON: secrets redacted, references as URNs."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            return REDACTED if redact else to_plain(value.get("value"), redact=redact)
        if sig == SIG_RESOURCE:
            return value.get("urn")
        if sig == SIG_OUTPUT:
            if not value.get("known", "value" in value):
                return UNKNOWN
            if value.get("secret") and redact:
                return REDACTED
            return to_plain(value.get("value"), redact=redact)
        if sig in (SIG_ASSET, SIG_ARCHIVE):
            return {k: to_plain(v, redact=redact) for k, v in value.items() if k != SIG_KEY}
        return {k: to_plain(v, redact=redact) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v, redact=redact) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return UNKNOWN if is_unknown(value) else value


def provider_view(value: Any) -> tuple[Any, bool]:
    """What a provider receives for a wire value: secrets unwrapped, a resource reference as its id (its URN
    for a component), unknown ids as the unknown sentinel. Also says whether a secret was inside."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            inner, _ = provider_view(value.get("value"))
            return inner, True
        if sig == SIG_RESOURCE:
            if "id" in value:
                return (value["id"] or UNKNOWN), False
            return value.get("urn"), False
        if sig == SIG_OUTPUT:
            if not value.get("known", "value" in value):
                return UNKNOWN, bool(value.get("secret"))
            inner, secret = provider_view(value.get("value"))
            return inner, secret or bool(value.get("secret"))
        if sig in (SIG_ASSET, SIG_ARCHIVE):
            return value, False
        out, secret = {}, False
        for k, v in value.items():
            out[k], s = provider_view(v)
            secret |= s
        return out, secret
    if isinstance(value, list):
        items, secret = [], False
        for v in value:
            inner, s = provider_view(v)
            items.append(inner)
            secret |= s
        return items, secret
    if isinstance(value, float) and value.is_integer():
        return int(value), False
    return (UNKNOWN if is_unknown(value) else value), False


def provider_inputs(wire: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Every input as its provider sees it, and the names of those that hold a secret."""
    inputs, secret_keys = {}, set()
    for key, value in wire.items():
        inputs[key], secret = provider_view(value)
        if secret:
            secret_keys.add(key)
    return inputs, secret_keys


def mark_secrets(state: dict[str, Any], secret_keys: set[str]) -> dict[str, Any]:
    """Outputs whose inputs were secret stay secret, as the engine keeps them."""
    return {k: ({SIG_KEY: SIG_SECRET, "value": v} if k in secret_keys else v) for k, v in state.items()}


def holds_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get(SIG_KEY) == SIG_SECRET or any(holds_secret(v) for v in value.values())
    return isinstance(value, list) and any(holds_secret(v) for v in value)


def known(value: Any) -> Any:
    """The value, or None when it is (built from) the engine's unknown."""
    return None if is_unknown(value) else value


def carried(value: Any) -> Any:
    """A value as a program receives it where it must stay a value: the engine's unknown as UNKNOWABLE."""
    if isinstance(value, dict):
        return {k: carried(v) for k, v in value.items()}
    if isinstance(value, list):
        return [carried(v) for v in value]
    return UNKNOWABLE if value == UNKNOWN else value


def struct(values: dict[str, Any]):
    from google.protobuf import struct_pb2

    out = struct_pb2.Struct()
    out.update(values)
    return out


def from_struct(message: Any) -> dict[str, Any]:
    from google.protobuf import json_format

    return json_format.MessageToDict(message) if message is not None else {}
