"""`sahab_openpgp_fingerprints`: the primary-key fingerprints of an OpenPGP key as a repository publishes it.

A vendor repository's signing key is downloaded by URL and trusted only if its fingerprint is one Sahab ships
(the distribution data in group_vars/all/distributions.yml): the check runs here, on the controller, so a host
needs no gpg. Fingerprints follow RFC 9580 section 5.5.4: v4 is SHA-1 over 0x99, a two-octet length and the
public-key packet body; v6 is SHA-256 over 0x9B, a four-octet length and the body. ASCII-armoured and binary
keys are both read.
"""

from __future__ import annotations

import base64
import hashlib

from ansible.errors import AnsibleFilterError

PUBLIC_KEY = 6


def _dearmor(text: str) -> bytes:
    lines = text.strip().splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("-----BEGIN PGP PUBLIC KEY BLOCK"))
        end = next(i for i, line in enumerate(lines) if line.startswith("-----END PGP PUBLIC KEY BLOCK"))
    except StopIteration:
        raise AnsibleFilterError("not an ASCII-armoured OpenPGP public key block") from None
    body = lines[start + 1:end]
    while body and body[0].strip():  # armour headers (Version: ...) end at the first blank line
        if ":" not in body[0]:
            break
        body = body[1:]
    data = [line.strip() for line in body if line.strip() and not line.startswith("=")]
    try:
        return base64.b64decode("".join(data), validate=True)
    except ValueError:
        raise AnsibleFilterError("the OpenPGP key block is not valid base64") from None


def _packets(data: bytes):
    """(tag, body) of each packet, old and new formats."""
    i = 0
    while i < len(data):
        header = data[i]
        if not header & 0x80:
            raise AnsibleFilterError(f"not an OpenPGP packet at byte {i}")
        if header & 0x40:  # new format
            tag = header & 0x3F
            first = data[i + 1]
            if first < 192:
                length, i = first, i + 2
            elif first < 224:
                length, i = ((first - 192) << 8) + data[i + 2] + 192, i + 3
            elif first == 255:
                length, i = int.from_bytes(data[i + 2:i + 6], "big"), i + 6
            else:
                raise AnsibleFilterError("partial-length packets do not occur in public keys")
        else:
            tag = (header >> 2) & 0x0F
            kind = header & 0x03
            size = {0: 1, 1: 2, 2: 4}.get(kind)
            if size is None:
                raise AnsibleFilterError("indeterminate-length packets do not occur in public keys")
            length, i = int.from_bytes(data[i + 1:i + 1 + size], "big"), i + 1 + size
        yield tag, data[i:i + length]
        i += length


def fingerprints(key: str | bytes) -> list[str]:
    """Upper-case hex fingerprints of the primary keys in an OpenPGP key (block)."""
    data = key if isinstance(key, bytes) else _dearmor(key) if "-----BEGIN PGP" in key else key.encode("latin-1")
    found = []
    for tag, body in _packets(data):
        if tag != PUBLIC_KEY or not body:
            continue
        version = body[0]
        if version == 4:
            digest = hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest()
        elif version == 6:
            digest = hashlib.sha256(b"\x9b" + len(body).to_bytes(4, "big") + body).hexdigest()
        else:
            raise AnsibleFilterError(f"OpenPGP key version {version} is not supported (v4 and v6 are)")
        found.append(digest.upper())
    if not found:
        raise AnsibleFilterError("no public key in the OpenPGP data")
    return found


class FilterModule:
    def filters(self):
        return {"sahab_openpgp_fingerprints": fingerprints}
