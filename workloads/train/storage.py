"""Where checkpoints live: a local directory, `s3://bucket/prefix` or `az://container/prefix`, behind one
small interface of whole objects (list, read, write, upload, download, delete).

Credentials never come from arguments, only from the environment, as the clouds' own SDKs find them:
- S3: boto3's default chain (on EKS: Pod Identity or IRSA; elsewhere AWS_* variables or an instance role);
  AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL point it at an S3-compatible store (an in-country one on premises).
- Azure Blob: AZURE_STORAGE_ACCOUNT (or AZURE_STORAGE_ACCOUNT_URL) with an Entra token, never an account key:
  on AKS workload identity (WorkloadIdentityCredential from AZURE_CLIENT_ID / AZURE_TENANT_ID /
  AZURE_FEDERATED_TOKEN_FILE), elsewhere azure-identity's DefaultAzureCredential;
  AZURE_STORAGE_CONNECTION_STRING instead, for a local emulator (Azurite).
A single write is atomic on every backend (S3 and Blob commit an object whole; locally temp file + rename),
which is what makes a checkpoint's manifest, written last, a safe commit marker (checkpoint.py).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Protocol

_S3_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_AZ_CONTAINER = re.compile(r"^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")


class StoreError(ValueError):
    """A checkpoint location that cannot be used: says which and why."""


class Store(Protocol):
    uri: str

    def list(self, prefix: str) -> list[str]: ...  # keys under `prefix`, relative to the store's root

    def read(self, key: str) -> bytes: ...

    def write(self, key: str, data: bytes) -> None: ...

    def upload(self, key: str, path: Path) -> None: ...

    def download(self, key: str, path: Path) -> None: ...

    def delete(self, keys: list[str]) -> None: ...


def is_remote(uri: str) -> bool:
    return uri.startswith(("s3://", "az://"))


def parse_remote(uri: str) -> tuple[str, str, str]:
    """(scheme, bucket or container, prefix without slashes at either end) of an s3:// or az:// URI."""
    scheme, _, rest = uri.partition("://")
    bucket, _, prefix = rest.partition("/")
    pattern, what = (_S3_BUCKET, "an S3 bucket name") if scheme == "s3" else (_AZ_CONTAINER, "an Azure container name")
    if not pattern.match(bucket):
        raise StoreError(f"{uri}: {bucket!r} is not {what} (3-63 lowercase letters, digits, '-'"
                         f"{', .' if scheme == 's3' else ''})")
    return scheme, bucket, prefix.strip("/")


def open_store(uri: str) -> Store:
    if uri.startswith("s3://"):
        _, bucket, prefix = parse_remote(uri)
        return S3Store(uri, bucket, prefix)
    if uri.startswith("az://"):
        _, container, prefix = parse_remote(uri)
        return AzureBlobStore(uri, container, prefix)
    if "://" in uri:
        raise StoreError(f"{uri}: not a local path, s3://bucket/prefix or az://container/prefix")
    return LocalStore(Path(uri))


class LocalStore:
    def __init__(self, root: Path):
        self.root = root
        self.uri = str(root)

    def list(self, prefix: str) -> list[str]:
        """Like an object store: every file whose path relative to the root starts with `prefix`."""
        if not self.root.is_dir():
            return []
        keys = (p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())
        return sorted(k for k in keys if k.startswith(prefix) and not Path(k).name.startswith(".sahab-"))

    def read(self, key: str) -> bytes:
        return (self.root / key).read_bytes()

    def write(self, key: str, data: bytes) -> None:
        final = self.root / key
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)  # atomic within one file system
        _fsync_dir(final.parent)  # and the rename itself durable

    def upload(self, key: str, path: Path) -> None:
        """A copy that is whole and on disk before the manifest (written after it) can name it."""
        target = self.root / key
        if target.resolve() == path.resolve():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".sahab-{target.name}.tmp-{os.getpid()}")
        with open(path, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(tmp, target)

    def download(self, key: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.root / key, path)

    def delete(self, keys: list[str]) -> None:
        for key in keys:
            (self.root / key).unlink(missing_ok=True)
        for directory in sorted({(self.root / k).parent for k in keys}, reverse=True):
            if directory != self.root and directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class S3Store:
    """boto3 with its default credential chain and endpoint settings: nothing is passed in but the bucket."""

    def __init__(self, uri: str, bucket: str, prefix: str):
        import boto3

        self.uri, self.bucket, self.prefix = uri, bucket, prefix
        self.client = boto3.client("s3")

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _relative(self, key: str) -> str:
        return key[len(self.prefix) + 1:] if self.prefix else key

    def list(self, prefix: str) -> list[str]:
        keys = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                           Prefix=self._key(prefix)):
            keys += [self._relative(o["Key"]) for o in page.get("Contents", [])]
        return sorted(keys)

    def read(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()

    def write(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def upload(self, key: str, path: Path) -> None:
        self.client.upload_file(str(path), self.bucket, self._key(key))

    def download(self, key: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.client.download_file(self.bucket, self._key(key), str(path))

    def delete(self, keys: list[str]) -> None:
        for i in range(0, len(keys), 1000):  # DeleteObjects takes at most 1000 keys
            batch = [{"Key": self._key(k)} for k in keys[i:i + 1000]]
            answer = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True})
            failed = answer.get("Errors") or []
            if failed:  # pruning is housekeeping: say what stays behind (and why), never stop training for it
                print(f"warning: {len(failed)} old checkpoint object(s) could not be deleted and stay in "
                      f"s3://{self.bucket}, e.g. {failed[0].get('Key')}: {failed[0].get('Code')}", file=sys.stderr)


def blob_credential(**options):
    """The pod's Entra identity for Blob storage. On AKS with workload identity (the webhook set
    AZURE_FEDERATED_TOKEN_FILE, AZURE_CLIENT_ID, AZURE_TENANT_ID): exchange the projected service account token
    for a storage token, and nothing else (a missing or refused federation is that error, not a later one from
    another credential in a chain). Elsewhere azure-identity's default chain. `options` go to the credential
    (e.g. its HTTP transport)."""
    from azure.identity import DefaultAzureCredential, WorkloadIdentityCredential

    if os.environ.get("AZURE_FEDERATED_TOKEN_FILE"):
        return WorkloadIdentityCredential(**options)
    return DefaultAzureCredential(**options)


class AzureBlobStore:
    """azure-storage-blob; the account and its credential come from the environment (see the module doc)."""

    def __init__(self, uri: str, container: str, prefix: str):
        from azure.storage.blob import ContainerClient

        self.uri, self.prefix = uri, prefix
        connection = os.environ.get("AZURE_STORAGE_CONNECTION_STRING")
        if connection:
            self.client = ContainerClient.from_connection_string(connection, container)
            return
        account_url = os.environ.get("AZURE_STORAGE_ACCOUNT_URL")
        if not account_url and os.environ.get("AZURE_STORAGE_ACCOUNT"):
            account_url = f"https://{os.environ['AZURE_STORAGE_ACCOUNT']}.blob.core.windows.net"
        if not account_url:
            raise StoreError(f"{uri}: set AZURE_STORAGE_ACCOUNT (the storage account holding the container)")
        self.client = ContainerClient(account_url, container, credential=blob_credential())

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _relative(self, key: str) -> str:
        return key[len(self.prefix) + 1:] if self.prefix else key

    def list(self, prefix: str) -> list[str]:
        return sorted(self._relative(b.name) for b in self.client.list_blobs(name_starts_with=self._key(prefix)))

    def read(self, key: str) -> bytes:
        return self.client.download_blob(self._key(key)).readall()

    def write(self, key: str, data: bytes) -> None:
        self.client.upload_blob(self._key(key), data, overwrite=True)

    def upload(self, key: str, path: Path) -> None:
        with open(path, "rb") as f:
            self.client.upload_blob(self._key(key), f, overwrite=True)

    def download(self, key: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            self.client.download_blob(self._key(key)).readinto(f)

    def delete(self, keys: list[str]) -> None:
        for key in keys:
            self.client.delete_blob(self._key(key))
