"""az:// checkpoints on AKS authenticate with workload identity: the projected service account token the webhook
mounts is exchanged for a storage token, and no account key is ever needed. The token endpoint is a recording
HTTP transport inside the test (nothing leaves the process)."""

from __future__ import annotations

import json

import pytest
from azure.core.pipeline.transport import HttpResponse, HttpTransport
from azure.identity import DefaultAzureCredential, WorkloadIdentityCredential
from sahab.workloads.train.storage import AzureBlobStore, blob_credential

TENANT = "9b1e4d2a-7c3f-4e8b-a5d6-0f1e2c3b4a59"
CLIENT = "0c6b1a8e-3d2f-4e5a-9b7c-1f2e3d4c5b6a"
STORAGE_SCOPE = "https://storage.azure.com/.default"


class _Answer(HttpResponse):
    def __init__(self, request, body: dict):
        super().__init__(request, None)
        self.status_code, self.reason = 200, "OK"
        self.headers = {"content-type": "application/json"}
        self.content_type = "application/json"
        self._body = json.dumps(body).encode()

    def body(self) -> bytes:
        return self._body


class TokenEndpoint(HttpTransport):
    """Entra's token endpoint as the credential sees it: records each request, answers with a token."""

    def __init__(self):
        self.requests: list = []

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def send(self, request, **kwargs):
        self.requests.append(request)
        return _Answer(request, {"access_token": "storage-token", "expires_in": 3600, "token_type": "Bearer"})


@pytest.fixture
def aks_pod(monkeypatch, tmp_path):
    """The environment AKS's workload identity webhook gives a pod labelled azure.workload.identity/use."""
    token = tmp_path / "azure-identity-token"
    token.write_text("projected-service-account-jwt")
    for key in ("AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_KEY", "AZURE_CLIENT_SECRET",
                "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_STORAGE_ACCOUNT_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AZURE_FEDERATED_TOKEN_FILE", str(token))
    monkeypatch.setenv("AZURE_CLIENT_ID", CLIENT)
    monkeypatch.setenv("AZURE_TENANT_ID", TENANT)
    monkeypatch.setenv("AZURE_AUTHORITY_HOST", "https://login.microsoftonline.com/")
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT", "sahabazcheckpoints")
    return token


def test_the_projected_token_is_exchanged_for_a_storage_token(aks_pod):
    endpoint = TokenEndpoint()
    credential = blob_credential(transport=endpoint)
    assert isinstance(credential, WorkloadIdentityCredential)
    assert credential.get_token(STORAGE_SCOPE).token == "storage-token"
    (request,) = endpoint.requests
    assert request.method == "POST"
    assert request.url == f"https://login.microsoftonline.com/{TENANT}/oauth2/v2.0/token"
    form = request.data
    assert form["client_assertion"] == "projected-service-account-jwt"  # the file the webhook mounted
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert (form["client_id"], form["scope"], form["grant_type"]) == (CLIENT, STORAGE_SCOPE, "client_credentials")
    assert "client_secret" not in form


def test_the_blob_store_uses_the_workload_identity_and_no_account_key(aks_pod):
    store = AzureBlobStore("az://research-checkpoints/train-aks-h100", "research-checkpoints", "train-aks-h100")
    assert store.client.url.startswith("https://sahabazcheckpoints.blob.core.windows.net/research-checkpoints")
    assert isinstance(store.client.credential, WorkloadIdentityCredential)


def test_off_aks_the_default_chain_is_used(aks_pod, monkeypatch):
    monkeypatch.delenv("AZURE_FEDERATED_TOKEN_FILE")
    assert isinstance(blob_credential(), DefaultAzureCredential)
