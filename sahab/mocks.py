"""Mock outputs that look like the clouds' own, so `apply` chains in programs resolve as they would for real.

Ids, ARNs, Azure resource ids, endpoints and names follow each provider's real formats. Values are derived
from the resource's name with a stable hash, so two plans of the same program are identical.

In a preview (the default for `sahab plan` and `sahab check`) a resource answers what a provider answers
before anything exists: its inputs, plus what the provider fills in when it checks them (auto-names);
everything it would compute (ids, ARNs, endpoints, generated values) stays unknown. Data sources answer in
full, as they do in a real preview, from the stack's own facts (`sahab.invokes`).
"""

from __future__ import annotations

import base64
import glob
import hashlib
import json
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


UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown value


class CloudMocks(pulumi.runtime.Mocks):
    def __init__(self, project: Project | None = None, config: StackConfig | None = None, preview: bool = False):
        self.project = project
        self.config = config
        self.preview = preview
        self.aws_region = _known(config.values.get("aws:region") if config else None) or "me-central-1"
        self.azure_location = _known(config.values.get("azure-native:location") if config else None) or "uaenorth"
        self._providers: dict[tuple[str, str], dict] = {}  # (provider type, name) -> its settings

    # ---- resources -------------------------------------------------------------------------------------
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        token, name, inputs = args.typ, args.name, dict(args.inputs)
        if token == "pulumi:pulumi:StackReference":
            return self._stack_reference(inputs.get("name") or name, name)
        if token.startswith("pulumi:providers:"):
            self._providers[(token, name)] = inputs
            return f"{short_hash(token, name, n=8)}-{short_hash(name, n=4)}-provider", inputs
        rid, state = self._full_state(token, name, inputs, args.provider or "")
        if not self.preview or args.resource_id:
            return rid, state
        return "", _preview_state(token, inputs, state)

    def _full_state(self, token: str, name: str, inputs: dict, provider: str) -> tuple[str, dict]:
        """What the resource would be after `pulumi up`: ids, ARNs, endpoints in the clouds' formats."""
        package = token.split(":", 1)[0]
        if package == "aws":
            return self._aws(token, name, inputs, provider)
        if package == "azure-native":
            return self._azure(token, name, inputs, provider)
        if package == "kubernetes":
            return self._kubernetes(token, name, inputs)
        if package == "random":
            return self._random(token, name, inputs)
        return f"{name}-{short_hash(token, name)}", inputs

    def _provider_setting(self, provider_ref: str, key: str) -> Any:
        """A setting of the explicit provider a resource names (`urn::id`), if it has that setting."""
        urn = provider_ref.rsplit("::", 1)[0] if provider_ref else ""
        parts = urn.split("::")
        if len(parts) < 4:
            return None
        return _known(self._providers.get((parts[2].split("$")[-1], parts[3]), {}).get(key))

    def _aws(self, token: str, name: str, inputs: dict, provider: str = "") -> tuple[str, dict]:
        region = _known(inputs.get("region")) or self._provider_setting(provider, "region") or self.aws_region
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
                      "status": "ACTIVE", "platformVersion": "eks.1",
                      # EKS creates the cluster security group (managed node groups' nodes join it).
                      "vpcConfig": {**(inputs.get("vpcConfig") or {}),
                                    "clusterSecurityGroupId": f"sg-0{short_hash(name, 'cluster-sg', n=16)}"}}
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

    def _azure(self, token: str, name: str, inputs: dict, provider: str = "") -> tuple[str, dict]:
        module, kind = _module(token), token.rsplit(":", 1)[-1]
        location = _known(inputs.get("location")) or self._provider_setting(provider, "location") \
            or self.azure_location
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
            if (inputs.get("oidcIssuerProfile") or {}).get("enabled"):
                state["oidcIssuerProfile"] = {"enabled": True, "issuerURL": (
                    f"https://{location}.oic.prod-aks.azure.com/{AZURE_TENANT}/{_uuid(name, 'issuer')}/")}
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
        from sahab.invokes import Facts, synthesise

        token, a = args.token, dict(args.args)
        region = _known(a.get("region")) or self._provider_setting(args.provider or "", "region") or self.aws_region
        if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            names = [f"{region}{z}" for z in "abc"]
            short = "".join(p[0] for p in region.split("-")[:-1]) + region.split("-")[-1]
            return {"names": names, "zoneIds": [f"{short}-az{i}" for i in (1, 2, 3)], "id": region,
                    "groupNames": [region] * 3, "state": a.get("state")}, []
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": AWS_ACCOUNT, "arn": f"arn:aws:iam::{AWS_ACCOUNT}:user/sahab",
                    "userId": "AIDA" + short_hash("user", n=16).upper(), "id": AWS_ACCOUNT}, []
        if token == "aws:index/getRegion:getRegion":
            return {"name": region, "region": region, "id": region, "endpoint": f"ec2.{region}.amazonaws.com",
                    "description": region}, []
        if token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com", "id": "aws",
                    "reverseDnsPrefix": "com.amazonaws"}, []
        if token == "aws:iam/getPolicyDocument:getPolicyDocument":
            return {"json": policy_document_json(a), "minifiedJson": json.dumps(json.loads(policy_document_json(a)),
                                                                                separators=(",", ":")),
                    "id": short_hash(json.dumps(a, sort_keys=True))}, []
        if token == "aws:ssm/getParameter:getParameter":
            return {"name": a.get("name"), "value": f"ami-0{short_hash(a.get('name', ''), n=16)}",
                    "type": "String", "id": a.get("name"), "arn": f"arn:aws:ssm:{region}:{AWS_ACCOUNT}:parameter/"
                                                                  f"{str(a.get('name', '')).lstrip('/')}"}, []
        if token.startswith("azure-native:authorization:getClientConfig"):
            return {"clientId": _uuid("client"), "objectId": _uuid("object"), "subscriptionId": AZURE_SUBSCRIPTION,
                    "tenantId": AZURE_TENANT}, []
        if token.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
            kubeconfig = kubeconfig_yaml(a.get("resourceName", "aks"), f"https://{a.get('resourceName')}.hcp."
                                                                        f"{self.azure_location}.azmk8s.io:443")
            return {"kubeconfigs": [{"name": "clusterUser",
                                     "value": base64.b64encode(kubeconfig.encode()).decode()}]}, []
        if token == "kubernetes:yaml:decode":
            return {"result": decode_manifests(str(a.get("text") or ""))}, []
        facts = Facts(region=region, account=AWS_ACCOUNT, partition="aws", azure_location=self.azure_location,
                      subscription=AZURE_SUBSCRIPTION, tenant=AZURE_TENANT)
        answer = synthesise(token, a, facts)
        return (answer if answer is not None else a), []

    # ---- remote components ---------------------------------------------------------------------------
    def expand_component(self, monitor: Any, request: Any, urn: str, inputs: dict) -> None:
        """Components a provider builds (kubernetes yaml/v2 ConfigFile and ConfigGroup) get the children the
        provider would register, decoded locally, so their objects are planned like any resource."""
        from sahab.engine import PlannedResource

        if request.type not in ("kubernetes:yaml/v2:ConfigGroup", "kubernetes:yaml/v2:ConfigFile"):
            return
        objects = manifests_of(inputs, Path.cwd())
        prefix = inputs.get("resourcePrefix") if isinstance(inputs.get("resourcePrefix"), str) else request.name
        for obj in objects:
            meta = obj.get("metadata") or {}
            ns, obj_name = meta.get("namespace"), meta.get("name", "unnamed")
            name = f"{prefix}:{ns}/{obj_name}" if ns else f"{prefix}:{obj_name}"
            type_ = kubernetes_type(obj)
            child = monitor.make_urn(urn, type_, name)
            _, state = self._kubernetes(type_, name, obj)
            monitor.recorded.append(PlannedResource(urn=child, type=type_, name=name, parent=urn,
                                                    provider=(request.provider.rsplit("::", 1)[0] or None)
                                                    if request.provider else None,
                                                    inputs=obj, custom=True, outputs=state,
                                                    dependencies=[urn]))

    # ---- stack references ----------------------------------------------------------------------------
    def _stack_reference(self, reference: str, name: str) -> tuple[str, dict]:
        """A StackReference reads the outputs of a local project's stack, planned offline too; a stack that is
        not here has outputs unknown until the update, as a preview of a not-yet-deployed stack would."""
        from sahab.stack_outputs import referenced_outputs

        outputs = referenced_outputs(reference, self.project, self.config) if self.project else None
        if outputs is None:
            return name, ({"name": name} if self.preview else {"name": name, "outputs": {}})
        secret = sorted(k for k, v in outputs.items() if _holds_secret(v))
        return name, {"name": name, "outputs": outputs, "secretOutputNames": secret}


def _holds_secret(value: Any) -> bool:
    from sahab.engine import SIG_KEY, SIG_SECRET

    if isinstance(value, dict):
        return value.get(SIG_KEY) == SIG_SECRET or any(_holds_secret(v) for v in value.values())
    return isinstance(value, list) and any(_holds_secret(v) for v in value)


def _known(value: Any) -> Any:
    return None if value == UNKNOWN else value


# What a provider fills in when it checks inputs (auto-names): known during a preview.
_AUTONAMED = ("name", "bucket", "metadata", "resourceName", "accountName", "vaultName", "containerName",
              "resourceGroupName")


def _preview_state(token: str, inputs: dict, state: dict) -> dict:
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


def kubernetes_type(obj: dict) -> str:
    """`apps/v1` Deployment -> `kubernetes:apps/v1:Deployment`; core objects live under `core/v1`."""
    api = str(obj.get("apiVersion") or "v1")
    if "/" not in api:
        api = f"core/{api}"
    return f"kubernetes:{api}:{obj.get('kind', 'Unknown')}"


def decode_manifests(text: str) -> list[dict]:
    """What the kubernetes provider's `yaml:decode` answers: every document, `List` kinds expanded."""
    import yaml

    out: list[dict] = []
    for doc in yaml.safe_load_all(text):
        if not isinstance(doc, dict):
            continue
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(item for item in doc["items"] if isinstance(item, dict))
        else:
            out.append(doc)
    return out


def manifests_of(inputs: dict, base: Path) -> list[dict]:
    """The objects a yaml/v2 ConfigGroup or ConfigFile holds: `file`/`files` (globs), `yaml`, `objs`."""
    objects: list[dict] = []
    files = inputs.get("files") or []
    if isinstance(files, str):
        files = [files]
    if isinstance(inputs.get("file"), str):
        files = [*files, inputs["file"]]
    for pattern in files:
        if not isinstance(pattern, str) or pattern.startswith(("http://", "https://")) or pattern == UNKNOWN:
            continue
        for path in sorted(glob.glob(str(base / pattern))) or []:
            objects.extend(decode_manifests(Path(path).read_text()))
    texts = inputs.get("yaml") or []
    for text in [texts] if isinstance(texts, str) else texts:
        if isinstance(text, str) and text != UNKNOWN:
            objects.extend(decode_manifests(text))
    for obj in inputs.get("objs") or []:
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


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
