"""Where the fleet's data may live, and the cloud accounts (AWS, Azure) it uses."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt, field_validator
from sahab.components import egress, validation
from sahab.components.fleet_config.types import ENTRA_OBJECT_ID, IAM_PRINCIPAL, Region, _Model

RESTRICTED_LOCATIONS = {"uaecentral": "Microsoft opens UAE Central to a subscription only on request"}


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
    account_id: Annotated[str, Field(pattern=r"^[0-9]{12}$")] | None = None
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
    control_plane_log_retention_days: Annotated[StrictInt, Field(ge=30, le=730)] = 365
    """Days AKS control-plane logs (API server, audit, controller manager, scheduler, autoscaler, guard) are kept
    in the cluster's Log Analytics workspace. Default: 365."""
    control_plane_logs_cmk_gb_per_day: Annotated[StrictInt, Field(ge=100, le=50000)] | None = None
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
