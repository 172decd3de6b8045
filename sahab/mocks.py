"""Mock outputs that look like the clouds' own, so `apply` chains in programs resolve as they would for real.

Ids, ARNs, Azure resource ids, endpoints and names follow each provider's real formats. Values are derived
from the resource's name with a stable hash, so two plans of the same program are identical.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pulumi

from sahab.project import Project, StackConfig

AWS_ACCOUNT = "111122223333"
AZURE_SUBSCRIPTION = "3f2c1a7e-5b0d-4c9e-8a61-2d7e9b4f0c15"
AZURE_TENANT = "9b1e4d2a-7c3f-4e8b-a5d6-0f1e2c3b4a59"


def short_hash(*parts: str, n: int = 8) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def _module(token: str) -> str:
    """`aws:s3/bucketV2:BucketV2` -> `s3`."""
    return token.split(":")[1].split("/")[0]


class CloudMocks(pulumi.runtime.Mocks):
    def __init__(self, project: Project | None = None, config: StackConfig | None = None):
        self.project = project
        self.config = config
        self.aws_region = (config.values.get("aws:region") if config else None) or "me-central-1"
        self.azure_location = (config.values.get("azure-native:location") if config else None) or "uaenorth"
        self._stack_outputs: dict[str, dict[str, Any]] = {}

    # ---- resources -------------------------------------------------------------------------------------
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        token, name, inputs = args.typ, args.name, dict(args.inputs)
        if token == "pulumi:pulumi:StackReference":
            return name, {"name": name, "outputs": self._referenced_outputs(inputs.get("name") or name)}
        if token.startswith("pulumi:providers:"):
            return f"{short_hash(token, name, n=8)}-{short_hash(name, n=4)}-provider", inputs
        package = token.split(":", 1)[0]
        if package == "aws":
            return self._aws(token, name, inputs)
        if package == "azure-native":
            return self._azure(token, name, inputs)
        if package == "kubernetes":
            return self._kubernetes(token, name, inputs)
        if package == "random":
            return self._random(token, name, inputs)
        return f"{name}-{short_hash(token, name)}", inputs

    def _aws(self, token: str, name: str, inputs: dict) -> tuple[str, dict]:
        region = inputs.get("region") or self.aws_region
        service, kind = _module(token), token.rsplit(":", 1)[-1]
        physical = inputs.get("name") or f"{name}-{short_hash(token, name, n=7)}"
        state = {**inputs, "region": region, "tagsAll": inputs.get("tags") or {}}
        rid = physical
        if service == "s3" and kind in ("Bucket", "BucketV2"):
            rid = inputs.get("bucket") or f"{name}-{short_hash(name, n=7)}"
            state |= {"bucket": rid, "arn": f"arn:aws:s3:::{rid}",
                      "bucketRegionalDomainName": f"{rid}.s3.{region}.amazonaws.com"}
            return rid, state
        if service == "kms" and kind == "Key":
            rid = f"{short_hash(name, n=8)}-{short_hash(name, 'a', n=4)}-4{short_hash(name, 'b', n=3)}-" \
                  f"8{short_hash(name, 'c', n=3)}-{short_hash(name, 'd', n=12)}"
            state |= {"keyId": rid, "arn": f"arn:aws:kms:{region}:{AWS_ACCOUNT}:key/{rid}"}
            return rid, state
        if service == "kms" and kind == "Alias":
            return inputs.get("name", physical), state | {"arn": f"arn:aws:kms:{region}:{AWS_ACCOUNT}:{physical}"}
        if service == "iam":
            path = {"Role": "role", "Policy": "policy", "InstanceProfile": "instance-profile",
                    "User": "user", "OpenIdConnectProvider": "oidc-provider"}.get(kind, kind.lower())
            state |= {"name": physical, "arn": f"arn:aws:iam::{AWS_ACCOUNT}:{path}/{physical}",
                      "uniqueId": "AROA" + short_hash(name, n=16).upper()}
            if kind in ("RolePolicyAttachment", "RolePolicy"):
                rid = f"{inputs.get('role', name)}-{short_hash(token, name)}"
            return rid, state
        if service == "ec2":
            prefix = {"Vpc": "vpc", "Subnet": "subnet", "SecurityGroup": "sg", "LaunchTemplate": "lt",
                      "InternetGateway": "igw", "NatGateway": "nat", "RouteTable": "rtb", "Eip": "eipalloc",
                      "VpcEndpoint": "vpce", "NetworkAcl": "acl", "Volume": "vol", "FlowLog": "fl"}.get(kind)
            if prefix:
                rid = f"{prefix}-0{short_hash(token, name, n=16)}"
            state |= {"arn": f"arn:aws:ec2:{region}:{AWS_ACCOUNT}:{(prefix or kind.lower())}/{rid}",
                      "ownerId": AWS_ACCOUNT}
            if kind == "LaunchTemplate":
                state |= {"latestVersion": 1, "defaultVersion": 1}
            if kind == "Vpc":
                state |= {"defaultSecurityGroupId": f"sg-0{short_hash(name, 'sg', n=16)}",
                          "mainRouteTableId": f"rtb-0{short_hash(name, 'rtb', n=16)}"}
            return rid, state
        if service == "eks" and kind == "Cluster":
            endpoint_id = short_hash(name, n=32).upper()
            ca = base64.b64encode(f"-----BEGIN CERTIFICATE-----\n{name}\n-----END CERTIFICATE-----".encode())
            state |= {"name": physical, "arn": f"arn:aws:eks:{region}:{AWS_ACCOUNT}:cluster/{physical}",
                      "endpoint": f"https://{endpoint_id}.gr7.{region}.eks.amazonaws.com",
                      "certificateAuthority": {"data": ca.decode()},
                      "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{region}.amazonaws.com/id/"
                                                           f"{endpoint_id}"}]}],
                      "status": "ACTIVE", "platformVersion": "eks.1"}
            return physical, state
        if service == "eks" and kind == "NodeGroup":
            cluster = inputs.get("clusterName", "cluster")
            group = inputs.get("nodeGroupName") or physical
            state |= {"nodeGroupName": group, "status": "ACTIVE",
                      "arn": f"arn:aws:eks:{region}:{AWS_ACCOUNT}:nodegroup/{cluster}/{group}/"
                             f"{short_hash(name, n=8)}",
                      # EKS names the group's Auto Scaling group `eks-<group>-<uuid>`.
                      "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{short_hash(name, 'asg', n=8)}"}]}]}
            return f"{cluster}:{group}", state
        if service == "eks" and kind == "Addon":
            return f"{inputs.get('clusterName')}:{inputs.get('addonName')}", state
        arn_resource = f"{kind.lower()}/{physical}"
        state.setdefault("arn", f"arn:aws:{service}:{region}:{AWS_ACCOUNT}:{arn_resource}")
        return rid, state

    def _azure(self, token: str, name: str, inputs: dict) -> tuple[str, dict]:
        module, kind = _module(token), token.rsplit(":", 1)[-1]
        location = inputs.get("location") or self.azure_location
        rg = inputs.get("resourceGroupName", f"{name}-rg")
        # The input that names the resource itself (others, like accountName on a container, name its parent).
        own_key = _AZURE_NAME_INPUTS.get(kind, f"{kind[0].lower()}{kind[1:]}Name")
        own_name = inputs.get(own_key) if isinstance(inputs.get(own_key), str) else None
        physical = own_name or f"{name}{short_hash(name, n=6)}"
        state = {**inputs, "location": location, "name": physical}
        if kind == "ResourceGroup":
            physical = inputs.get("resourceGroupName") or f"{name}{short_hash(name, n=6)}"
            rid = f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{physical}"
            return rid, state | {"name": physical}
        namespace = {"containerservice": "Microsoft.ContainerService", "keyvault": "Microsoft.KeyVault",
                     "network": "Microsoft.Network", "storage": "Microsoft.Storage", "compute": "Microsoft.Compute",
                     "managedidentity": "Microsoft.ManagedIdentity",
                     "authorization": "Microsoft.Authorization"}.get(module, f"Microsoft.{module.title()}")
        rid = f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{rg}/providers/{namespace}/{kind[0].lower()}" \
              f"{kind[1:]}s/{physical}"
        parent_key = _AZURE_PARENTS.get(kind)
        if parent_key and inputs.get(parent_key[0]):
            rid = f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{rg}/providers/{namespace}/{parent_key[1]}/" \
                  f"{inputs[parent_key[0]]}/{parent_key[2]}/{physical}"
        if kind == "RoleAssignment" and inputs.get("scope"):
            physical = inputs.get("roleAssignmentName") or _uuid(name, "assignment")
            rid = f"{inputs['scope']}/providers/Microsoft.Authorization/roleAssignments/{physical}"
            state["name"] = physical
        state["id"] = rid
        if kind == "Vault":
            state["properties"] = {**(inputs.get("properties") or {}),
                                   "vaultUri": f"https://{physical}.vault.azure.net/"}
        if kind == "Key":
            vault = inputs.get("vaultName", "vault")
            version = short_hash(name, n=32)
            state |= {"keyUri": f"https://{vault}.vault.azure.net/keys/{physical}",
                      "keyUriWithVersion": f"https://{vault}.vault.azure.net/keys/{physical}/{version}"}
        if kind in ("UserAssignedIdentity",):
            state |= {"principalId": _uuid(name, "principal"), "clientId": _uuid(name, "client"),
                      "tenantId": AZURE_TENANT}
        if kind == "DiskEncryptionSet":
            state["identity"] = {**(inputs.get("identity") or {}), "principalId": _uuid(name, "principal"),
                                 "tenantId": AZURE_TENANT}
        if kind == "ManagedCluster":
            state |= {"fqdn": f"{physical}-{short_hash(name, n=8)}.hcp.{location}.azmk8s.io",
                      "privateFQDN": f"{physical}-{short_hash(name, n=8)}.privatelink.{location}.azmk8s.io",
                      "identityProfile": {"kubeletidentity": {"objectId": _uuid(name, "kubelet"),
                                                              "clientId": _uuid(name, "kubelet-client")}}}
            identity = inputs.get("identity") or {}
            state["identity"] = {**identity, "principalId": _uuid(name, "principal"), "tenantId": AZURE_TENANT}
        if kind == "StorageAccount":
            state["primaryEndpoints"] = {"blob": f"https://{physical}.blob.core.windows.net/"}
        identity = state.get("identity")
        if isinstance(identity, dict) and isinstance(identity.get("userAssignedIdentities"), list):
            # ARM takes user-assigned identities as a list of ids and answers with a map keyed by id.
            state["identity"] = {**identity, "userAssignedIdentities": {
                uid: {"principalId": _uuid(uid, "principal"), "clientId": _uuid(uid, "client")}
                for uid in identity["userAssignedIdentities"]}}
        return rid, state

    def _kubernetes(self, token: str, name: str, inputs: dict) -> tuple[str, dict]:
        metadata = dict(inputs.get("metadata") or {})
        metadata.setdefault("name", f"{name}-{short_hash(token, name, n=8)}")
        state = {**inputs, "metadata": metadata}
        if token == "kubernetes:helm.sh/v3:Release":
            release = inputs.get("name") or name
            state |= {"name": release, "status": {"name": release, "namespace": inputs.get("namespace", "default"),
                                                  "status": "deployed", "version": inputs.get("version")}}
            return f"{inputs.get('namespace', 'default')}/{release}", state
        ns = metadata.get("namespace")
        return f"{ns}/{metadata['name']}" if ns else metadata["name"], state

    def _random(self, token: str, name: str, inputs: dict) -> tuple[str, dict]:
        """pulumi-random: a stable value of the requested length (the provider marks `result` secret)."""
        if token in ("random:index/randomPassword:RandomPassword", "random:index/randomString:RandomString"):
            length = int(inputs.get("length", 16))
            value = (short_hash(token, name, n=64) * (length // 64 + 1))[:length]
            return f"{name}-{short_hash(token, name)}", {**inputs, "result": value}
        return f"{name}-{short_hash(token, name)}", inputs

    # ---- invokes -------------------------------------------------------------------------------------
    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        token, a = args.token, dict(args.args)
        region = a.get("region") or self.aws_region
        if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            names = [f"{region}{z}" for z in "abc"]
            return {"names": names, "zoneIds": [f"mec1-az{i}" for i in (1, 2, 3)], "id": region}, []
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": AWS_ACCOUNT, "arn": f"arn:aws:iam::{AWS_ACCOUNT}:user/sahab",
                    "userId": "AIDA" + short_hash("user", n=16).upper(), "id": AWS_ACCOUNT}, []
        if token == "aws:index/getRegion:getRegion":
            return {"name": region, "region": region, "id": region, "endpoint": f"ec2.{region}.amazonaws.com"}, []
        if token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com", "id": "aws"}, []
        if token == "aws:iam/getPolicyDocument:getPolicyDocument":
            return {"json": policy_document_json(a), "id": short_hash(json.dumps(a, sort_keys=True))}, []
        if token == "aws:ssm/getParameter:getParameter":
            return {"name": a.get("name"), "value": f"ami-0{short_hash(a.get('name', ''), n=16)}",
                    "type": "String", "id": a.get("name")}, []
        if token.startswith("azure-native:authorization:getClientConfig"):
            return {"clientId": _uuid("client"), "objectId": _uuid("object"), "subscriptionId": AZURE_SUBSCRIPTION,
                    "tenantId": AZURE_TENANT}, []
        if token.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
            kubeconfig = kubeconfig_yaml(a.get("resourceName", "aks"), f"https://{a.get('resourceName')}.hcp."
                                                                        f"{self.azure_location}.azmk8s.io:443")
            return {"kubeconfigs": [{"name": "clusterUser",
                                     "value": base64.b64encode(kubeconfig.encode()).decode()}]}, []
        return a, []

    # ---- stack references ----------------------------------------------------------------------------
    def _referenced_outputs(self, reference: str) -> dict[str, Any]:
        """A StackReference reads the outputs of another stack of the same project, planned offline too."""
        stack = reference.rsplit("/", 1)[-1]
        if stack in self._stack_outputs:
            return self._stack_outputs[stack]
        outputs: dict[str, Any] = {}
        if self.project is not None:
            # The child must import this very sahab (not another checkout installed in the venv).
            here = str(Path(__file__).resolve().parent.parent)
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}
            done = subprocess.run([sys.executable, "-m", "sahab.stack_outputs", str(self.project.root), stack],
                                  capture_output=True, text=True, check=False, env=env)
            if done.returncode == 0:
                outputs = json.loads(done.stdout)
            else:
                pulumi.log.warn(f"stack reference {reference}: {done.stderr.strip() or 'no outputs'}")
        self._stack_outputs[stack] = outputs
        return outputs


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


def _uuid(*parts: str) -> str:
    h = short_hash(*parts, n=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def policy_document_json(args: dict) -> str:
    """Render aws.iam.get_policy_document arguments as the IAM JSON the provider would return."""
    statements = []
    for st in args.get("statements") or []:
        out: dict[str, Any] = {}
        if st.get("sid"):
            out["Sid"] = st["sid"]
        out["Effect"] = st.get("effect", "Allow")
        for src, dst in (("actions", "Action"), ("notActions", "NotAction"), ("resources", "Resource"),
                         ("notResources", "NotResource")):
            if st.get(src):
                out[dst] = st[src] if len(st[src]) > 1 else st[src][0]
        for key, dst in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
            if st.get(key):
                out[dst] = {p["type"]: p["identifiers"] if len(p["identifiers"]) > 1 else p["identifiers"][0]
                            for p in st[key]}
        if st.get("conditions"):
            cond: dict[str, dict[str, Any]] = {}
            for c in st["conditions"]:
                values = c["values"] if len(c["values"]) > 1 else c["values"][0]
                cond.setdefault(c["test"], {})[c["variable"]] = values
            out["Condition"] = cond
        statements.append(out)
    return json.dumps({"Version": "2012-10-17", "Statement": statements}, indent=2)


def kubeconfig_yaml(cluster: str, server: str) -> str:
    return (f"apiVersion: v1\nkind: Config\nclusters:\n- name: {cluster}\n  cluster:\n    server: {server}\n"
            f"contexts:\n- name: {cluster}\n  context:\n    cluster: {cluster}\n    user: {cluster}\n"
            f"current-context: {cluster}\nusers:\n- name: {cluster}\n  user:\n    token: mock-token\n")
