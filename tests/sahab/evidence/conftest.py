"""Shared, session-wide: the organisation's keys, and one plan and one signed bundle per example stack.

Plans are the expensive part (prod and burst take most of a minute each), so each stack is planned once for the
whole session, two at a time, and its bundle built once from that plan; a test that changes a bundle works on a
copy (`copy_bundle`)."""

from __future__ import annotations

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
STACKS = ("dev", "prod", "burst", "smb")
SLOWEST_FIRST = ("burst", "prod", "dev", "smb")


def _write_keys(folder: Path) -> dict[str, Path]:
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

    def private(key, name: str, password: bytes | None = None) -> Path:
        crypt = ser.BestAvailableEncryption(password) if password else ser.NoEncryption()
        (folder / name).write_bytes(key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, crypt))
        return folder / name

    def public(key, name: str) -> Path:
        (folder / name).write_bytes(key.public_key().public_bytes(ser.Encoding.PEM,
                                                                  ser.PublicFormat.SubjectPublicKeyInfo))
        return folder / name

    org, other, legacy = ed25519.Ed25519PrivateKey.generate(), ed25519.Ed25519PrivateKey.generate(), \
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return {"key": private(org, "org.key"), "pub": public(org, "org.pub"), "other_pub": public(other, "other.pub"),
            "encrypted_key": private(org, "org-encrypted.key", b"correct horse"),
            "rsa_key": private(legacy, "rsa.key"), "rsa_pub": public(legacy, "rsa.pub")}


@pytest.fixture(scope="session")
def keys(tmp_path_factory) -> dict[str, Path]:
    return _write_keys(tmp_path_factory.mktemp("keys"))


@dataclass
class Built:
    plan: Any
    doc: dict[str, Any]
    folder: Path


class StackEvidence:
    """Plans (two at a time) and bundles, each made once per session."""

    def __init__(self, keys: dict[str, Path], folder: Path):
        self.keys = keys
        self.folder = folder
        self._plans: dict[str, Any] = {}
        self._referenced: dict[str, Any] = {}
        self._built: dict[str, Built] = {}
        self._lock = threading.Lock()

    def plans(self, *stacks: str) -> dict[str, Any]:
        from sahab.readiness.referenced import referenced_resources
        from tests.plans import stack_plan

        def planned(stack: str):
            result = stack_plan(stack, preview=True)  # shared with every other directory's tests
            return result, referenced_resources(result)[0]  # a burst stack's readiness needs prod's plan too

        missing = [s for s in SLOWEST_FIRST if s in stacks and s not in self._plans]
        with ThreadPoolExecutor(max_workers=2) as pool:
            for stack, (result, referenced) in zip(missing, pool.map(planned, missing), strict=True):
                self._plans[stack], self._referenced[stack] = result, referenced
        return {s: self._plans[s] for s in stacks}

    def bundle(self, stack: str) -> Built:
        from sahab.evidence import bundle, signing
        from sahab.evidence.provenance import generated_at
        from sahab.policy_check import policy_config_layers

        with self._lock:
            if stack not in self._built:
                plan = self.plans(stack)[stack]
                doc = bundle.collect(plan, layers=policy_config_layers(ROOT, stack, None), waivers_path=None,
                                     when=generated_at(), referenced=self._referenced[stack])
                folder = self.folder / stack
                bundle.write(doc, folder, signing.load_signer(self.keys["key"]))
                self._built[stack] = Built(plan, doc, folder)
            return self._built[stack]

    def all(self) -> dict[str, Built]:
        self.plans(*STACKS)
        return {s: self.bundle(s) for s in STACKS}


@pytest.fixture(scope="session")
def evidence(keys, tmp_path_factory) -> StackEvidence:
    return StackEvidence(keys, tmp_path_factory.mktemp("bundles"))


@pytest.fixture
def copy_bundle(tmp_path):
    def copy(built: Built) -> Path:
        target = tmp_path / f"copy-{built.folder.name}"
        shutil.copytree(built.folder, target)
        return target

    return copy
