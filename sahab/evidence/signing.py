"""The bundle's signature: an in-toto Statement naming every file of the bundle by its SHA-256, in a DSSE envelope
signed with the organisation's Ed25519 key. `verify` is the only judge of a bundle.

Keys are PEM files, as `openssl genpkey -algorithm ed25519 -out evidence.key` and
`openssl pkey -in evidence.key -pubout -out evidence.pub` write them. An encrypted private key is opened with
the passphrase in $SAHAB_EVIDENCE_KEY_PASSPHRASE. Ed25519 signatures are deterministic: the same statement signed
with the same key gives the same envelope.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sahab.errors import UsageError

ENVELOPE = "evidence.intoto.jsonl"  # one DSSE envelope per line (in-toto's bundle convention), here one
PAYLOAD_TYPE = "application/vnd.in-toto+json"
PREDICATE_TYPE = "urn:sahab:evidence-bundle:v1"
PASSPHRASE_ENV = "SAHAB_EVIDENCE_KEY_PASSPHRASE"
KEY_HELP = "an Ed25519 private key in PEM (openssl genpkey -algorithm ed25519)"
PUBLIC_KEY_HELP = "an Ed25519 public key in PEM (openssl pkey -in KEY -pubout)"


def _read(path: Path, option: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise UsageError(f"{option} {path}: is a folder; allowed: a key file") from None
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None


def load_signer(path: Path):
    """A securesystemslib signer for the Ed25519 private key in `path`; a usage error for anything else."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key
    from securesystemslib.signer import CryptoSigner

    data = _read(path, "--key")
    passphrase = os.environ.get(PASSPHRASE_ENV)
    try:
        key = load_pem_private_key(data, password=passphrase.encode() if passphrase else None)
    except TypeError:
        raise UsageError(f"--key {path}: the key is encrypted; give its passphrase in ${PASSPHRASE_ENV}") from None
    except ValueError:
        raise UsageError(f"--key {path}: not a readable private key (wrong passphrase, or not PEM); allowed: "
                         f"{KEY_HELP}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UsageError(f"--key {path}: a {type(key).__name__.removeprefix('_')} key; allowed: {KEY_HELP}")
    return CryptoSigner(key)


def load_public_key(path: Path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    from securesystemslib.signer import SSlibKey

    data = _read(path, "--public-key")
    try:
        key = load_pem_public_key(data)
    except ValueError:
        raise UsageError(f"--public-key {path}: not a readable public key; allowed: {PUBLIC_KEY_HELP}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise UsageError(f"--public-key {path}: a {type(key).__name__.removeprefix('_')} key; allowed: "
                         f"{PUBLIC_KEY_HELP}")
    return SSlibKey.from_crypto(key)


def bundle_files(folder: Path) -> dict[str, Path]:
    """Every entry under the bundle folder except the envelope, by its POSIX path relative to the folder."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            continue
        name = path.relative_to(folder).as_posix()
        if name != ENVELOPE:
            found[name] = path
    return found


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def statement(folder: Path, predicate: dict[str, Any]) -> bytes:
    """The in-toto Statement v1 over every file of the folder, as the envelope's payload (canonical JSON)."""
    from google.protobuf import json_format
    from in_toto_attestation.v1.resource_descriptor import ResourceDescriptor
    from in_toto_attestation.v1.statement import Statement

    subjects = [ResourceDescriptor(name=name, digest={"sha256": sha256(path)}).pb
                for name, path in bundle_files(folder).items()]
    made = Statement(subjects, PREDICATE_TYPE, predicate)
    made.validate()
    doc = json_format.MessageToDict(made.pb)
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(folder: Path, signer, predicate: dict[str, Any]) -> Path:
    """Write the envelope over the folder's files (written before it) and return its path."""
    from securesystemslib.dsse import Envelope

    envelope = Envelope(statement(folder, predicate), PAYLOAD_TYPE, {})
    envelope.sign(signer)
    path = folder / ENVELOPE
    path.write_text(json.dumps(envelope.to_dict(), sort_keys=True, separators=(",", ":")) + "\n")
    return path


@dataclass
class Verdict:
    problems: list[str]  # what differs, one line each; empty when the bundle holds
    files: int  # files the statement names
    keyid: str | None = None  # the key that signed it, when the signature verified
    predicate: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(folder: Path, key) -> Verdict:
    """Judge a bundle: the envelope's signature under `key`, then every file against the signed statement
    (changed, missing or added). A folder without an envelope is not a bundle (a usage error)."""
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import VerificationError

    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder; allowed: an evidence bundle (sahab evidence --out DIR)")
    path = folder / ENVELOPE
    if not path.is_file():
        raise UsageError(f"{folder}: not an evidence bundle (no {ENVELOPE}); allowed: a folder written by "
                         "sahab evidence --out")
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if len(lines) != 1:
            raise ValueError(f"{len(lines)} envelopes")
        envelope = Envelope.from_dict(json.loads(lines[0]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as exc:
        return Verdict([f"changed: {ENVELOPE}: not a DSSE envelope any more ({type(exc).__name__})"], 0)
    signed_by = ", ".join(sorted(envelope.signatures)) or "nobody"
    try:
        envelope.verify([key], 1)
    except (VerificationError, ValueError):
        return Verdict([f"signature: does not verify with the public key given (key id {key.keyid}); "
                        f"the envelope carries signatures by key id {signed_by}"], 0)
    if envelope.payload_type != PAYLOAD_TYPE:
        return Verdict([f"signature: the envelope signs a {envelope.payload_type!r}, not an in-toto statement"], 0)
    try:
        doc = json.loads(envelope.payload)
        subjects = {s["name"]: s["digest"]["sha256"] for s in doc["subject"]}
    except (ValueError, KeyError, TypeError):
        return Verdict(["signature: the signed payload is not an in-toto statement of this bundle"], 0)
    present = bundle_files(folder)
    problems = []
    for name, digest in sorted(subjects.items()):
        file = present.get(name)
        if file is None:
            problems.append(f"missing: {name} (signed with sha256:{digest})")
        elif file.is_symlink() or not file.is_file():
            problems.append(f"changed: {name} is no longer a regular file")
        else:
            now = sha256(file)
            if now != digest:
                problems.append(f"changed: {name} (signed sha256:{digest}, now sha256:{now})")
    for name in sorted(set(present) - set(subjects)):
        problems.append(f"added: {name} (not in the signed statement)")
    return Verdict(problems, len(subjects), key.keyid, doc.get("predicate"))
