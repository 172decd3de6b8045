"""What a provider answers for a resource: in a preview, its checked inputs; in the update, every output its
SDK declares, with values that look like the cloud's own.

Preview (`pulumi preview`): the inputs, plus what the provider fills in when it checks them (auto-names, the
region, merged default tags); everything it would compute stays unknown. Update (`pulumi up`): ids, ARNs,
endpoints and names in the formats the clouds use, in the resource's own region and account, and every other
output its SDK declares (`sdk_types`) with a value of that type (`values`). In both, an input read back as an
output has the output's declared type: an IAM policy given as a dict is JSON text.

Values are stable hashes of the resource's name, so two runs of a program are identical.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sahab.engine.plan_types import PREVIEW, UNKNOWN
from sahab.engine.sdk_types import SdkTypes
from sahab.engine.values import (
    AWS_ACCOUNT,
    AZURE_SUBSCRIPTION,
    AZURE_TENANT,
    Owner,
    arn,
    azure_id,
    coerce,
    fill,
    short_hash,
    uuid,
)
from sahab.engine.wire import known

# What a provider fills in when it checks inputs (auto-names): known during a preview.
_AUTONAMED = ("name", "bucket", "metadata", "resourceName", "accountName", "vaultName", "containerName",
              "resourceGroupName")
# Which input names an Azure resource, where it is not `<kind>Name`.
_AZURE_NAME_INPUTS = {"ManagedCluster": "resourceName", "UserAssignedIdentity": "resourceName",
                      "BlobContainer": "containerName", "BlobServiceProperties": "blobServicesName",
                      "Vault": "vaultName", "StorageAccount": "accountName"}
# Child resources: (parent input, parent collection, own collection) in the ARM id.
_AZURE_PARENTS = {"Key": ("vaultName", "vaults", "keys"),
                  "AgentPool": ("resourceName", "managedClusters", "agentPools"),
                  "BlobContainer": ("accountName", "storageAccounts", "blobServices/default/containers"),
                  "BlobServiceProperties": ("accountName", "storageAccounts", "blobServices"),
                  "ManagementPolicy": ("accountName", "storageAccounts", "managementPolicies")}


def module_of(token: str) -> str:
    """`aws:s3/bucketV2:BucketV2` -> `s3`."""
    parts = token.split(":")
    return parts[1].split("/")[0] if len(parts) > 2 else ""


@dataclass(frozen=True)
class Where:
    """Where resources go when nothing else says: the stack's `aws:region` and `azure-native:location`."""

    aws_region: str
    azure_location: str


class ProviderOutputs:
    def __init__(self, types: SdkTypes, where: Where):
        self.types = types
        self.where = where

    def owner(self, token: str, name: str, inputs: dict[str, Any], provider: dict[str, Any],
              group_location: Callable[[str], str | None]) -> Owner:
        """The resource's place: its own input, else its explicit provider's setting, else (Azure) its resource
        group's when this program creates the group, else the stack's. A place given but unknown (built from a
        lookup nobody can answer offline) leaves the resource unplaced."""
        package, service, kind = token.split(":", 1)[0], module_of(token), token.rsplit(":", 1)[-1]
        group = inputs.get("resourceGroupName") if isinstance(inputs.get("resourceGroupName"), str) else None
        region = _first(inputs.get("region"), provider.get("region"), self.where.aws_region)
        location = _first(inputs.get("location"), provider.get("location"),
                          group_location(group) if group else None, self.where.azure_location)
        return Owner(package, service, kind, name, region, location, f"{token}/{name}", group or f"{name}-rg")

    def resource(self, token: str, name: str, inputs: dict[str, Any], owner: Owner, phase: str,
                 existing_id: str | None = None) -> tuple[str, dict[str, Any]]:
        """(id, state) the provider answers; in a preview the id is "" (unknown) unless the resource exists."""
        rid, state = full_state(token, name, inputs, owner)
        declared = self.types.resource_outputs(token) or {}
        if phase == PREVIEW and existing_id is None:
            state = preview_state(token, inputs, state)
            return "", {k: coerce(v, declared[k].type, self.types) if k in declared else v for k, v in state.items()}
        state = fill(declared, state, owner, self.types, owner.seed)
        return existing_id or rid, state


def _first(*places: Any) -> str | None:
    """The first place given: None when it is unknown, or when none is a string."""
    for place in places:
        if place is None or place == "":
            continue
        return place if isinstance(place, str) and known(place) is not None else None
    return None


def full_state(token: str, name: str, inputs: dict[str, Any], owner: Owner) -> tuple[str, dict[str, Any]]:
    """What the resource is after `pulumi up`, where its cloud's formats are known: ids, ARNs, endpoints."""
    package = token.split(":", 1)[0]
    if package == "aws":
        return _aws(token, name, inputs, owner)
    if package == "azure-native":
        return _azure(token, name, inputs, owner)
    if package == "kubernetes":
        return kubernetes_state(token, name, inputs)
    if package == "random":
        return _random(token, name, inputs)
    return f"{name}-{short_hash(token, name)}", dict(inputs)


def _in_region(owner: Owner, text: str) -> str:
    return text if owner.region is not None else UNKNOWN


def _aws(token: str, name: str, inputs: dict, owner: Owner) -> tuple[str, dict]:
    region = owner.region
    service, kind = owner.service, owner.kind
    physical = inputs.get("name") if isinstance(inputs.get("name"), str) else f"{name}-{short_hash(token, name, n=7)}"
    state = {**inputs, "region": region if region is not None else UNKNOWN, "tagsAll": inputs.get("tags") or {}}
    rid = physical
    if service == "s3" and kind in ("Bucket", "BucketV2"):
        rid = inputs.get("bucket") if isinstance(inputs.get("bucket"), str) else f"{name}-{short_hash(name, n=7)}"
        state |= {"bucket": rid, "arn": arn(owner, rid),
                  "bucketRegionalDomainName": _in_region(owner, f"{rid}.s3.{region}.amazonaws.com"),
                  "bucketDomainName": f"{rid}.s3.amazonaws.com"}
        return rid, state
    if service == "kms" and kind == "Key":
        rid = f"{short_hash(name, n=8)}-{short_hash(name, 'a', n=4)}-4{short_hash(name, 'b', n=3)}-" \
              f"8{short_hash(name, 'c', n=3)}-{short_hash(name, 'd', n=12)}"
        state |= {"keyId": rid, "arn": arn(owner, f"key/{rid}")}
        return rid, state
    if service == "kms" and kind == "Alias":
        return physical, state | {"arn": arn(owner, physical)}
    if service == "iam":
        path = {"Role": "role", "Policy": "policy", "InstanceProfile": "instance-profile",
                "User": "user", "OpenIdConnectProvider": "oidc-provider"}.get(kind, kind.lower())
        state |= {"name": physical, "arn": arn(owner, f"{path}/{physical}"),
                  "uniqueId": "AROA" + short_hash(name, n=16).upper()}
        if kind in ("RolePolicyAttachment", "RolePolicy"):
            rid = f"{inputs.get('role', name)}-{short_hash(token, name)}"
        return rid, state
    if service == "ec2":
        prefix = {"Vpc": "vpc", "Subnet": "subnet", "SecurityGroup": "sg", "LaunchTemplate": "lt",
                  "InternetGateway": "igw", "NatGateway": "nat", "RouteTable": "rtb", "Eip": "eipalloc",
                  "VpcEndpoint": "vpce", "NetworkAcl": "acl", "Volume": "vol", "FlowLog": "fl",
                  "Instance": "i"}.get(kind)
        if prefix:
            rid = f"{prefix}-0{short_hash(token, name, n=16)}"
        state |= {"arn": arn(owner, f"{prefix or kind.lower()}/{rid}"), "ownerId": AWS_ACCOUNT}
        if kind == "LaunchTemplate":
            state |= {"latestVersion": 1, "defaultVersion": 1}
        if kind == "Vpc":
            state |= {"defaultSecurityGroupId": f"sg-0{short_hash(name, 'sg', n=16)}",
                      "mainRouteTableId": f"rtb-0{short_hash(name, 'rtb', n=16)}"}
        return rid, state
    if service == "eks" and kind == "Cluster":
        endpoint_id = short_hash(name, n=32).upper()
        ca = base64.b64encode(f"-----BEGIN CERTIFICATE-----\n{name}\n-----END CERTIFICATE-----".encode())
        state |= {"name": physical, "arn": arn(owner, f"cluster/{physical}"),
                  "endpoint": _in_region(owner, f"https://{endpoint_id}.gr7.{region}.eks.amazonaws.com"),
                  "certificateAuthority": {"data": ca.decode()},
                  "identities": [{"oidcs": [{"issuer": _in_region(
                      owner, f"https://oidc.eks.{region}.amazonaws.com/id/{endpoint_id}")}]}],
                  "status": "ACTIVE", "platformVersion": "eks.1",
                  # EKS creates the cluster security group (managed node groups' nodes join it).
                  "vpcConfig": {**(inputs.get("vpcConfig") or {}),
                                "clusterSecurityGroupId": f"sg-0{short_hash(name, 'cluster-sg', n=16)}"}}
        return physical, state
    if service == "eks" and kind == "NodeGroup":
        cluster = inputs.get("clusterName", "cluster")
        group = inputs.get("nodeGroupName") or physical
        state |= {"nodeGroupName": group, "status": "ACTIVE",
                  "arn": arn(owner, f"nodegroup/{cluster}/{group}/{short_hash(name, n=8)}"),
                  # EKS names the group's Auto Scaling group `eks-<group>-<uuid>`.
                  "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{short_hash(name, 'asg', n=8)}"}]}]}
        return f"{cluster}:{group}", state
    if service == "eks" and kind == "Addon":
        return f"{inputs.get('clusterName')}:{inputs.get('addonName')}", state
    if service == "appsync" and kind == "GraphQLApi":  # AppSync's endpoints, by protocol (its `uris` map)
        rid = short_hash(token, name, n=26)
        state |= {"arn": arn(owner, f"apis/{rid}"), "uris": {
            "GRAPHQL": _in_region(owner, f"https://{rid}.appsync-api.{region}.amazonaws.com/graphql"),
            "REALTIME": _in_region(owner, f"wss://{rid}.appsync-realtime-api.{region}.amazonaws.com/graphql")}}
        return rid, state
    state.setdefault("arn", arn(owner, f"{kind.lower()}/{physical}"))
    return rid, state


def _azure(token: str, name: str, inputs: dict, owner: Owner) -> tuple[str, dict]:
    kind = owner.kind
    location = owner.location if owner.location is not None else UNKNOWN
    # The input that names the resource itself (others, like accountName on a container, name its parent).
    own_key = _AZURE_NAME_INPUTS.get(kind, f"{kind[0].lower()}{kind[1:]}Name")
    own_name = inputs.get(own_key) if isinstance(inputs.get(own_key), str) else None
    physical = own_name or f"{name}{short_hash(name, n=6)}"
    state = {**inputs, "location": location, "name": physical}
    if kind == "ResourceGroup":
        physical = inputs.get("resourceGroupName") or f"{name}{short_hash(name, n=6)}"
        rid = f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{physical}"
        return rid, state | {"name": physical}
    rid = azure_id(owner, f"{kind[0].lower()}{kind[1:]}s", physical)
    parent_key = _AZURE_PARENTS.get(kind)
    if parent_key and inputs.get(parent_key[0]):
        rid = azure_id(owner, f"{parent_key[1]}/{inputs[parent_key[0]]}/{parent_key[2]}", physical)
    if kind == "RoleAssignment" and inputs.get("scope"):
        physical = inputs.get("roleAssignmentName") or uuid(name, "assignment")
        rid = f"{inputs['scope']}/providers/Microsoft.Authorization/roleAssignments/{physical}"
        state["name"] = physical
    state["id"] = rid
    if kind == "Vault":
        state["properties"] = {**(inputs.get("properties") or {}), "vaultUri": f"https://{physical}.vault.azure.net/"}
    if kind == "Key":
        vault = inputs.get("vaultName", "vault")
        version = short_hash(name, n=32)
        state |= {"keyUri": f"https://{vault}.vault.azure.net/keys/{physical}",
                  "keyUriWithVersion": f"https://{vault}.vault.azure.net/keys/{physical}/{version}"}
    if kind in ("UserAssignedIdentity",):
        state |= {"principalId": uuid(name, "principal"), "clientId": uuid(name, "client"), "tenantId": AZURE_TENANT}
    if kind == "DiskEncryptionSet":
        state["identity"] = {**(inputs.get("identity") or {}), "principalId": uuid(name, "principal"),
                             "tenantId": AZURE_TENANT}
    if kind == "ManagedCluster":
        fqdn = f"{physical}-{short_hash(name, n=8)}.hcp.{location}.azmk8s.io"
        private = f"{physical}-{short_hash(name, n=8)}.privatelink.{location}.azmk8s.io"
        state |= {"fqdn": fqdn if owner.location else UNKNOWN, "privateFQDN": private if owner.location else UNKNOWN,
                  "identityProfile": {"kubeletidentity": {"objectId": uuid(name, "kubelet"),
                                                          "clientId": uuid(name, "kubelet-client")}}}
        identity = inputs.get("identity") or {}
        state["identity"] = {**identity, "principalId": uuid(name, "principal"), "tenantId": AZURE_TENANT}
        if (inputs.get("oidcIssuerProfile") or {}).get("enabled"):
            state["oidcIssuerProfile"] = {"enabled": True, "issuerURL": UNKNOWN if owner.location is None else (
                f"https://{location}.oic.prod-aks.azure.com/{AZURE_TENANT}/{uuid(name, 'issuer')}/")}
    if kind == "StorageAccount":
        state["primaryEndpoints"] = {"blob": f"https://{physical}.blob.core.windows.net/",
                                     "dfs": f"https://{physical}.dfs.core.windows.net/",
                                     "file": f"https://{physical}.file.core.windows.net/",
                                     "queue": f"https://{physical}.queue.core.windows.net/",
                                     "table": f"https://{physical}.table.core.windows.net/",
                                     "web": f"https://{physical}.z1.web.core.windows.net/"}
    identity = state.get("identity")
    if isinstance(identity, dict) and isinstance(identity.get("userAssignedIdentities"), list):
        # ARM takes user-assigned identities as a list of ids and answers with a map keyed by id.
        state["identity"] = {**identity, "userAssignedIdentities": {
            uid: {"principalId": uuid(uid, "principal"), "clientId": uuid(uid, "client")}
            for uid in identity["userAssignedIdentities"]}}
    return rid, state


def kubernetes_state(token: str, name: str, inputs: dict) -> tuple[str, dict]:
    metadata = dict(inputs.get("metadata") or {})
    metadata.setdefault("name", f"{name}-{short_hash(token, name, n=8)}")
    state = {**inputs, "metadata": metadata}
    if token == "kubernetes:helm.sh/v3:Release":
        release = inputs.get("name") or name
        state |= {"name": release, "status": {"name": release, "namespace": inputs.get("namespace", "default"),
                                              "status": "deployed", "version": inputs.get("version")}}
        return f"{inputs.get('namespace', 'default')}/{release}", state
    spec = inputs.get("spec") if isinstance(inputs.get("spec"), dict) else {}
    if token == "kubernetes:core/v1:Service" and spec.get("type") == "LoadBalancer":
        # The provider waits for the cloud's load balancer and answers with its address.
        address = f"203.0.113.{int(short_hash(name, n=2), 16) % 250 + 1}"  # TEST-NET-3, never routed
        state["status"] = {"loadBalancer": {"ingress": [{"ip": address}]}}
    ns = metadata.get("namespace")
    return f"{ns}/{metadata['name']}" if ns else metadata["name"], state


def _random(token: str, name: str, inputs: dict) -> tuple[str, dict]:
    """pulumi-random: a stable value of the requested length (the provider marks `result` secret)."""
    if token in ("random:index/randomPassword:RandomPassword", "random:index/randomString:RandomString"):
        length = int(inputs.get("length", 16))
        value = (short_hash(token, name, n=64) * (length // 64 + 1))[:length]
        return f"{name}-{short_hash(token, name)}", {**inputs, "result": value}
    return f"{name}-{short_hash(token, name)}", dict(inputs)


def preview_state(token: str, inputs: dict, state: dict) -> dict:
    """A resource during preview: its inputs, the auto-names its provider assigns at check time; nothing the
    provider computes on create."""
    out = dict(inputs)
    package = token.split(":", 1)[0]
    kind = token.rsplit(":", 1)[-1]
    own = f"{kind[:1].lower()}{kind[1:]}Name"
    for key in (*_AUTONAMED, own):
        if key in state and key not in out:
            if package == "azure-native" and key == "name":
                continue  # an ARM resource's `name` output is what Azure answers
            out[key] = state[key]
    identity = out.get("identity")
    if package == "azure-native" and isinstance(identity, dict) and isinstance(identity.get("userAssignedIdentities"),
                                                                               list):
        # ARM takes user-assigned identities as a list of ids and answers with a map keyed by id (the
        # identities' principal and client ids are Azure's, unknown until they exist).
        out["identity"] = {**identity, "userAssignedIdentities": {uid: {} for uid in
                                                                   identity["userAssignedIdentities"]}}
    if package == "aws":  # the provider settles region and merged default tags at check time
        out.update({k: state[k] for k in ("region", "tagsAll") if k in state and k not in out})
    if package == "kubernetes" and "metadata" in state:
        out["metadata"] = {**(inputs.get("metadata") or {}), "name": state["metadata"].get("name")}
    return out
