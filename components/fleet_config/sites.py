"""On-prem sites: their servers, their object store and their links to the clouds."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictBool, StrictInt, field_validator
from sahab.components import egress, validation
from sahab.components.fleet_config.types import (
    DATA_DISK,
    MAX_HOSTS,
    PORT_IN_RANGE,
    SSH_HOST_KEY,
    Emirate,
    GpuAccelerator,
    Name,
    SecretKey,
    _fits,
    _Model,
)
from sahab.components.hybrid_config import SiteDns, SiteGateway, SiteLink, private_block


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

    endpoint: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$"), PORT_IN_RANGE]
    """The store's S3 API, https only, e.g. `https://s3.auh.example.ae` (port 443 unless it names one, 1-65535).
    Required."""
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

