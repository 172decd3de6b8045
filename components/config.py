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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from components import catalog
from components.errors import ConfigError

ROOT = "sahab:fleet"

Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$")]  # a lower-case DNS label
Accelerator = Literal["h100", "h200", "a100", "l40s", "a10g", "t4", "cpu"]
Emirate = Literal["abu-dhabi", "dubai", "sharjah", "ajman", "umm-al-quwain", "ras-al-khaimah", "fujairah"]
LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, use_attribute_docstrings=True)


class Residency(_Model):
    """Where data may live."""

    allowed_regions: tuple[str, ...] = ("me-central-1", "uaenorth", "uaecentral")
    """Cloud regions (AWS) and locations (Azure) resources may use. Default: the three UAE regions."""
    allowed_countries: tuple[str, ...] = ("AE",)
    """ISO 3166 country codes an on-prem site may be in. Default: the UAE only."""


class AwsCloud(_Model):
    """The AWS side of the fleet."""

    region: str = "me-central-1"
    """Region for every AWS resource (pinned through an explicit provider). Default: me-central-1 (UAE)."""
    account_id: Annotated[str, Field(pattern=r"^\d{12}$")] | None = None
    """Expected account; when set the provider refuses to run against any other. Default: unset."""
    vpc_cidr: str = "10.40.0.0/16"
    """VPC address range, split evenly across the availability zones. Default: 10.40.0.0/16."""
    az_count: Annotated[int, Field(ge=2, le=3)] = 3
    """Availability zones to spread private subnets over. Default: 3 (all of me-central-1)."""

    _cidr = field_validator("vpc_cidr")(lambda v: _check_cidr(v))


class AzureCloud(_Model):
    """The Azure side of the fleet."""

    location: str = "uaenorth"
    """Location for every Azure resource. Default: uaenorth (uaecentral selectable)."""
    subscription_id: Annotated[str, Field(pattern=r"^[0-9a-fA-F-]{36}$")] | None = None
    """Subscription to deploy into. Default: the provider's configured subscription."""
    vnet_cidr: str = "10.50.0.0/16"
    """VNet address range. Default: 10.50.0.0/16."""
    control_plane_log_retention_days: Annotated[int, Field(ge=30, le=730)] = 365
    """Days AKS control-plane logs (API server, audit, controller manager, scheduler, autoscaler, guard) are kept
    in the cluster's Log Analytics workspace. Default: 365."""
    control_plane_logs_cmk_gb_per_day: Annotated[int, Field(ge=100)] | None = None
    """Encrypt those logs with the fleet's Key Vault key: Azure allows that only through a dedicated Log Analytics
    cluster, which commits to this many GB/day (at least 100). Default: unset (Microsoft-managed keys)."""

    _cidr = field_validator("vnet_cidr")(lambda v: _check_cidr(v))


class Clouds(_Model):
    """The cloud accounts the fleet uses; on-prem-only fleets set none."""

    aws: AwsCloud | None = None
    """AWS settings; absent means no AWS resources. Default: absent."""
    azure: AzureCloud | None = None
    """Azure settings; absent means no Azure resources. Default: absent."""


class Host(_Model):
    """One on-prem server reachable over SSH."""

    name: Name
    """Inventory hostname."""
    address: str
    """IP address Ansible connects to."""
    port: Annotated[int, Field(ge=1, le=65535)] = 22
    """SSH port. Default: 22."""

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        try:
            ipaddress.ip_address(v)
        except ValueError:
            raise ValueError(f"{v!r} is not an IP address") from None
        return v


class Site(_Model):
    """An on-prem data centre."""

    name: Name
    """Unique site name."""
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] = "AE"
    """ISO 3166 country code of the building. Default: AE."""
    emirate: Emirate
    """Emirate the building is in."""
    city: str
    """City, for the residency evidence."""
    hosts: tuple[Host, ...] = ()
    """Servers at this site. Default: none."""
    ssh_user: str = "sahab"
    """User Ansible logs in as (needs sudo). Default: sahab."""
    ssh_private_key_secret: str = "onpremSshPrivateKey"
    """Name of the secret config key (`sahab:<name>`, set with `pulumi config set --secret`) holding the SSH
    private key. When unset in the stack, Ansible uses the operator's ssh-agent. Default: onpremSshPrivateKey."""
    airgapped: bool = False
    """Install only from the hosts' configured package sources (a site mirror). Default: false."""


class Taint(_Model):
    """A Kubernetes node taint."""

    key: str
    """Taint key, e.g. nvidia.com/gpu."""
    value: str = ""
    """Taint value. Default: empty."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    """What the taint does to pods that do not tolerate it. Default: NoSchedule."""


class Cluster(_Model):
    """A Kubernetes cluster: EKS, AKS, or kubeadm on an on-prem site."""

    name: Name
    """Unique cluster name."""
    kind: Literal["eks", "aks", "onprem"]
    """Where it runs: EKS, AKS, or kubeadm on an on-prem site."""
    kubernetes_version: Annotated[str, Field(pattern=r"^1\.\d{2}$")] = "1.31"
    """Kubernetes minor version. Default: 1.31."""
    location: str | None = None
    """Region/location override for this cluster (e.g. uaecentral). Default: the cloud's."""
    site: str | None = None
    """On-prem only: the site whose hosts form the cluster. Default: unset."""
    control_plane_hosts: tuple[str, ...] = ()
    """On-prem only: hosts that run the control plane. Default: none."""
    public_endpoint: bool = False
    """Expose the API server publicly. Default: false (private endpoint only)."""
    stack_reference: str | None = None
    """Burst stacks: take this cluster from another stack (e.g. `org/sahab/prod`) instead of creating it.
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
    hosts: tuple[str, ...] = ()
    """On-prem only: the site hosts in this pool. Default: none (cloud pools)."""
    min_size: Annotated[int, Field(ge=0, le=1000)] = 1
    """Autoscaling floor. Default: 1 (burst pools use 0)."""
    max_size: Annotated[int, Field(ge=0, le=1000)] = 1
    """Autoscaling ceiling. Default: 1."""
    desired_size: Annotated[int, Field(ge=0, le=1000)] | None = None
    """Initial size. Default: min_size."""
    spot: bool = False
    """Use spot/low-priority capacity. Default: false."""
    disk_size_gb: Annotated[int, Field(ge=20, le=16384)] = 200
    """Encrypted root volume size. Default: 200."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Extra node labels. Default: none (pool and accelerator labels are always set)."""
    extra_taints: tuple[Taint, ...] = ()
    """Taints beyond the GPU taint every GPU pool carries. Default: none."""
    mig_strategy: Literal["none", "single", "mixed"] = "none"
    """NVIDIA MIG strategy for the device plugin. Default: none."""
    time_slicing_replicas: Annotated[int, Field(ge=2, le=48)] | None = None
    """Share each GPU between this many pods by time-slicing. Default: unset (no sharing)."""
    gpus_per_node: Annotated[int, Field(ge=1, le=16)] | None = None
    """GPUs on each node. Default: the instance type's count from the catalog; 1 on on-prem GPU hosts."""
    gpu_driver: Literal["operator", "preinstalled"] = "operator"
    """Who installs NVIDIA drivers on cloud nodes: the GPU operator, or the node image. Default: operator."""

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        for key in v:
            if not LABEL_KEY.match(key):
                raise ValueError(f"label key {key!r} is not a valid Kubernetes label key")
        return v

    @property
    def is_gpu(self) -> bool:
        return catalog.CATALOG[self.accelerator].is_gpu

    @property
    def size(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size

    @property
    def node_labels(self) -> dict[str, str]:
        """Labels every node of the pool carries: the pool, its accelerator, and on GPUs an NVIDIA marker and
        the device plugin configuration (MIG strategy, time-slicing) the node selects."""
        labels = {catalog.LABEL_POOL: self.name, catalog.LABEL_ACCELERATOR: self.accelerator}
        if self.is_gpu:
            labels[catalog.LABEL_NVIDIA_PRESENT] = "true"
            labels[catalog.LABEL_DEVICE_PLUGIN_CONFIG] = catalog.device_plugin_config_name(
                self.mig_strategy, self.time_slicing_replicas)
        return {**labels, **self.labels}

    @property
    def taints(self) -> tuple[Taint, ...]:
        """GPU pools are tainted so only pods that ask for GPUs land there."""
        gpu = (Taint(key=catalog.GPU_TAINT_KEY, value=catalog.GPU_TAINT_VALUE, effect="NoSchedule"),)
        return (gpu if self.is_gpu else ()) + self.extra_taints


class Bucket(_Model):
    """Object storage for datasets and checkpoints, pinned to the fleet's region."""

    name: Name
    """Unique bucket name (prefixed with the fleet name)."""
    cloud: Literal["aws", "azure"]
    """Which cloud holds it: an S3 bucket or an Azure storage account."""
    purpose: Literal["datasets", "checkpoints", "artifacts", "logs"] = "datasets"
    """What it holds (a tag and the name suffix). Default: datasets."""
    versioning: bool = True
    """Keep object versions. Default: true."""
    geo_redundant: bool = False
    """Azure only: geo-redundant storage (UAE North pairs with UAE Central). Default: false."""
    replicate_to: str | None = None
    """AWS only: replicate objects to this region (must be in the residency list). Default: none."""
    noncurrent_version_days: Annotated[int, Field(ge=1)] = 90
    """Expire old versions after this many days. Default: 90."""


class KeyPolicy(_Model):
    """Settings of every customer-managed key."""

    rotation_period_days: Annotated[int, Field(ge=90, le=2560)] = 365
    """KMS key rotation period. Default: 365."""
    deletion_window_days: Annotated[int, Field(ge=7, le=30)] = 30
    """Waiting period before a deleted key is gone. Default: 30 (the maximum)."""


class Storage(_Model):
    """Object storage and the customer-managed keys that encrypt it."""

    buckets: tuple[Bucket, ...] = ()
    """Buckets/storage accounts. Default: none."""
    keys: KeyPolicy = KeyPolicy()
    """Customer-managed key settings for every key Sahab creates. Default: rotation yearly, 30-day deletion."""


SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]
"""The name of a secret stack setting `sahab:<name>` (set with `pulumi config set --secret <name>`)."""
Email = Annotated[str, Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")]
HttpsUrl = Annotated[str, Field(pattern=r"^https://[^\s/$.?#][^\s]*$")]
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
    username: str | None = None
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
    channel: str | None = None
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
    default_receiver: str | None = None
    """Receiver of the root route: it hears what no receiver's route took (every receiver hears the alerts of
    its `severities`, all when it names none). Default: the first receiver, else Alertmanager's `null`."""
    group_by: tuple[str, ...] = ("alertname", "cluster", "namespace")
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

    enabled: bool = True
    """Install kube-prometheus-stack, DCGM exporter, alerts and dashboards. Default: true."""
    retention: Annotated[str, Field(pattern=r"^\d+[hdw]$")] = "15d"
    """Prometheus retention. Default: 15d."""
    storage_size_gb: Annotated[int, Field(ge=1, le=10000)] = 50
    """Prometheus volume size on an encrypted storage class. Default: 50."""
    gpu_low_utilisation_percent: Annotated[int, Field(ge=1, le=100)] = 20
    """Alert when allocated GPUs stay below this utilisation for 30 minutes. Default: 20."""
    alerting: Alerting = Alerting()
    """Alertmanager receivers and routing. Default: no receivers."""


class Team(_Model):
    """A tenant: one namespace with its quotas."""

    name: Name
    """Team name; also its namespace."""
    gpu_quota: Annotated[int, Field(ge=0)] = 8
    """GPUs the team may request in total. Default: 8."""
    cpu_quota: Annotated[int, Field(ge=1)] = 64
    """CPU cores the team may request. Default: 64."""
    memory_quota_gi: Annotated[int, Field(ge=1)] = 256
    """Memory (GiB) the team may request. Default: 256."""
    pod_security: Literal["restricted", "baseline"] = "restricted"
    """Pod Security Admission level enforced. Default: restricted."""
    priority: Literal["critical", "standard", "preemptible"] = "standard"
    """Training tier: its PriorityClass. Default: standard."""


class Workload(_Model):
    """The bundled training workload and the tenants that run it."""

    image: str = "sahab/workload:0.1.0"
    """Training image; push it to an in-country registry and name it here. Default: sahab/workload:0.1.0."""
    teams: tuple[Team, ...] = (Team(name="ml-training"),)
    """Tenants. Default: one team, ml-training."""
    steps: Annotated[int, Field(ge=1)] = 1000
    """Training steps per run. Default: 1000."""
    checkpoint_every: Annotated[int, Field(ge=1)] = 100
    """Steps between checkpoints. Default: 100."""
    validate_nodes: bool = True
    """Benchmark each node against its hardware class before training. Default: true."""
    enabled: bool = False
    """Launch training Jobs on the pools. Default: false (platform only)."""
    team: str | None = None
    """Team whose namespace runs the training Jobs. Default: the first team."""


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
        return self.site(cluster.site).emirate


def _check_cidr(value: str) -> str:
    try:
        net = ipaddress.ip_network(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a CIDR block like 10.40.0.0/16") from None
    if net.version != 4 or not 16 <= net.prefixlen <= 24:
        raise ValueError(f"{value!r}: allowed: an IPv4 block from /16 to /24")
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
    msg = first["msg"].removeprefix("Value error, ")
    return ConfigError(config_path(loc), f"{msg} (got {first.get('input')!r})")


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

    _unique(fleet.sites, "site", f"{ROOT}.sites")
    for i, site in enumerate(fleet.sites):
        if site.country not in fleet.residency.allowed_countries:
            raise ConfigError(f"{ROOT}.sites[{i}].country", f"{site.country!r} is outside the residency list; "
                              f"allowed: {', '.join(fleet.residency.allowed_countries)}")
        _unique(site.hosts, "host", f"{ROOT}.sites[{i}].hosts")

    _unique(fleet.clusters, "cluster", f"{ROOT}.clusters")
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
        if cluster.kind == "onprem":
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
        elif cluster.site or cluster.control_plane_hosts:
            raise ConfigError(f"{path}.site", "only onprem clusters take a site and control_plane_hosts")

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
        cluster = fleet.cluster(pool.cluster)
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
    teams = [t.name for t in fleet.workload.teams]
    if fleet.workload.team is not None and fleet.workload.team not in teams:
        raise ConfigError(f"{ROOT}.workload.team",
                          f"{fleet.workload.team!r} is not a team; allowed: {', '.join(teams)}")
    return fleet.model_copy(update={"node_pools": tuple(pools)})


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
    n = len(pool.hosts)
    gpus = pool.gpus_per_node or (1 if pool.is_gpu else None)
    return pool.model_copy(update={"min_size": n, "max_size": n, "desired_size": n, "gpus_per_node": gpus})


def _resolve_cloud_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> NodePool:
    if pool.hosts:
        raise ConfigError(f"{path}.hosts", "only on-prem pools take hosts")
    cloud, region = fleet.cloud_of(cluster), fleet.region_of(cluster)
    if not catalog.offered(region, pool.accelerator):
        sold = ", ".join(sorted(catalog.REGION_OFFERINGS.get(region, ())))
        raise ConfigError(f"{path}.accelerator",
                          f"{pool.accelerator!r} is not offered in {region}; allowed there: {sold}")
    instance_type = pool.instance_type or catalog.default_instance_type(cloud, pool.accelerator)
    if instance_type is None:
        raise ConfigError(f"{path}.instance_type", f"no {cloud} instance type carries {pool.accelerator!r}")
    carried = catalog.accelerator_of_instance(cloud, instance_type)
    if carried != pool.accelerator:
        what = f"carries {carried!r}" if carried else "is not in the hardware catalog"
        raise ConfigError(f"{path}.instance_type",
                          f"{instance_type!r} {what}, but the pool's accelerator is {pool.accelerator!r}")
    gpus = pool.gpus_per_node or (catalog.gpus_per_instance(cloud, instance_type) if pool.is_gpu else None)
    return pool.model_copy(update={"instance_type": instance_type, "gpus_per_node": gpus})


def load_fleet_config() -> FleetConfig:
    """Read and validate `sahab:fleet` from the running stack's config."""
    import pulumi

    value = pulumi.Config("sahab").get_object("fleet")
    if value is None:
        raise ConfigError(ROOT, "missing; every stack sets its whole fleet under this key")
    return parse_fleet(value)


def secret_config(name: str):
    """A secret stack setting (`sahab:<name>`) as a Pulumi secret Output, or None when the stack lacks it."""
    import pulumi

    return pulumi.Config("sahab").get_secret(name)

