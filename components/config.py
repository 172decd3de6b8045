"""The fleet schema: everything one stack builds, under the single structured config key `sahab:fleet`.

This is the only module that reads `pulumi.Config`. Every model is frozen and forbids unknown keys; every
field documents its default. Cross-field rules (sizes, instance types against accelerators, regions against
the residency list, names that refer to other entries) run after parsing and raise `ConfigError` with the
exact config path, e.g. `sahab:fleet.node_pools[2].max_size`, before any resource exists.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)
from sahab.components import accelerators, egress, gpu_stack, offerings, validation
from sahab.components.errors import ConfigError
from sahab.components.hybrid_config import Deployer, SiteDns, SiteGateway, SiteLink, check_hybrid, private_block
from sahab.components.network_plan import MAX_AKS_CLUSTERS_PER_VNET, plan_api_server_subnets
from sahab.components.registry_config import Registries, check_registries

ROOT = "sahab:fleet"

Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$")]  # a lower-case DNS label
Accelerator = Literal["h100", "h200", "a100", "l40s", "a10g", "t4", "cpu"]
GpuAccelerator = Literal["h100", "h200", "a100", "l40s", "a10g", "t4"]
Emirate = Literal["abu-dhabi", "dubai", "sharjah", "ajman", "umm-al-quwain", "ras-al-khaimah", "fujairah"]
# A whole disk by its stable /dev/disk/by-id/ name: a kernel name (/dev/nvme1n1) can point at another disk after a
# reboot, and luksFormat would erase that one.
DATA_DISK = re.compile(r"^/dev/disk/by-id/[A-Za-z0-9][A-Za-z0-9._:+@-]{0,199}$")
# An SSH host public key as known_hosts holds it: the key type, then its base64 blob (RFC 4253 section 6.6).
SSH_HOST_KEY = r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|" \
               r"sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]{16,2048}={0,2}$"
# Bounds that keep one stack file from asking for more than a cluster or a node can hold.
MAX_HOSTS = 5000  # Kubernetes' largest supported cluster
MAX_NODE_LABELS = 64
MAX_TAINTS = 32


def _fits(check):
    """A pydantic validator from a grammar check in components.validation."""

    def validate(value: str) -> str:
        problem = check(value)
        if problem:
            raise ValueError(f"{validation.shown(value)} is not allowed; allowed: {problem}")
        return value

    return AfterValidator(validate)


Region = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$")]  # me-central-1, uaenorth
# An IAM role or user ARN an EKS access entry can name (the aws partitions; a path is allowed).
IAM_PRINCIPAL = r"^arn:aws(-[a-z]+)*:iam::\d{12}:(role|user)/[A-Za-z0-9+=,.@_/-]{1,512}$"
ENTRA_OBJECT_ID = r"^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$"
# Azure locations Microsoft opens only on request (UAE Central: access by request, no availability zones).
RESTRICTED_LOCATIONS = {"uaecentral": "Microsoft opens UAE Central to a subscription only on request"}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, use_attribute_docstrings=True)


class Residency(_Model):
    """Where data may live."""

    allowed_regions: tuple[Region, ...] = ("me-central-1", "uaenorth", "uaecentral")
    """Cloud regions (AWS) and locations (Azure) resources may use. Default: the three UAE regions."""
    allowed_countries: tuple[Annotated[str, Field(pattern=r"^[A-Z]{2}$")], ...] = ("AE",)
    """ISO 3166 country codes an on-prem site may be in. Default: the UAE only."""


class AwsCloud(_Model):
    """The AWS side of the fleet."""

    region: str = "me-central-1"
    """Region for every AWS resource (pinned through an explicit provider). Default: me-central-1 (UAE)."""
    account_id: Annotated[str, Field(pattern=r"^\d{12}$")] | None = None
    """Expected account; when set the provider refuses to run against any other. Default: unset."""
    vpc_cidr: str = "10.40.0.0/16"
    """VPC address range, split evenly across the availability zones. Default: 10.40.0.0/16."""
    az_count: Annotated[StrictInt, Field(ge=2, le=3)] = 3
    """Availability zones to spread private subnets over. Default: 3 (all of me-central-1)."""
    admin_principals: tuple[Annotated[str, Field(pattern=IAM_PRINCIPAL)], ...] = ()
    """IAM roles and users (ARNs) that administer every EKS cluster of the stack: each gets an EKS access entry
    with the AmazonEKSClusterAdminPolicy (cluster scope), e.g. the team's SSO role and the CI role. The identity
    that creates a cluster is always an admin of it. Default: none beyond the creator."""
    airgapped: StrictBool = False
    """No internet gateway, NAT gateway or public subnets: nodes reach AWS only through the VPC endpoints and pull
    images only from in-region ECR, so mirror every platform image there first. Default: false (one NAT gateway,
    for the platform's public images; team pods reach no public address either way)."""
    hybrid_hub: Literal["virtual-private-gateway", "transit-gateway"] = "virtual-private-gateway"
    """What the on-prem sites' links attach to in each VPC (components.aws.hybrid_hub): a virtual private gateway,
    or a transit gateway (for more sites and ECMP across tunnels). Default: virtual-private-gateway."""

    _cidr = field_validator("vpc_cidr")(lambda v: _check_cidr(v))


class MaintenanceWindow(_Model):
    """A weekly window, in UTC."""

    day: Literal["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] = "Friday"
    """Day of the week. Default: Friday (the UAE weekend)."""
    start_hour: Annotated[StrictInt, Field(ge=0, le=23)] = 0
    """Hour it opens, UTC. Default: 0."""
    hours: Annotated[StrictInt, Field(ge=4, le=24)] = 8
    """How long it stays open (AKS needs at least 4). Default: 8."""


class AzureCloud(_Model):
    """The Azure side of the fleet."""

    location: str = "uaenorth"
    """Location for every Azure resource. Default: uaenorth (uaecentral selectable)."""
    subscription_id: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$")] | None \
        = None
    """Subscription to deploy into. Default: the provider's configured subscription."""
    vnet_cidr: str = "10.50.0.0/16"
    """VNet address range. Default: 10.50.0.0/16."""
    control_plane_log_retention_days: Annotated[int, Field(ge=30, le=730)] = 365
    """Days AKS control-plane logs (API server, audit, controller manager, scheduler, autoscaler, guard) are kept
    in the cluster's Log Analytics workspace. Default: 365."""
    control_plane_logs_cmk_gb_per_day: Annotated[int, Field(ge=100)] | None = None
    """Encrypt those logs with the fleet's Key Vault key: Azure allows that only through a dedicated Log Analytics
    cluster, which commits to this many GB/day (at least 100). Default: unset (Microsoft-managed keys)."""
    admin_group_ids: tuple[Annotated[str, Field(pattern=ENTRA_OBJECT_ID)], ...] = ()
    """Entra ID groups (object ids) that administer every AKS cluster of the stack: each gets the "Azure Kubernetes
    Service RBAC Cluster Admin" role on the cluster, as does the identity running `pulumi up`. Default: none
    beyond the deployer."""
    kubelogin: Literal["azurecli", "workloadidentity", "spn", "msi"] = "azurecli"
    """How `pulumi up` signs in to the AKS API (the kubeconfig's `kubelogin get-token --login` mode), never
    interactively: azurecli (a laptop after `az login`), workloadidentity (CI with federated credentials:
    AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE), spn (a service principal: AZURE_CLIENT_ID,
    AZURE_CLIENT_SECRET), msi (a runner's managed identity). A CI job may also set AAD_LOGIN_METHOD, which
    kubelogin prefers. Default: azurecli."""
    gpu_maintenance: MaintenanceWindow = MaintenanceWindow()
    """When AKS may upgrade and reimage nodes (node OS images and Kubernetes patches): GPU nodes drain running
    training, so only in this weekly window. Default: Fridays 00:00-08:00 UTC."""

    _cidr = field_validator("vnet_cidr")(lambda v: _check_cidr(v))


class Clouds(_Model):
    """The cloud accounts the fleet uses; on-prem-only fleets set none."""

    aws: AwsCloud | None = None
    """AWS settings; absent means no AWS resources. Default: absent."""
    azure: AzureCloud | None = None
    """Azure settings; absent means no Azure resources. Default: absent."""


class HostGpus(_Model):
    """The NVIDIA GPUs one on-prem server carries (`nvidia-smi -L` lists them)."""

    accelerator: GpuAccelerator
    """Their model, from the hardware catalog (every GPU of one server is the same model). Required."""
    count: Annotated[StrictInt, Field(ge=1, le=16)]
    """How many. Required."""


class Host(_Model):
    """One on-prem server reachable over SSH."""

    name: Name
    """Inventory hostname."""
    address: Annotated[str, _fits(validation.host_address)]
    """IP address Ansible connects to; one server's, unique across the fleet."""
    port: Annotated[StrictInt, Field(ge=1, le=65535)] = 22
    """SSH port. Default: 22."""
    cpus: Annotated[StrictInt, Field(ge=1, le=4096)]
    """Logical CPUs (hardware threads) the server has, as `nproc` counts them. Required: it sizes the kubelet's
    reserved CPUs and tells where pods fit."""
    memory_gib: Annotated[StrictInt, Field(ge=1, le=65536)]
    """Memory in whole GiB (`free -g`). Required, for the same reasons."""
    data_disk: str | None = None
    """Block device for the encrypted data volume: a whole disk by its stable `/dev/disk/by-id/...` path (a
    kernel name such as `/dev/nvme1n1` is refused: it can name another disk after a reboot). Ansible formats it
    with LUKS2 (key: a Pulumi secret) and mounts it where the `sahab-encrypted` storage class puts volumes. Its
    contents are erased on first use. Default: none (the host provisions no volumes)."""
    ssh_host_keys: Annotated[tuple[Annotated[str, Field(pattern=SSH_HOST_KEY)], ...], Field(max_length=8)] = ()
    """The server's SSH host public keys (`<type> <base64>`), as `sahab init --accept-new-host-keys` recorded them
    on first contact. When a site's hosts record theirs, Ansible trusts only these keys for them. Default: none
    (the operator's ~/.ssh/known_hosts)."""
    gpus: HostGpus | None = None
    """The server's GPUs, e.g. `{accelerator: h100, count: 8}`: a GPU pool takes only hosts that carry its
    accelerator, a CPU pool only hosts without GPUs. Default: none (a server without GPUs)."""

    @field_validator("data_disk")
    @classmethod
    def _data_disk(cls, v: str | None) -> str | None:
        if v is not None and not DATA_DISK.match(v):
            raise ValueError(f"{v!r} is not a stable disk name; allowed: /dev/disk/by-id/<id> (ls -l /dev/disk/by-id/ "
                             "on the host); kernel names like /dev/nvme1n1 can change between boots")
        return v


SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]
"""The name of a secret stack setting `sahab:<name>` (set with `pulumi config set --secret <name>`)."""


class StoreCredentials(_Model):
    """One team's own key for a site's object store, which the store limits to the team's prefix."""

    access_key_id_secret: SecretKey
    """Secret stack setting (`pulumi config set --secret <name>`) with the team's access key id. Required."""
    secret_access_key_secret: SecretKey
    """Secret stack setting with the team's secret access key. Required."""


SHARED_STORE_KEY = ("one key for the whole bucket, copied into every team's namespace, would let each team read and "
                    "overwrite the others' checkpoints; allowed: a key per team, which the store limits to "
                    "<bucket>/<team>/ (a MinIO or Ceph RGW user policy on that prefix), named under "
                    "team_credentials.<team>")


class ObjectStore(_Model):
    """An in-country S3-compatible object store reached from a site (MinIO, Ceph RGW, a UAE provider's), where the
    site's training checkpoints go: they survive losing a node, which a node-local volume does not."""

    endpoint: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$")]
    """The store's S3 API, https only, e.g. `https://s3.auh.example.ae` (port 443 unless it names one). Required."""
    addresses: Annotated[tuple[str, ...], Field(min_length=1, max_length=16)]
    """Private blocks the endpoint's name resolves to, e.g. `[10.10.5.0/28]`: the site's team pods may reach them on
    the endpoint's port and nowhere else outside the cluster (a NetworkPolicy names addresses, not host names).
    Required."""
    bucket: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")]
    """The bucket checkpoints go to; each team writes under its own prefix (`<team>/`). Required."""
    region: Annotated[str, Field(pattern=r"^[a-z0-9-]{2,32}$")] | None = None
    """The signing region the store expects, when it checks one. Default: unset (boto3's default)."""
    team_credentials: dict[Name, StoreCredentials] = Field(default_factory=dict)
    """Per team (by name): the secret stack settings holding that team's own key, which the store must limit to
    `<bucket>/<team>/`. Each team's namespace gets its own key and nothing else; a team training on this site
    without one is refused. Default: none."""
    access_key_id_secret: Any = None
    """Refused when set: the site-wide key of earlier versions (see team_credentials). Default: unset."""
    secret_access_key_secret: Any = None
    """Refused when set: the site-wide key of earlier versions (see team_credentials). Default: unset."""

    @field_validator("access_key_id_secret", "secret_access_key_secret")
    @classmethod
    def _no_shared_key(cls, v: Any) -> None:
        if v is not None:
            raise ValueError(SHARED_STORE_KEY)
        return v

    @field_validator("team_credentials")
    @classmethod
    def _a_key_per_team(cls, v: dict[str, StoreCredentials]) -> dict[str, StoreCredentials]:
        owner: dict[str, str] = {}
        for team, creds in v.items():
            for setting in (creds.access_key_id_secret, creds.secret_access_key_secret):
                if setting in owner and owner[setting] != team:
                    raise ValueError(f"teams {owner[setting]} and {team} both name the secret setting {setting}: "
                                     + SHARED_STORE_KEY)
                owner[setting] = team
        return v

    @field_validator("addresses")
    @classmethod
    def _private_addresses(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for block in v:
            problem = egress.public_problem(block)
            if problem:
                raise ValueError(problem)
        return v

    @property
    def port(self) -> int:
        """The port of `endpoint`: the one team pods may open."""
        authority = self.endpoint.removeprefix("https://").rstrip("/")
        return int(authority.rsplit(":", 1)[1]) if ":" in authority else 443


class Site(_Model):
    """An on-prem data centre."""

    name: Name
    """Unique site name."""
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] = "AE"
    """ISO 3166 country code of the building. Default: AE."""
    emirate: Emirate
    """Emirate the building is in."""
    city: Annotated[str, _fits(validation.plain_text)]
    """City, for the residency evidence."""
    hosts: Annotated[tuple[Host, ...], Field(max_length=MAX_HOSTS)] = ()
    """Servers at this site (at most 5,000). Default: none."""
    ssh_user: Annotated[str, _fits(validation.linux_user)] = "sahab"
    """User Ansible logs in as (needs sudo). Default: sahab."""
    ssh_private_key_secret: Annotated[str, _fits(validation.config_key_name)] = "onpremSshPrivateKey"
    """Name of the secret config key (`sahab:<name>`, set with `pulumi config set --secret`) holding the SSH
    private key. When unset in the stack, Ansible uses the operator's ssh-agent. Default: onpremSshPrivateKey."""
    airgapped: StrictBool = False
    """Install only from the hosts' configured package sources (a site mirror). Default: false."""
    node_networks: tuple[Annotated[str, _fits(validation.node_network)], ...] = ()
    """The networks the site's hosts live in (CIDRs, IPv4 or IPv6), e.g. `[192.168.50.0/24]`: every host address and
    control-plane VIP must lie in one, and each node's firewall admits cluster traffic from them. Default: none
    (the firewall admits the site's own host addresses and VIPs, one by one)."""
    object_store: ObjectStore | None = None
    """Where the site's training checkpoints go (components/onprem/checkpoint_access.py). Default: unset (a
    per-pod volume of the encrypted storage class, which does not survive losing its node)."""
    networks: Annotated[tuple[Annotated[str, AfterValidator(private_block)], ...], Field(max_length=32)] = ()
    """The site's private IPv4 blocks that reach the clouds (its servers, API VIPs, object store, DNS servers,
    deployer); routed over its links and admitted by the clouds' security rules. Default: none."""
    dns: SiteDns = SiteDns()
    """The site's DNS servers, for which conditional forwarders to the clouds' resolvers are rendered
    (components.hybrid_config). Default: BIND."""
    gateway: SiteGateway | None = None
    """The site's end of its VPN links (components.hybrid_config). Default: none."""
    links: Annotated[tuple[SiteLink, ...], Field(max_length=2)] = ()
    """How the site reaches each cloud: an IPsec VPN (the default) or an existing Direct Connect / ExpressRoute
    circuit (components.hybrid_config). Default: none (the site reaches no cloud privately)."""


class Taint(_Model):
    """A Kubernetes node taint."""

    key: Annotated[str, _fits(validation.qualified_name)]
    """Taint key, e.g. nvidia.com/gpu."""
    value: Annotated[str, _fits(validation.label_value)] = ""
    """Taint value. Default: empty."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    """What the taint does to pods that do not tolerate it. Default: NoSchedule."""


class Cluster(_Model):
    """A Kubernetes cluster: EKS, AKS, or kubeadm on an on-prem site."""

    name: Name
    """Unique cluster name."""
    kind: Literal["eks", "aks", "onprem"]
    """Where it runs: EKS, AKS, or kubeadm on an on-prem site."""
    kubernetes_version: Annotated[str, _fits(validation.kubernetes_version)] = "1.34"
    """Kubernetes minor version, one Sahab supports (components.validation.KUBERNETES_VERSIONS). Default: 1.34."""
    location: str | None = None
    """Region/location override for this cluster (e.g. uaecentral). Default: the cloud's."""
    site: str | None = None
    """On-prem only: the site whose hosts form the cluster. Default: unset."""
    control_plane_hosts: tuple[str, ...] = ()
    """On-prem only: hosts that run the control plane: one, or three or more for a highly available control
    plane (etcd needs a majority; two would be less available than one). The first runs `kubeadm init`, the
    others join it as control planes. Default: none."""
    control_plane_vip: Annotated[str, _fits(validation.host_address)] | None = None
    """On-prem only: the virtual IP the API server answers on (kube-vip moves it between the control-plane
    hosts). Required with three or more control-plane hosts; an unused address in the hosts' network.
    Default: none (the first control-plane host's address)."""
    schedule_on_control_plane: StrictBool | None = None
    """On-prem only: let workloads run on the control-plane hosts (no control-plane taint), so a small site
    (up to 3 hosts) loses none of them to Kubernetes itself. Then a control-plane host may also be listed in a
    node pool. Default: on for the smb environment when its site has up to 3 hosts, off otherwise."""
    public_endpoint: StrictBool = False
    """Expose the API server publicly. Default: false (private endpoint only)."""
    public_endpoint_cidrs: tuple[Annotated[str, _fits(validation.api_access_cidr)], ...] = ()
    """With `public_endpoint`: the only IPv4 ranges that may reach the API server, each a /8 or narrower; required
    then (0.0.0.0/0 is refused). Default: none."""
    region_access_granted: StrictBool = False
    """The subscription has been granted access to this cluster's restricted location (uaecentral: Microsoft opens
    it only on request). Required true there, so nothing is planned into a location the subscription cannot
    use. Default: false."""
    stack_reference: Annotated[str, _fits(validation.stack_reference)] | None = None
    """Burst stacks: take this cluster from another stack (e.g. `org/sahab/prod`) instead of creating it. An
    on-prem cluster taken this way needs no site: the burst stack only reaches its API (the MultiKueue manager).
    Default: unset (create it)."""


class NodePool(_Model):
    """A group of identical nodes in one cluster."""

    name: Name
    """Unique pool name."""
    cluster: str
    """Name of the cluster the pool joins."""
    accelerator: Accelerator = "cpu"
    """Accelerator on every node, from the hardware catalog. Default: cpu."""
    instance_type: str | None = None
    """Cloud instance type / VM size. Default: the catalog's choice for the accelerator."""
    hosts: Annotated[tuple[str, ...], Field(max_length=MAX_HOSTS)] = ()
    """On-prem only: the site hosts in this pool. Default: none (cloud pools)."""
    min_size: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    """Autoscaling floor. Default: 1 (burst pools use 0)."""
    max_size: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    """Autoscaling ceiling. Default: 1."""
    desired_size: Annotated[StrictInt, Field(ge=0, le=1000)] | None = None
    """Initial size. Default: min_size."""
    spot: StrictBool = False
    """Use spot/low-priority capacity. Default: false."""
    disk_size_gb: Annotated[StrictInt, Field(ge=20, le=16384)] = 200
    """Encrypted root volume size. Default: 200."""
    labels: Annotated[dict[str, str], Field(max_length=MAX_NODE_LABELS)] = Field(default_factory=dict)
    """Extra node labels (Kubernetes label syntax; not under sahab.io/, nvidia.com/ or the kubelet-restricted
    kubernetes.io/). Default: none (pool and accelerator labels are always set)."""
    extra_taints: Annotated[tuple[Taint, ...], Field(max_length=MAX_TAINTS)] = ()
    """Taints beyond the GPU taint every GPU pool carries. Default: none."""
    mig_strategy: Literal["none", "single", "mixed"] = "none"
    """NVIDIA MIG strategy for the device plugin. Default: none."""
    time_slicing_replicas: Annotated[StrictInt, Field(ge=2, le=48)] | None = None
    """Share each GPU between this many pods by time-slicing. Default: unset (no sharing)."""
    gpus_per_node: Annotated[StrictInt, Field(ge=1, le=16)] | None = None
    """GPUs on each node. Default: the instance type's count from the catalog; on-prem, the count its hosts
    declare (`sites[].hosts[].gpus`), which it must equal when set."""
    gpu_driver: Literal["operator", "preinstalled"] | None = None
    """Who installs the NVIDIA driver and container toolkit: the GPU operator, or the node image / host
    (components.gpu_stack). Default: per kind of cluster: preinstalled on EKS (the AL2023 NVIDIA AMI) and on-prem
    (Ansible), operator on AKS; a choice that installs either twice is refused."""
    zones: Annotated[tuple[Annotated[str, Field(pattern=r"^([a-z0-9]+-az[0-9]+|[1-9])$")], ...],
                     Field(max_length=6)] = ()
    """Cloud pools: the zones to place nodes in, as zone IDs on AWS (`mec1-az1`, the same place in every account)
    and zone numbers on Azure (`1`); each must sell the pool's instance type. Default: every zone of the
    cluster's network that sells it (one of them for an EFA pool; AKS: as the location's SKUs allow)."""
    efa: StrictBool | None = None
    """EKS: multi-node training over the instance type's Elastic Fabric Adapters: EFA interfaces in the launch
    template, a cluster placement group, one zone, the EFA device plugin, and training pods that ask for
    `vpc.amazonaws.com/efa` and hugepages. Default: on for EFA-capable types (per EC2's instance data) in a pool
    that can grow past one node, off otherwise."""
    gpus_per_worker: Annotated[int, Field(ge=1, le=16)] | None = None
    """GPUs each training pod (one torchrun worker per GPU) asks for. Default: every GPU of the node; one
    GPU slice on a time-sliced pool, where the device plugin refuses requests for more than one."""

    @property
    def is_gpu(self) -> bool:
        return accelerators.CATALOG[self.accelerator].is_gpu

    @property
    def size(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size

    @property
    def node_labels(self) -> dict[str, str]:
        """Labels every node of the pool carries: the pool, its accelerator, and on GPUs an NVIDIA marker and
        the device plugin configuration (MIG strategy, time-slicing) the node selects."""
        labels = {accelerators.LABEL_POOL: self.name, accelerators.LABEL_ACCELERATOR: self.accelerator}
        if self.is_gpu:
            labels[accelerators.LABEL_NVIDIA_PRESENT] = "true"
            labels[accelerators.LABEL_DEVICE_PLUGIN_CONFIG] = accelerators.device_plugin_config_name(
                self.mig_strategy, self.time_slicing_replicas)
        return {**labels, **self.labels}

    @property
    def worker_gpus(self) -> int:
        """GPUs (or GPU slices) one training pod of this pool requests; 0 on CPU pools."""
        if not self.is_gpu:
            return 0
        if self.gpus_per_worker is not None:
            return self.gpus_per_worker
        return 1 if self.time_slicing_replicas else (self.gpus_per_node or 1)

    @property
    def taints(self) -> tuple[Taint, ...]:
        """GPU pools are tainted so only pods that ask for GPUs land there."""
        gpu = (Taint(key=accelerators.GPU_TAINT_KEY, value=accelerators.GPU_TAINT_VALUE, effect="NoSchedule"),)
        return (gpu if self.is_gpu else ()) + self.extra_taints


AKS_SPOT_TAINT = Taint(key="kubernetes.azure.com/scalesetpriority", value="spot", effect="NoSchedule")


class Bucket(_Model):
    """Object storage for datasets and checkpoints, pinned to the fleet's region."""

    name: Name
    """Unique bucket name (prefixed with the fleet name)."""
    cloud: Literal["aws", "azure"]
    """Which cloud holds it: an S3 bucket or an Azure storage account."""
    purpose: Literal["datasets", "checkpoints", "artifacts", "logs"] = "datasets"
    """What it holds (a tag and the name suffix). Default: datasets."""
    versioning: StrictBool = True
    """Keep object versions. Default: true."""
    geo_redundant: StrictBool = False
    """Azure only: geo-redundant storage (UAE North pairs with UAE Central). Default: false."""
    replicate_to: str | None = None
    """AWS only: replicate objects to this region (must be in the residency list). Default: none."""
    noncurrent_version_days: Annotated[StrictInt, Field(ge=1, le=36_500)] = 90
    """Expire old versions after this many days. Default: 90."""


class KeyPolicy(_Model):
    """Settings of every customer-managed key."""

    rotation_period_days: Annotated[StrictInt, Field(ge=90, le=2560)] = 365
    """KMS key rotation period. Default: 365."""
    deletion_window_days: Annotated[StrictInt, Field(ge=7, le=30)] = 30
    """Waiting period before a deleted key is gone. Default: 30 (the maximum)."""


class Storage(_Model):
    """Object storage and the customer-managed keys that encrypt it."""

    buckets: tuple[Bucket, ...] = ()
    """Buckets/storage accounts. Default: none."""
    keys: KeyPolicy = KeyPolicy()
    """Customer-managed key settings for every key Sahab creates. Default: rotation yearly, 30-day deletion."""


Email = Annotated[str, Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")]
# An https URL of URL characters only: no space, quote, brace, backtick, backslash or '$' (nothing a template or a
# shell would read), host then optional port, path and query.
HttpsUrl = Annotated[str, Field(pattern=r"^https://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?"
                                        r"(/[A-Za-z0-9._~%!&()*+,;=:@/-]*)?(\?[A-Za-z0-9._~%!&()*+,;=:@/?-]*)?$")]
SmtpUser = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._%+@\\-]{0,127}$")]
SlackChannel = Annotated[str, Field(pattern=r"^[#@]?[a-z0-9][a-z0-9._-]{0,79}$")]
# An Alertmanager label name, or `...` (group by every label).
AlertLabel = Annotated[str, Field(pattern=r"^([A-Za-z_][A-Za-z0-9_]{0,127}|\.\.\.)$")]
Severity = Literal["critical", "warning", "info"]


class AlertReceiver(_Model):
    """Where Alertmanager sends alerts. Credentials never appear in the stack file in clear: each is the name of
    a secret stack setting, handed to Alertmanager as a mounted Kubernetes Secret (a file), never in Helm values."""

    name: Name
    """Receiver name, unique."""
    type: Literal["email", "webhook", "slack", "msteams"]
    """email (SMTP), webhook (generic HTTPS), slack (incoming webhook) or msteams (Teams incoming webhook)."""
    severities: tuple[Severity, ...] = ()
    """Send only alerts of these severities; empty sends every alert the routes give it. Default: empty."""
    to: tuple[Email, ...] = ()
    """email: recipients (at least one). Default: none."""
    from_address: Email | None = None
    """email: sender address (required for email). Default: unset."""
    smarthost: Annotated[str, Field(pattern=r"^[A-Za-z0-9.-]+:\d{1,5}$")] | None = None
    """email: SMTP server `host:port`, spoken to with STARTTLS (required for email). Default: unset."""
    username: SmtpUser | None = None
    """email: SMTP user. Default: unset (no SMTP authentication)."""
    password_secret: SecretKey | None = None
    """email: secret setting holding the SMTP password (needs `username`). Default: unset."""
    url: HttpsUrl | None = None
    """webhook: the endpoint, when the URL itself is no credential (must be https). Default: unset."""
    url_secret: SecretKey | None = None
    """webhook/slack/msteams: secret setting holding the URL (Slack and Teams URLs are credentials, so they must
    use this). Default: unset."""
    bearer_token_secret: SecretKey | None = None
    """webhook: secret setting holding a bearer token sent as `Authorization`. Default: unset."""
    channel: SlackChannel | None = None
    """slack: channel override (e.g. #gpu-alerts). Default: the webhook's own channel."""

    @model_validator(mode="after")
    def _fields_of_its_type(self):
        need = {"email": ("to", "from_address", "smarthost"), "slack": ("url_secret",), "msteams": ("url_secret",)}
        for field_name in need.get(self.type, ()):
            if not getattr(self, field_name):
                raise ValueError(f"{self.type} receiver {self.name!r} needs `{field_name}`")
        if self.type == "webhook" and bool(self.url) == bool(self.url_secret):
            raise ValueError(f"webhook receiver {self.name!r} needs exactly one of `url` and `url_secret`")
        allowed = {"email": {"to", "from_address", "smarthost", "username", "password_secret"},
                   "webhook": {"url", "url_secret", "bearer_token_secret"},
                   "slack": {"url_secret", "channel"}, "msteams": {"url_secret"}}[self.type]
        optional = {"to", "from_address", "smarthost", "username", "password_secret", "url", "url_secret",
                    "bearer_token_secret", "channel"}
        stray = sorted(f for f in optional - allowed if getattr(self, f))
        if stray:
            raise ValueError(f"{self.type} receiver {self.name!r} does not take {', '.join(stray)}")
        if self.password_secret and not self.username:
            raise ValueError(f"email receiver {self.name!r} sets `password_secret` without `username`")
        return self


Duration = Annotated[str, Field(pattern=r"^\d+[smhd]$")]


class Alerting(_Model):
    """Alertmanager: receivers, the default route and its grouping. Inhibition is fixed: a critical alert
    silences the warning of the same alert on the same cluster, and a node that is down silences its GPU alerts."""

    receivers: tuple[AlertReceiver, ...] = ()
    """Receivers. Default: none (alerts are only shown in Alertmanager and Grafana)."""
    default_receiver: Name | None = None
    """Receiver of the root route: it hears what no receiver's route took (every receiver hears the alerts of
    its `severities`, all when it names none). Default: the first receiver, else Alertmanager's `null`."""
    group_by: tuple[AlertLabel, ...] = ("alertname", "cluster", "namespace")
    """Labels that group alerts into one notification. Default: alertname, cluster, namespace."""
    group_wait: Duration = "30s"
    """Wait before the first notification of a new group. Default: 30s."""
    group_interval: Duration = "5m"
    """Wait before notifying about new alerts of a group already notified. Default: 5m."""
    repeat_interval: Duration = "4h"
    """Resend a still-firing alert after this long. Default: 4h."""

    @model_validator(mode="after")
    def _names(self):
        names = [r.name for r in self.receivers]
        if len(set(names)) != len(names) or "null" in names:
            raise ValueError("receiver names must be unique and not `null`")
        if self.default_receiver is not None and self.default_receiver not in names:
            raise ValueError(f"default_receiver {self.default_receiver!r} is not a receiver; "
                             f"receivers: {', '.join(names) or 'none'}")
        return self

    def default(self) -> str | None:
        if self.default_receiver:
            return self.default_receiver
        return self.receivers[0].name if self.receivers else None


class Monitoring(_Model):
    """The monitoring stack on every cluster."""

    enabled: StrictBool = True
    """Install kube-prometheus-stack, DCGM exporter, alerts and dashboards. Default: true."""
    retention: Annotated[str, _fits(validation.prometheus_retention)] = "15d"
    """Prometheus retention. Default: 15d."""
    storage_size_gb: Annotated[StrictInt, Field(ge=1, le=10000)] = 50
    """Prometheus volume size on an encrypted storage class. Default: 50."""
    gpu_low_utilisation_percent: Annotated[StrictInt, Field(ge=1, le=100)] = 20
    """Alert when allocated GPUs stay below this utilisation for 30 minutes. Default: 20."""
    alerting: Alerting = Alerting()
    """Alertmanager receivers and routing. Default: no receivers."""


class Team(_Model):
    """A tenant: one namespace with its quotas."""

    name: Name
    """Team name; also its namespace."""
    gpu_quota: Annotated[StrictInt, Field(ge=0, le=100_000)] = 8
    """GPUs the team may request in total. Default: 8."""
    cpu_quota: Annotated[StrictInt, Field(ge=1, le=10_000_000)] = 64
    """CPU cores the team may request. Default: 64."""
    memory_quota_gi: Annotated[StrictInt, Field(ge=1, le=100_000_000)] = 256
    """Memory (GiB) the team may request. Default: 256."""
    pod_security: Literal["restricted", "baseline"] = "restricted"
    """Pod Security Admission level enforced. Default: restricted."""
    priority: Literal["critical", "standard", "preemptible"] = "standard"
    """Training tier: its PriorityClass, which Kueue also orders the team's queue by. Default: standard."""


class Workload(_Model):
    """The bundled training workload and the tenants that run it."""

    image: Annotated[str, _fits(validation.image_reference)] = "sahab/workload:0.1.0"
    """Training image; push it to an in-country registry and name it here. Default: sahab/workload:0.1.0."""
    teams: tuple[Team, ...] = (Team(name="ml-training"),)
    """Tenants. Default: one team, ml-training."""
    steps: Annotated[StrictInt, Field(ge=1, le=1_000_000_000)] = 1000
    """Training steps per run. Default: 1000."""
    checkpoint_every: Annotated[StrictInt, Field(ge=1, le=1_000_000_000)] = 100
    """Steps between checkpoints. Default: 100."""
    validate_nodes: StrictBool = True
    """Benchmark each node against its hardware class before training. Default: true."""
    model: Literal["auto", "tiny", "small", "medium", "large"] = "auto"
    """Model preset (workloads/train/presets.py): auto picks the one of each node's GPU class (large on 80 GB
    parts, medium on L40S and 40 GB A100s, small on T4/A10G, tiny on CPUs). Default: auto."""
    batch_size: Annotated[StrictInt, Field(ge=1, le=4096)] | None = None
    """Sequences per GPU (per worker) and micro-batch. Default: the preset's."""
    enabled: StrictBool = False
    """Launch training Jobs on the pools. Default: false (platform only)."""
    team: str | None = None
    """Team whose namespace runs the training Jobs. Default: the first team."""


class Burst(_Model):
    """Burst: training queued on an on-prem manager cluster runs on cloud worker clusters (Kueue MultiKueue).

    The manager gets a `<team>-burst` queue per team whose admission check hands each admitted Job to the
    first worker whose own `<team>-burst` queue admits it onto this stack's scale-from-zero pools."""

    manager: str
    """The on-prem cluster that queues (the owning stack's, taken with `stack_reference`). Required."""
    workers: tuple[str, ...]
    """EKS/AKS clusters that run dispatched Jobs; UAE regions only. Required (at least one)."""
    nodes_per_job: Annotated[int, Field(ge=1, le=64)] = 2
    """Nodes each burst training Job spans (one pod per node). Default: 2."""


class FleetConfig(_Model):
    """Everything one stack builds."""

    name: Name = "sahab"
    """Prefix of every resource name. Default: sahab."""
    environment: Literal["dev", "prod", "burst", "smb"]
    """Which kind of stack this is."""
    residency: Residency = Residency()
    """Where data may live. Default: the three UAE regions, sites in the UAE."""
    clouds: Clouds = Clouds()
    """Cloud accounts. Default: none (on-prem only)."""
    sites: tuple[Site, ...] = ()
    """On-prem data centres. Default: none."""
    clusters: tuple[Cluster, ...] = ()
    """Kubernetes clusters. Default: none."""
    node_pools: tuple[NodePool, ...] = ()
    """Node pools across all clusters. Default: none."""
    storage: Storage = Storage()
    """Buckets and keys. Default: no buckets."""
    monitoring: Monitoring = Monitoring()
    """Monitoring on every cluster. Default: on, 15d retention."""
    workload: Workload = Workload()
    """Tenants and the training workload. Default: one team, training off."""
    burst: Burst | None = None
    """Burst stacks: dispatch queued training from an on-prem manager to cloud workers. Default: unset."""
    registries: Registries = Registries()
    """The in-country registry per cluster kind (components.registry_config). Default: none (upstreams)."""
    deployer: Deployer | None = None
    """Where `pulumi up` runs (components.hybrid_config). Default: a machine on the first site with links."""

    # Lookups the components use; validation guarantees the names resolve.
    def cluster(self, name: str) -> Cluster:
        return next(c for c in self.clusters if c.name == name)

    def site(self, name: str) -> Site:
        return next(s for s in self.sites if s.name == name)

    def pools_of(self, cluster: str) -> tuple[NodePool, ...]:
        return tuple(p for p in self.node_pools if p.cluster == cluster)

    def cloud_of(self, cluster: Cluster) -> str:
        return {"eks": "aws", "aks": "azure", "onprem": "onprem"}[cluster.kind]

    def region_of(self, cluster: Cluster) -> str:
        if cluster.location:
            return cluster.location
        if cluster.kind == "eks":
            return self.clouds.aws.region
        if cluster.kind == "aks":
            return self.clouds.azure.location
        return self.site(cluster.site).emirate if cluster.site else "onprem"


def _check_cidr(value: str) -> str:
    problem = validation.canonical_cidr(value)
    if problem:
        raise ValueError(f"{validation.shown(value)} is not allowed; allowed: {problem}")
    net = ipaddress.ip_network(value)
    if net.version != 4 or not 16 <= net.prefixlen <= 24:
        raise ValueError(f"{value!r}: allowed: an IPv4 block from /16 to /24")
    # Team pods may reach this range (the storage endpoints live in it): never a public one.
    problem = egress.public_problem(value)
    if problem:
        raise ValueError(problem)
    return value


# ---------------------------------------------------------------------------------------------------------
# Parsing and cross-field rules


def config_path(loc: Iterable[Any], root: str = ROOT) -> str:
    path = root
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(part)):
            path += f".{part}"
        else:  # a key a user mistyped may hold anything, newlines included: quote it
            path += f"[{json.dumps(str(part))}]"
    return path


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model that holds the unknown key at `loc` (for the error message)."""
    model: Any = FleetConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        model = _model_in(field.annotation)
        if model is None:
            return []
    return list(model.model_fields)


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _from_validation_error(err: ValidationError) -> ConfigError:
    first = err.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        allowed = ", ".join(_allowed_keys(loc))
        return ConfigError(config_path(loc), f"unknown key; allowed: {allowed}")
    if first["type"] == "missing":
        return ConfigError(config_path(loc), "required but missing")
    if first["type"] == "value_error":  # Sahab's own checks show the value themselves
        return ConfigError(config_path(loc), first["msg"].removeprefix("Value error, "))
    return ConfigError(config_path(loc), f"{first['msg']} (got {validation.shown(first.get('input'))})")


def parse_fleet(data: Any) -> FleetConfig:
    """Validate a `sahab:fleet` value; raises ConfigError naming the config path of the first problem."""
    if not isinstance(data, Mapping):
        raise ConfigError(ROOT, f"must be a mapping of fleet settings, got {type(data).__name__}")
    try:
        fleet = FleetConfig.model_validate(dict(data))
    except ValidationError as err:
        raise _from_validation_error(err) from None
    return _resolve(fleet)


def _unique(items: Iterable[Any], what: str, path: str) -> None:
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.name in seen:
            raise ConfigError(f"{path}[{i}].name", f"duplicate {what} name {item.name!r}; names must be unique")
        seen.add(item.name)


def _resolve(fleet: FleetConfig) -> FleetConfig:
    """Cross-field rules, then fill in derived defaults (instance types)."""
    allowed = fleet.residency.allowed_regions
    aws, azure = fleet.clouds.aws, fleet.clouds.azure

    def in_residency(region: str, path: str) -> None:
        if region not in allowed:
            raise ConfigError(path, f"{region!r} is outside the residency list; allowed: {', '.join(allowed)}")

    if aws:
        in_residency(aws.region, f"{ROOT}.clouds.aws.region")
    if azure:
        in_residency(azure.location, f"{ROOT}.clouds.azure.location")
    check_registries(fleet.registries, allowed, aws.account_id if aws else None, azure.location if azure else None,
                     ROOT)

    _unique(fleet.sites, "site", f"{ROOT}.sites")
    for i, site in enumerate(fleet.sites):
        if site.country not in fleet.residency.allowed_countries:
            raise ConfigError(f"{ROOT}.sites[{i}].country", f"{site.country!r} is outside the residency list; "
                              f"allowed: {', '.join(fleet.residency.allowed_countries)}")
        _unique(site.hosts, "host", f"{ROOT}.sites[{i}].hosts")
        _inside_node_networks(site, f"{ROOT}.sites[{i}]")
        recorded = [bool(h.ssh_host_keys) for h in site.hosts]
        if any(recorded) and not all(recorded):
            j = recorded.index(False)
            raise ConfigError(f"{ROOT}.sites[{i}].hosts[{j}].ssh_host_keys", "missing while other hosts of the site "
                              "record theirs: Ansible then trusts only recorded keys; record every host's "
                              "(sahab init --accept-new-host-keys) or none")
    _unique_addresses(fleet)

    _unique(fleet.clusters, "cluster", f"{ROOT}.clusters")
    clusters_resolved = []
    for i, cluster in enumerate(fleet.clusters):
        path = f"{ROOT}.clusters[{i}]"
        if cluster.kind == "eks" and aws is None:
            raise ConfigError(f"{path}.kind", "an eks cluster needs clouds.aws to be set")
        if cluster.kind == "aks" and azure is None:
            raise ConfigError(f"{path}.kind", "an aks cluster needs clouds.azure to be set")
        if cluster.location is not None:
            if cluster.kind == "onprem":
                raise ConfigError(f"{path}.location", "only eks/aks clusters take a location")
            in_residency(cluster.location, f"{path}.location")
        if cluster.kind == "onprem" and cluster.stack_reference:
            if cluster.site or cluster.control_plane_hosts:
                raise ConfigError(f"{path}.site", "a cluster taken from another stack takes no site or hosts here")
            clusters_resolved.append(cluster)
        elif cluster.kind == "onprem":
            sites = [s.name for s in fleet.sites]
            if cluster.site not in sites:
                raise ConfigError(f"{path}.site", f"{cluster.site!r} is not a site; allowed: {', '.join(sites)}")
            hosts = [h.name for h in fleet.site(cluster.site).hosts]
            if not cluster.control_plane_hosts:
                raise ConfigError(f"{path}.control_plane_hosts", "an onprem cluster needs at least one host")
            for j, host in enumerate(cluster.control_plane_hosts):
                if host not in hosts:
                    raise ConfigError(f"{path}.control_plane_hosts[{j}]",
                                      f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
            clusters_resolved.append(_resolve_control_plane(fleet, cluster, path))
        elif (cluster.site or cluster.control_plane_hosts or cluster.control_plane_vip
              or cluster.schedule_on_control_plane is not None):
            raise ConfigError(f"{path}.site", "only onprem clusters take a site, control_plane_hosts, "
                              "control_plane_vip and schedule_on_control_plane")
        else:
            clusters_resolved.append(cluster)
        _check_public_endpoint(cluster, path)
        _check_region_access(fleet, cluster, path)
    _check_aks_per_vnet(fleet)
    fleet = fleet.model_copy(update={"clusters": tuple(clusters_resolved)})

    _unique(fleet.node_pools, "node pool", f"{ROOT}.node_pools")
    clusters = [c.name for c in fleet.clusters]
    pools = []
    for i, pool in enumerate(fleet.node_pools):
        path = f"{ROOT}.node_pools[{i}]"
        if pool.cluster not in clusters:
            raise ConfigError(f"{path}.cluster", f"{pool.cluster!r} is not a cluster; allowed: {', '.join(clusters)}")
        if not pool.min_size <= pool.size <= pool.max_size:
            field = "desired_size" if pool.desired_size is not None else "min_size"
            raise ConfigError(f"{path}.{field}", f"sizes must satisfy min_size <= desired_size <= max_size "
                              f"(got {pool.min_size} <= {pool.size} <= {pool.max_size})")
        if not pool.is_gpu and (pool.mig_strategy != "none" or pool.time_slicing_replicas or pool.gpus_per_node):
            raise ConfigError(f"{path}.accelerator", "MIG, time-slicing and gpus_per_node apply to GPU pools only")
        _check_labels_and_taints(pool, path)
        cluster = fleet.cluster(pool.cluster)
        _check_gpu_sharing(pool, path)
        if cluster.kind == "onprem" and cluster.stack_reference:
            raise ConfigError(f"{path}.cluster", f"{pool.cluster!r} comes from another stack; on-prem pools "
                              "are added by the stack that owns their site")
        if cluster.kind == "onprem":
            pools.append(_resolve_onprem_pool(fleet, cluster, pool, path))
        else:
            pools.append(_resolve_cloud_pool(fleet, cluster, pool, path))

    _unique(fleet.storage.buckets, "bucket", f"{ROOT}.storage.buckets")
    for i, bucket in enumerate(fleet.storage.buckets):
        path = f"{ROOT}.storage.buckets[{i}]"
        if getattr(fleet.clouds, bucket.cloud) is None:
            raise ConfigError(f"{path}.cloud", f"a {bucket.cloud} bucket needs clouds.{bucket.cloud} to be set")
        if bucket.replicate_to is not None:
            if bucket.cloud != "aws":
                raise ConfigError(f"{path}.replicate_to", "replication applies to aws buckets; "
                                  "use geo_redundant for azure")
            in_residency(bucket.replicate_to, f"{path}.replicate_to")
        if bucket.geo_redundant and bucket.cloud != "azure":
            raise ConfigError(f"{path}.geo_redundant", "geo_redundant applies to azure buckets only")
    _check_pool_hosts(fleet)
    check_hybrid(fleet, ROOT)
    _check_teams(fleet.workload)
    _check_store_teams(fleet)
    _check_cloud_names(fleet)
    teams = [t.name for t in fleet.workload.teams]
    if fleet.workload.team is not None and fleet.workload.team not in teams:
        raise ConfigError(f"{ROOT}.workload.team",
                          f"{fleet.workload.team!r} is not a team; allowed: {', '.join(teams)}")
    if fleet.workload.enabled:
        for i, cluster in enumerate(fleet.clusters):
            if validation.older_than(cluster.kubernetes_version, validation.TRAINING_MIN_KUBERNETES):
                raise ConfigError(f"{ROOT}.clusters[{i}].kubernetes_version",
                                  f"{cluster.kubernetes_version} cannot run the workload's training Jobs (their "
                                  f"successPolicy needs {validation.TRAINING_MIN_KUBERNETES} or later); allowed: "
                                  f"{validation.TRAINING_MIN_KUBERNETES} or later, or workload.enabled: false")
    resolved = _place_zones(fleet.model_copy(update={"node_pools": tuple(pools)}))
    for i, pool in enumerate(resolved.node_pools):
        _check_worker_gpus(pool, f"{ROOT}.node_pools[{i}]")
    if fleet.burst is not None:
        _check_burst(resolved)
    return resolved


def _check_gpu_sharing(pool: NodePool, path: str) -> None:
    """Settings the NVIDIA device plugin cannot schedule: a time-sliced GPU is handed out one slice per pod
    (failRequestsGreaterThanOne), and MIG `mixed` exposes no plain `nvidia.com/gpu` to share."""
    if pool.time_slicing_replicas and pool.gpus_per_worker and pool.gpus_per_worker > 1:
        raise ConfigError(f"{path}.gpus_per_worker", f"{pool.gpus_per_worker} GPUs per worker on a time-sliced "
                          "pool: the device plugin refuses requests over one slice; allowed: 1 (or unset)")
    if pool.time_slicing_replicas and pool.mig_strategy == "mixed":
        raise ConfigError(f"{path}.time_slicing_replicas", "time-slicing shares nvidia.com/gpu, which MIG "
                          "strategy `mixed` does not offer; allowed: mig_strategy none or single")


def _check_worker_gpus(pool: NodePool, path: str) -> None:
    if pool.gpus_per_worker is not None and not pool.is_gpu:
        raise ConfigError(f"{path}.gpus_per_worker", "applies to GPU pools only")
    if pool.is_gpu and pool.worker_gpus > (pool.gpus_per_node or 1):
        raise ConfigError(f"{path}.gpus_per_worker", f"{pool.worker_gpus} GPUs per worker on nodes with "
                          f"{pool.gpus_per_node}; allowed: 1 to {pool.gpus_per_node}")


def _check_burst(fleet: FleetConfig) -> None:
    """The manager is an on-prem cluster; workers are cloud clusters in the residency regions with pools of
    this stack to scale (a worker whose region is outside the list is refused with the cluster itself)."""
    burst, path = fleet.burst, f"{ROOT}.burst"
    names = {c.name: c for c in fleet.clusters}
    if burst.manager not in names or names[burst.manager].kind != "onprem":
        onprem = [c.name for c in fleet.clusters if c.kind == "onprem"]
        raise ConfigError(f"{path}.manager", f"{burst.manager!r} is not an onprem cluster of this stack; "
                          f"allowed: {', '.join(onprem) or 'none (add the manager with stack_reference)'}")
    manager_version = names[burst.manager].kubernetes_version
    if validation.older_than(manager_version, validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES):
        index = next(i for i, c in enumerate(fleet.clusters) if c.name == burst.manager)
        raise ConfigError(f"{ROOT}.clusters[{index}].kubernetes_version",
                          f"{manager_version} cannot be the MultiKueue manager: its Job controller ignores "
                          f"spec.managedBy only from {validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES}")
    if not burst.workers:
        raise ConfigError(f"{path}.workers", "at least one eks/aks worker cluster")
    cloud = [c.name for c in fleet.clusters if c.kind in ("eks", "aks")]
    for j, worker in enumerate(burst.workers):
        if worker not in cloud:
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} is not an eks/aks cluster of this stack; "
                              f"allowed: {', '.join(cloud)}")
        if fleet.region_of(names[worker]) not in fleet.residency.allowed_regions:
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} is outside the residency list")
        if not fleet.pools_of(worker):
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} has no node pools in this stack to burst onto")
    if len(set(burst.workers)) != len(burst.workers):
        raise ConfigError(f"{path}.workers", "each worker once")


def _unique_addresses(fleet: FleetConfig) -> None:
    """One server, one entry: two hosts with one address would be one machine joined twice."""
    seen: dict[str, str] = {}
    for i, site in enumerate(fleet.sites):
        for j, host in enumerate(site.hosts):
            address = str(ipaddress.ip_address(host.address))  # one spelling per address (IPv6 forms differ)
            if address in seen:
                raise ConfigError(f"{ROOT}.sites[{i}].hosts[{j}].address",
                                  f"{host.address} is already the address of {seen[address]}; each host needs its own")
            seen[address] = f"host {host.name} of site {site.name}"


def _inside_node_networks(site: Site, path: str) -> None:
    """With node_networks set, a host outside them could not reach the others through their firewalls."""
    if not site.node_networks:
        return
    networks = [ipaddress.ip_network(n) for n in site.node_networks]
    for j, host in enumerate(site.hosts):
        if not any(ipaddress.ip_address(host.address) in n for n in networks):
            raise ConfigError(f"{path}.hosts[{j}].address", f"{host.address} is outside the site's node_networks "
                              f"({', '.join(site.node_networks)}); the other nodes' firewalls would drop it")


def _check_aks_per_vnet(fleet: FleetConfig) -> None:
    """A location's VNet holds a node subnet per AKS cluster in three quarters, private endpoints in the last
    (components.network_plan)."""
    seen: dict[str, int] = {}
    for i, cluster in enumerate(fleet.clusters):
        if cluster.kind != "aks" or cluster.stack_reference:
            continue
        location = cluster.location or fleet.clouds.azure.location
        seen[location] = seen.get(location, 0) + 1
        if seen[location] > MAX_AKS_CLUSTERS_PER_VNET:
            raise ConfigError(f"{ROOT}.clusters[{i}]", f"at most {MAX_AKS_CLUSTERS_PER_VNET} AKS clusters share the "
                              f"VNet of {location}; put this one in another allowed location or another stack")
        try:
            plan_api_server_subnets(fleet.clouds.azure.vnet_cidr, ["x"] * seen[location])
        except ValueError as err:
            raise ConfigError(f"{ROOT}.clouds.azure.vnet_cidr", str(err)) from None


def _check_region_access(fleet: FleetConfig, cluster: Cluster, path: str) -> None:
    """A cluster in a location Microsoft opens only on request says the subscription has that access."""
    region = fleet.region_of(cluster) if cluster.kind != "onprem" else None
    if cluster.region_access_granted and region not in RESTRICTED_LOCATIONS:
        raise ConfigError(f"{path}.region_access_granted", f"applies to clusters in a restricted location "
                          f"({', '.join(RESTRICTED_LOCATIONS)}); {region or 'an on-prem cluster'} is not one")
    if region in RESTRICTED_LOCATIONS and not cluster.region_access_granted and not cluster.stack_reference:
        raise ConfigError(f"{path}.region_access_granted", f"{RESTRICTED_LOCATIONS[region]}: request access for the "
                          "subscription (an Azure support request, \"Region access\"), then set "
                          "region_access_granted: true")


def _check_public_endpoint(cluster: Cluster, path: str) -> None:
    if cluster.kind == "onprem" and (cluster.public_endpoint or cluster.public_endpoint_cidrs):
        raise ConfigError(f"{path}.public_endpoint", "applies to eks and aks clusters only")
    if cluster.public_endpoint_cidrs and not cluster.public_endpoint:
        raise ConfigError(f"{path}.public_endpoint_cidrs", "only used with public_endpoint: true")
    if cluster.public_endpoint and not cluster.public_endpoint_cidrs and not cluster.stack_reference:
        raise ConfigError(f"{path}.public_endpoint_cidrs", "public_endpoint: true needs the IPv4 ranges that may "
                          "reach the API server, e.g. [203.0.113.0/24]; an endpoint open to 0.0.0.0/0 is not allowed")


def _check_labels_and_taints(pool: NodePool, path: str) -> None:
    """Node labels and taints in the grammar every target shares (kubelet flags, EKS, AKS, the Node object)."""
    for key, value in pool.labels.items():
        where = config_path(("labels", key), path)
        problem = validation.node_label_key(key)
        if problem:
            raise ConfigError(where, f"label key {validation.shown(key)} is not allowed; allowed: {problem}")
        problem = validation.label_value(value)
        if problem:
            raise ConfigError(where, f"label value {validation.shown(value)} is not allowed; allowed: {problem}")
    builtin = len(pool.taints) - len(pool.extra_taints)  # the GPU taint comes first
    seen: set[tuple[str, str]] = set()
    for j, taint in enumerate(pool.taints):
        if (taint.key, taint.effect) in seen:
            raise ConfigError(f"{path}.extra_taints[{j - builtin}].key", f"the pool already has a {taint.key} "
                              f"taint with effect {taint.effect}; Kubernetes allows one per key and effect")
        seen.add((taint.key, taint.effect))


def _check_pool_hosts(fleet: FleetConfig) -> None:
    """A server is a node of one pool, once."""
    owner: dict[str, str] = {}
    for i, pool in enumerate(fleet.node_pools):
        for j, host in enumerate(pool.hosts):
            if host in owner:
                which = "this pool" if owner[host] == pool.name else f"pool {owner[host]}"
                raise ConfigError(f"{ROOT}.node_pools[{i}].hosts[{j}]", f"host {validation.shown(host)} is "
                                  f"already in {which}; a server belongs to one pool")
            owner[host] = pool.name


def _check_store_teams(fleet: FleetConfig) -> None:
    """A site's store keys belong to teams of the fleet."""
    teams = [t.name for t in fleet.workload.teams]
    for i, site in enumerate(fleet.sites):
        for team in site.object_store.team_credentials if site.object_store else ():
            if team not in teams:
                raise ConfigError(config_path(("sites", i, "object_store", "team_credentials", team)),
                                  f"{team!r} is not a team; allowed: {', '.join(teams) or 'none'}")


def _check_teams(workload: Workload) -> None:
    path = f"{ROOT}.workload.teams"
    _unique(workload.teams, "team", path)
    for i, team in enumerate(workload.teams):
        problem = validation.team_namespace(team.name)
        if problem:
            raise ConfigError(f"{path}[{i}].name", f"{problem}; a team's name is its namespace")
    if workload.enabled and not workload.teams:
        raise ConfigError(path, "the workload is enabled but has no team to run it; add a team or set "
                          "workload.enabled: false")


def _check_cloud_names(fleet: FleetConfig) -> None:
    """Cloud names Sahab derives from several settings, at their final length. Each mirrors how the component
    names the resource (Pulumi auto-naming adds 8 characters), so the cloud never sees a name it refuses."""
    v = validation

    def limit(path: str, what: str, length: int, maximum: int, parts: str) -> None:
        if length > maximum:
            raise ConfigError(path, f"the {what} derived from {parts} would be {length} characters; the cloud "
                              f"allows {maximum}: shorten them by {length - maximum}")

    name = fleet.name
    created = [(i, c) for i, c in enumerate(fleet.clusters) if not c.stack_reference]
    # components.aws.network: a VPC, and its flow-logs role, per region with an EKS cluster this stack creates.
    for region in sorted({fleet.region_of(c) for _, c in created if c.kind == "eks"}):
        limit(f"{ROOT}.name", f"IAM role name for the {region} flow logs",
              v.autonamed(f"{name}-{region}-flow-logs-role"), v.IAM_ROLE_MAX, "the fleet name and the region")
    for i, cluster in created:
        path, base = f"{ROOT}.clusters[{i}].name", f"{name}-{cluster.name}"
        parts = "the fleet name and the cluster name"
        if cluster.kind == "eks":
            limit(path, "EKS cluster name", len(base), v.EKS_CLUSTER_MAX, parts)
            # components.aws: {base}-cluster-role, -node-role, -vpc-cni-role, -ebs-csi-role, -autoscaler-role (longest)
            limit(path, "IAM role name", v.autonamed(f"{base}-autoscaler-role"), v.IAM_ROLE_MAX, parts)
            if fleet.workload.enabled:  # components.aws.checkpoint_access: {base}-{team}-checkpoints-role
                for j, team in enumerate(fleet.workload.teams):
                    limit(f"{ROOT}.workload.teams[{j}].name", f"checkpoint IAM role name on {cluster.name}",
                          v.autonamed(f"{base}-{team.name}-checkpoints-role"), v.IAM_ROLE_MAX,
                          "the fleet, cluster and team names")
        if cluster.kind == "aks":
            limit(path, "AKS cluster name", len(base), v.AKS_CLUSTER_MAX, parts)
            limit(path, "AKS DNS prefix", len(base), v.AKS_DNS_PREFIX_MAX, parts)
    clusters = {c.name: c for c in fleet.clusters}
    for i, pool in enumerate(fleet.node_pools):
        if clusters[pool.cluster].kind == "eks":  # node_group_name_prefix=f"{pool.name}-"
            limit(f"{ROOT}.node_pools[{i}].name", "EKS node group name", len(pool.name) + 1 +
                  v.EKS_NODEGROUP_PREFIX_SUFFIX, v.EKS_NODEGROUP_MAX, "the pool name")
    aks_names: dict[tuple[str, str], str] = {}  # components.pool_plan.aks_pool_names, per cluster
    for i, pool in enumerate(fleet.node_pools):
        if clusters[pool.cluster].kind != "aks":
            continue
        path, aks = f"{ROOT}.node_pools[{i}].name", v.aks_agent_pool_name(pool.name)  # a Name always has one
        clash = aks_names.get((pool.cluster, aks)) or ("the system pool" if aks == v.AKS_SYSTEM_POOL else None)
        if clash:
            raise ConfigError(path, f"its AKS agent pool name {aks!r} is also that of {clash}; rename one of them")
        aks_names[(pool.cluster, aks)] = f"pool {pool.name}"
    for i, bucket in enumerate(fleet.storage.buckets):
        if bucket.cloud != "aws":
            continue  # Azure storage account names are hashed down to 24 characters (components.azure.plan)
        path, base, parts = f"{ROOT}.storage.buckets[{i}].name", f"{name}-{bucket.name}", "the fleet and bucket names"
        limit(path, "S3 bucket name", v.autonamed(f"{base}-bucket"), v.S3_BUCKET_MAX, parts)
        if bucket.replicate_to:
            limit(path, "replica S3 bucket name", v.autonamed(f"{base}-replica-bucket"), v.S3_BUCKET_MAX, parts)
            limit(path, "replication IAM role name", v.autonamed(f"{base}-replication-role"), v.IAM_ROLE_MAX, parts)


def _resolve_onprem_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> NodePool:
    if pool.instance_type is not None or pool.spot:
        raise ConfigError(f"{path}.instance_type", "on-prem pools take hosts, not instance_type or spot")
    if not pool.hosts:
        raise ConfigError(f"{path}.hosts", "an on-prem pool needs at least one host")
    hosts = [h.name for h in fleet.site(cluster.site).hosts]
    for j, host in enumerate(pool.hosts):
        if host not in hosts:
            raise ConfigError(f"{path}.hosts[{j}]",
                              f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
    if not cluster.schedule_on_control_plane:
        for j, host in enumerate(pool.hosts):
            if host in cluster.control_plane_hosts:
                raise ConfigError(f"{path}.hosts[{j}]", f"{host!r} runs the control plane of {cluster.name}; list it "
                                  "in a pool only with the cluster's schedule_on_control_plane: true")
    for field in ("zones", "efa"):
        if getattr(pool, field):
            raise ConfigError(f"{path}.{field}", "applies to cloud pools only")
    try:
        driver = gpu_stack.resolve("onprem", pool.gpu_driver) if pool.is_gpu else pool.gpu_driver
    except ValueError as err:
        raise ConfigError(f"{path}.gpu_driver", str(err)) from None
    n = len(pool.hosts)
    gpus = _host_gpus(fleet, fleet.site(cluster.site), pool, path)
    return pool.model_copy(update={"min_size": n, "max_size": n, "desired_size": n, "gpus_per_node": gpus,
                                   "gpu_driver": driver, "efa": False})


def _host_gpus(fleet: FleetConfig, site: Site, pool: NodePool, path: str) -> int | None:
    """The pool's GPUs per node from what its hosts declare: a GPU pool's hosts all carry its accelerator, the
    same number of them; a CPU pool's hosts carry none. A mismatch names the pool and the hosts."""
    declared = {h.name: h.gpus for h in site.hosts if h.name in pool.hosts}
    where = f"{ROOT}.sites[{fleet.sites.index(site)}].hosts[].gpus"
    if not pool.is_gpu:
        carrying = [f"{h} ({g.count} {g.accelerator})" for h, g in declared.items() if g is not None]
        if carrying:
            raise ConfigError(f"{path}.accelerator", f"pool {pool.name} is a cpu pool but its hosts "
                              f"{', '.join(carrying)} carry GPUs; allowed: the hosts' accelerator, or hosts "
                              "without GPUs")
        return None
    missing = [h for h, g in declared.items() if g is None]
    if missing:
        raise ConfigError(f"{path}.hosts", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(missing)} declare no GPUs ({where}); declare each host's "
                          f"`gpus: {{accelerator: {pool.accelerator}, count: N}}`, or make it a cpu pool")
    other = [f"{h} ({g.accelerator})" for h, g in declared.items() if g.accelerator != pool.accelerator]
    if other:
        raise ConfigError(f"{path}.accelerator", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(other)} carry other GPUs; a pool's hosts all carry its accelerator")
    counts = {h: g.count for h, g in declared.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{h} ({c})" for h, c in counts.items())
        raise ConfigError(f"{path}.hosts", f"pool {pool.name}'s hosts carry different numbers of GPUs: {listed}; "
                          "a pool's nodes are alike: split it by GPU count")
    count = next(iter(counts.values()))
    if pool.gpus_per_node is not None and pool.gpus_per_node != count:
        raise ConfigError(f"{path}.gpus_per_node", f"pool {pool.name} says {pool.gpus_per_node} GPUs per node but "
                          f"hosts {', '.join(counts)} carry {count}; allowed: {count} (or unset)")
    return count


def _resolve_control_plane(fleet: FleetConfig, cluster: Cluster, path: str) -> Cluster:
    """HA rules (1 or 3+ hosts, a VIP with 3+) and the schedule_on_control_plane default."""
    site = fleet.site(cluster.site)
    n = len(cluster.control_plane_hosts)
    if n == 2:
        raise ConfigError(f"{path}.control_plane_hosts", "2 control-plane hosts cannot keep an etcd majority when "
                          "one fails; allowed: 1, or 3 or more")
    if len(set(cluster.control_plane_hosts)) != n:
        raise ConfigError(f"{path}.control_plane_hosts", "a host is listed twice")
    vip = cluster.control_plane_vip
    if n >= 3 and vip is None:
        raise ConfigError(f"{path}.control_plane_vip", f"required with {n} control-plane hosts: an unused IP "
                          "address in their network that kube-vip moves to the live API server")
    if vip is not None:
        address = ipaddress.ip_address(vip)  # canonical (the schema checked it)
        if address.is_loopback or address.is_multicast or address.is_unspecified:
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} cannot be a virtual IP; allowed: a unicast "
                              "address in the control-plane hosts' network")
        if site.node_networks and not any(address in ipaddress.ip_network(n) for n in site.node_networks):
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} is outside site {site.name}'s node_networks "
                              f"({', '.join(site.node_networks)}); the nodes' firewalls would drop the API server")
        taken = {h.address: h.name for h in site.hosts}
        if vip in taken:
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} is the address of host {taken[vip]}; the "
                              "virtual IP must be an unused address")
    schedule = cluster.schedule_on_control_plane
    if schedule is None:
        schedule = fleet.environment == "smb" and len(site.hosts) <= 3
    elif schedule and len(site.hosts) > 3:
        raise ConfigError(f"{path}.schedule_on_control_plane", f"site {site.name} has {len(site.hosts)} hosts; "
                          "workloads may share control-plane hosts only on sites of up to 3 hosts")
    return cluster.model_copy(update={"schedule_on_control_plane": schedule})


def _resolve_cloud_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> NodePool:
    if pool.hosts:
        raise ConfigError(f"{path}.hosts", "only on-prem pools take hosts")
    cloud, region = fleet.cloud_of(cluster), fleet.region_of(cluster)
    snap = offerings.snapshot(cloud, region)
    if cloud == "aws" and snap is None:
        raise ConfigError(f"{path}.cluster", f"no EC2 offerings snapshot for {region}, so nothing says what it sells; "
                          f"write one: {offerings.REFRESH['aws'].replace('all', region).split('   #')[0]}")
    candidates = accelerators.instance_types(cloud, pool.accelerator)
    if snap is not None and candidates and not any(snap.sells(t) for t in candidates):
        raise ConfigError(f"{path}.accelerator", f"{pool.accelerator!r} is not offered in {region} "
                          f"({_what_sells(snap)}); {_regions_that_sell(fleet, cloud, candidates)}")
    instance_type = pool.instance_type or accelerators.default_instance_type(cloud, pool.accelerator, snap)
    if instance_type is None:
        raise ConfigError(f"{path}.instance_type", f"no {cloud} instance type carries {pool.accelerator!r}")
    carried = accelerators.accelerator_of_instance(cloud, instance_type)
    if carried is None:
        raise ConfigError(f"{path}.instance_type", f"{validation.shown(instance_type)} is not in the hardware "
                          f"catalog; allowed for {pool.accelerator}: {_catalog_types(cloud, pool.accelerator)}")
    if carried != pool.accelerator:
        raise ConfigError(f"{path}.instance_type",
                          f"{instance_type!r} carries {carried!r}, but the pool's accelerator is {pool.accelerator!r}")
    if snap is not None and not snap.sells(instance_type):
        sold = [t for t in candidates if snap.sells(t)]
        why = f"refused there: {snap.restricted[instance_type]}" if instance_type in snap.restricted else \
            _what_sells(snap)
        raise ConfigError(f"{path}.instance_type", f"{instance_type!r} is not offered in {region} ({why}); offered "
                          f"there for {pool.accelerator}: {_by_family(sold)}")
    if cloud == "azure" and accelerators.azure_rdma(instance_type):
        raise ConfigError(f"{path}.instance_type", f"{instance_type!r} joins nodes over InfiniBand, and Sahab does "
                          "not set up RDMA on AKS (NVIDIA Network Operator with OFED, the RDMA shared device plugin, "
                          "the GPU operator's driver.rdma, the subscription's feature registration and an IPC_LOCK "
                          "exception in the teams' pod security): multi-node training there would fall back to TCP; "
                          f"allowed for {pool.accelerator}: {_listed(_plain_azure(pool.accelerator)) or 'none'}")
    try:
        driver = gpu_stack.resolve(cluster.kind, pool.gpu_driver) if pool.is_gpu else pool.gpu_driver
    except ValueError as err:
        raise ConfigError(f"{path}.gpu_driver", str(err)) from None
    efa = _efa(cluster, pool, instance_type, path)
    gpus = pool.gpus_per_node or (accelerators.gpus_per_instance(cloud, instance_type) if pool.is_gpu else None)
    update: dict[str, Any] = {"instance_type": instance_type, "gpus_per_node": gpus, "gpu_driver": driver,
                              "efa": efa}
    if cluster.kind == "aks" and pool.spot and AKS_SPOT_TAINT not in pool.extra_taints:
        # AKS taints every spot node itself: stated here, every pod and flavor that must land there tolerates it.
        update["extra_taints"] = (*pool.extra_taints, AKS_SPOT_TAINT)
    return pool.model_copy(update=update)


def _efa(cluster: Cluster, pool: NodePool, instance_type: str, path: str) -> bool:
    """EFA on an EKS pool: on by default where the type has EFA interfaces and the pool can span nodes."""
    if cluster.kind != "eks":
        if pool.efa:
            raise ConfigError(f"{path}.efa", "EFA applies to EKS pools only")
        return False
    facts = offerings.aws_instance(instance_type)
    capable = bool(facts and facts.efa_interfaces)
    if pool.efa and not capable:
        raise ConfigError(f"{path}.efa", f"{instance_type} has no EFA interface (EC2's instance data); EFA-capable "
                          f"sizes for {pool.accelerator}: {_listed(_efa_types(pool.accelerator)) or 'none'}")
    return capable and pool.max_size > 1 if pool.efa is None else pool.efa


def _efa_types(accelerator: str) -> list[str]:
    return [t for t in accelerators.instance_types("aws", accelerator)
            if (offerings.aws_instance(t) or offerings.InstanceFacts(0, 0, 0, None, 0, 1)).efa_interfaces]


def _plain_azure(accelerator: str) -> list[str]:
    return [t for t in accelerators.instance_types("azure", accelerator) if not accelerators.azure_rdma(t)]


def _by_family(instance_types: list[str]) -> str:
    """A short list: every type when there are few, else the families with an example."""
    if len(instance_types) <= 12:
        return ", ".join(instance_types) or "none"
    families = list(dict.fromkeys(t.partition(".")[0] for t in instance_types))
    return f"sizes of {', '.join(families)} (e.g. {instance_types[min(2, len(instance_types) - 1)]})"


def _listed(items: list[str], limit: int = 12) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _what_sells(snap: offerings.Snapshot) -> str:
    api = "EC2's offerings" if snap.cloud == "aws" else "Azure's Resource SKUs"
    return f"per {api} as of {snap.data_as_of.isoformat()}"


def _regions_that_sell(fleet: FleetConfig, cloud: str, instance_types: list[str]) -> str:
    selling = offerings.regions_selling(cloud, instance_types)
    allowed = [r for r in selling if r in fleet.residency.allowed_regions]
    if allowed:
        return f"allowed regions that offer it: {', '.join(allowed)}"
    return (f"no allowed region offers it ({', '.join(fleet.residency.allowed_regions)}); regions that do: "
            f"{_listed(selling, 8) or 'none in the snapshots'}")


def _place_zones(fleet: FleetConfig) -> FleetConfig:
    """Every cloud pool's zones: where it is placed, resolved once so the plan, readiness and the network agree.
    An EKS VPC gets subnets in `az_count` zones chosen to serve its region's pools; each EKS pool uses those of
    them that sell its type (one for an EFA pool); a burst pool on another stack's cluster takes every zone that
    sells its type (its node group uses those the owning stack's VPC has)."""
    aws = fleet.clouds.aws
    vpc = {region: vpc_zones(fleet, region) for region in
           {fleet.region_of(c) for c in fleet.clusters if c.kind == "eks" and not c.stack_reference}} if aws else {}
    pools = []
    for i, pool in enumerate(fleet.node_pools):
        cluster, path = fleet.cluster(pool.cluster), f"{ROOT}.node_pools[{i}]"
        if cluster.kind == "onprem":
            pools.append(pool)
            continue
        region = fleet.region_of(cluster)
        zones = _pool_zones(fleet, cluster, pool, vpc.get(region), path)
        pools.append(pool.model_copy(update={"zones": zones}))
    return fleet.model_copy(update={"node_pools": tuple(pools)})


def vpc_zones(fleet: FleetConfig, region: str) -> tuple[str, ...]:
    """The zone IDs a region's VPC spans: `az_count` of them, those selling the most of its EKS pools' types
    (ties to the lower zone ID), always including a zone a pool names."""
    snap = offerings.snapshot("aws", region)
    count = fleet.clouds.aws.az_count
    pools = [p for p in fleet.node_pools if fleet.cluster(p.cluster).kind == "eks"
             and not fleet.cluster(p.cluster).stack_reference and fleet.region_of(fleet.cluster(p.cluster)) == region]
    named = sorted({z for p in pools for z in p.zones})
    if len(named) > count:
        raise ConfigError(f"{ROOT}.clouds.aws.az_count", f"the pools of {region} name zones {', '.join(named)}; the "
                          f"VPC spans {count}; allowed: at least {len(named)} (at most {len(snap.zones)})")
    served = {z: sum(z in snap.zones_selling([p.instance_type]) for p in pools) for z in snap.zones}
    ranked = named + [z for z in sorted(snap.zones, key=lambda z: (-served[z], z)) if z not in named]
    return tuple(sorted(ranked[:count]))


def _pool_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, vpc: tuple[str, ...] | None,
                path: str) -> tuple[str, ...]:
    region = fleet.region_of(cluster)
    snap = offerings.snapshot(fleet.cloud_of(cluster), region)
    if cluster.kind == "aks":
        return _aks_zones(fleet, cluster, pool, snap, path)
    offered = snap.zones_selling([pool.instance_type])
    unknown = [z for z in pool.zones if z not in snap.zones]
    if unknown:
        raise ConfigError(f"{path}.zones", f"{', '.join(unknown)} is not a zone ID of {region}; its zones: "
                          f"{', '.join(snap.zones)}")
    if pool.efa and len(pool.zones) > 1:
        raise ConfigError(f"{path}.zones", "an EFA pool runs in one zone (its cluster placement group's); name one "
                          f"of {', '.join(offered)}, or set efa: false")
    if pool.zones:
        wanted = pool.zones
    else:
        wanted = tuple(z for z in offered if vpc is None or z in vpc)
        if not wanted:
            wanted = tuple(vpc or ())
    missing = [z for z in wanted if z not in offered]
    if missing or not wanted:
        raise ConfigError(f"{path}.zones" if pool.zones else f"{path}.instance_type",
                          f"node pool {pool.name}: {pool.instance_type} is offered in {region} zones "
                          f"{', '.join(offered) or 'none'}; zones wanted: {', '.join(wanted) or 'none'} "
                          f"({_what_sells(snap)})")
    if vpc is not None and any(z not in vpc for z in wanted):
        outside = [z for z in wanted if z not in vpc]
        raise ConfigError(f"{path}.zones", f"node pool {pool.name} wants {', '.join(outside)}, outside the VPC's "
                          f"zones {', '.join(vpc)} (raise clouds.aws.az_count)")
    return wanted[:1] if pool.efa else wanted


def _aks_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, snap: offerings.Snapshot | None,
               path: str) -> tuple[str, ...]:
    from sahab.components.azure.plan import ZONAL_LOCATIONS

    location = fleet.region_of(cluster)
    if location not in ZONAL_LOCATIONS:
        if pool.zones:
            raise ConfigError(f"{path}.zones", f"{location} has no availability zones; allowed: none")
        return ()
    if snap is None:  # Azure's SKUs are not in the repository: placement is the pool's, or regional
        return pool.zones
    offered = snap.offered.get(pool.instance_type, ())
    missing = [z for z in pool.zones if z not in offered]
    if missing:
        raise ConfigError(f"{path}.zones", f"node pool {pool.name}: {pool.instance_type} is offered in {location} "
                          f"zones {', '.join(offered) or 'none'}; zones wanted: {', '.join(pool.zones)} "
                          f"({_what_sells(snap)})")
    return pool.zones or offered


def _catalog_types(cloud: str, accelerator: str) -> str:
    if cloud == "aws":
        types = accelerators.instance_types("aws", accelerator)
        if len(types) <= 16:
            return ", ".join(types)
        families = ", ".join(accelerators.CATALOG[accelerator].aws_families)
        return f"a size the family sells in one of the families {families}, e.g. {types[2]}"
    if accelerator == "cpu":
        return "Standard_D, Standard_E or Standard_F sizes like Standard_D8s_v5 or Standard_E16ads_v5"
    return ", ".join(accelerators.CATALOG[accelerator].azure_series)


def load_fleet_config() -> FleetConfig:
    """Read and validate `sahab:fleet` from the running stack's config."""
    import pulumi

    raw = pulumi.Config("sahab").get("fleet")
    if raw is None:
        raise ConfigError(ROOT, "missing; every stack sets its whole fleet under this key")
    try:  # structured config arrives as JSON; anything else is a plain value, refused by parse_fleet
        value = json.loads(raw)
    except ValueError:
        value = raw
    return parse_fleet(value)


def secret_config(name: str):
    """A secret stack setting (`sahab:<name>`) as a Pulumi secret Output, or None when the stack lacks it."""
    import pulumi

    return pulumi.Config("sahab").get_secret(name)

