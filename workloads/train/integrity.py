"""Checkpoint integrity: every manifest carries the SHA-256 of each of its files and an HMAC-SHA256 over all of it,
and a checkpoint is read only when the MAC and every digest hold.

torch.distributed.checkpoint unpickles what it loads (the `.metadata` file, and the non-tensor entries of the
shards through `torch.load(weights_only=False)`), so whoever can write the checkpoint store could otherwise run
code in every training pod that resumes. The key is one that plain store writers do not hold: on a cluster, a
Pulumi secret delivered to the team's training pods only (`SAHAB_CHECKPOINT_KEY`, from the Secret the checkpoint
access component creates in the team's namespace); for a local run, the user's own key file, made on first use
(`SAHAB_CHECKPOINT_KEY_FILE`, default `~/.config/sahab/checkpoint-key`, mode 0600).

Why HMAC-SHA256 and not Ed25519: the pods that write checkpoints are the pods that read them, so signer and
verifier are one party holding one secret. A public-key signature would only help a reader that must not be able
to sign, which Sahab has none of, and would add a dependency to an image that installs little beyond torch; HMAC
is in the standard library and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

KEY_ENV = "SAHAB_CHECKPOINT_KEY"
KEY_FILE_ENV = "SAHAB_CHECKPOINT_KEY_FILE"
MIN_KEY_LENGTH = 32  # characters of the key as delivered (a 64-character Pulumi RandomPassword in the clusters)
SCHEME = "hmac-sha256"
DIGESTS = "sha256"  # the manifest's map of file -> SHA-256 (hex)
SIGNATURE = "signature"


class CheckpointRefused(SystemExit):
    """A checkpoint that is not verifiably this team's: the run stops with this one line, having read nothing of
    it (SystemExit: the worker prints the message and exits 1, no traceback)."""


def _default_key_file() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "sahab" / "checkpoint-key"


def load_key() -> bytes:
    """The checkpoint key: SAHAB_CHECKPOINT_KEY, else the key file (created, 0600, when it does not exist yet)."""
    value = os.environ.get(KEY_ENV)
    where = KEY_ENV
    if value is None:
        path = Path(os.environ.get(KEY_FILE_ENV) or _default_key_file())
        where = str(path)
        if not path.exists():
            _create_key_file(path)
        try:
            value = path.read_text().strip()
        except OSError as exc:
            raise CheckpointRefused(f"error: the checkpoint key file {path} cannot be read ({exc.strerror})") from None
    if len(value) < MIN_KEY_LENGTH:
        raise CheckpointRefused(f"error: the checkpoint key in {where} is {len(value)} characters; allowed: "
                                f"{MIN_KEY_LENGTH} or more")
    return value.encode()


def _create_key_file(path: Path) -> None:
    """A new random key, written whole or not at all: several local workers may start at once."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    try:
        os.link(tmp, path)  # never replaces a key another worker made first
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def key_id(key: bytes) -> str:
    """A name for the key that says which key signed, and nothing of the key itself."""
    return hmac.new(key, b"sahab checkpoint key id", hashlib.sha256).hexdigest()[:16]


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _mac(body: dict, key: bytes) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return hmac.new(key, canonical, hashlib.sha256).hexdigest()


def sign(manifest: dict, key: bytes) -> dict:
    """The manifest with its signature (over everything else in it, the file digests included)."""
    body = {k: v for k, v in manifest.items() if k != SIGNATURE}
    return {**body, SIGNATURE: {"scheme": SCHEME, "key_id": key_id(key), "value": _mac(body, key)}}


def refusal(step: int, where: str, why: str) -> str:
    return (f"error: checkpoint of step {step} at {where} refused: {why}; nothing of it was read. Resume from a "
            "checkpoint this team's pods wrote, or start in an empty --checkpoint-dir")


def verify_manifest(raw: bytes, step: int, key: bytes, where: str) -> dict:
    """The manifest of `step` if it is signed with `key` and names that step; else CheckpointRefused."""
    def refuse(why: str) -> CheckpointRefused:
        return CheckpointRefused(refusal(step, where, why))

    try:
        manifest = json.loads(raw)
    except ValueError:
        raise refuse("its manifest is not JSON") from None
    signature = manifest.get(SIGNATURE) if isinstance(manifest, dict) else None
    if not isinstance(signature, dict) or signature.get("scheme") != SCHEME:
        raise refuse("it is not signed")
    body = {k: v for k, v in manifest.items() if k != SIGNATURE}
    if not hmac.compare_digest(str(signature.get("value", "")), _mac(body, key)):
        if signature.get("key_id") != key_id(key):
            raise refuse(f"it is signed with another key (key id {str(signature.get('key_id'))[:16]!r}; this run "
                         f"holds {key_id(key)!r})")
        raise refuse("its manifest was altered after it was signed")
    if manifest.get("step") != step or not isinstance(manifest.get(DIGESTS), dict) \
            or sorted(manifest[DIGESTS]) != sorted(manifest.get("files", [])):
        raise refuse(f"its signed manifest is for step {manifest.get('step')!r} or lists files without digests")
    return manifest


def file_problem(manifest: dict, listed: list[str], fetched: dict[str, Path]) -> str | None:
    """What is wrong with the checkpoint's files against its verified manifest: a file the store holds that the
    manifest does not name, one it names that is missing, or one whose SHA-256 differs; None when all hold."""
    expected: dict[str, str] = manifest[DIGESTS]
    extra = sorted(set(listed) - set(expected))
    if extra:
        return f"{extra[0]} is in the store but not in the signed manifest"
    for key, digest in sorted(expected.items()):
        path = fetched.get(key)
        if path is None or not path.is_file():
            return f"{key} of the signed manifest is missing"
        if not hmac.compare_digest(sha256_file(path), digest):
            return f"{key} differs from the signed manifest (SHA-256)"
    return None
