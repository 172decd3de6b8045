"""Public exposure of data, on every cloud, as one family: a store everyone may read, a database on a public
address, a data port open to the internet, an anonymous web endpoint. All mandatory.

What each rule covers (the types are in each rule's `types`/`covers`, listed in policies/README.md):

* resource policies (any input holding an IAM-style policy document: bucket, queue, topic, repository, key,
  secret, file-system, domain policies) that Allow `Principal: "*"` without a condition that pins the caller
  (source ARN/account/VPC/endpoint/IP range, principal organisation or account); an S3 bucket's public access block
  neutralises them (`blockPublicPolicy` or `restrictPublicBuckets`), as it does in AWS;
* S3 ACLs that grant everyone (`public-read`, `public-read-write`, `authenticated-read`, grants to the AllUsers or
  AuthenticatedUsers groups), unless the bucket's public access block ignores or blocks public ACLs;
* snapshots and images shared with all accounts (`sharedAccounts: all`, a launch permission for the group `all`),
  read from the SDKs' docs into the egress model (`public`);
* databases and other stores with `publiclyAccessible: true` (the same model), search domains outside a VPC;
* Azure SQL, Cosmos DB, PostgreSQL and MySQL servers and Key Vaults, whose data is sensitive by kind, with public
  network access on and not restricted by their network rules; Event Hubs and Service Bus namespaces where the
  stack reaches its services through private endpoints;
* security groups and network security groups that open a data port (databases, caches, search, queues, file
  shares) to a public range, and database firewall rules that admit the internet;
* anonymous web endpoints: S3 website hosting, Azure static websites and public blob containers, Lambda function
  URLs without authentication.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator
from typing import Any

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    describe,
    iso27001,
    items,
    known,
    lookup,
    pdpl,
    rule,
    truthy,
)
from ..egress import entry
from ..places import _unwrap
from ..residency import model_steps, walk_model_path
from .aws_s3 import BUCKET_TYPES, PUBLIC_ACCESS_TYPES, attached_to
from .egress import PRIVATE_ENDPOINT, PRIVATE_RANGES

EXPOSURE = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.3"), iso27001("A.8.20"))


def _document(value: Any) -> Any:
    value = _unwrap(value)
    if isinstance(value, str) and value.strip()[:1] == "{":
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def policy_documents(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """(input, document) for every input of the resource that holds a policy document (a `Statement`)."""
    props = _unwrap(view.props) or {}
    for key in list(props):
        value = props[key]
        if isinstance(value, str) and value in ("", None):
            continue
        if lookup(props, key) is UNKNOWN:
            if _may_hold_document(key):
                yield key, UNKNOWN
            continue
        document = _document(value)
        if isinstance(document, dict) and "Statement" in document:
            yield key, document


def _may_hold_document(key: str) -> bool:
    """Whether an input's name says it can hold a policy document (`policy`, `accessPolicies`, `policyDocument`):
    an unknown region, location, key id or ARN is not a policy, and the rules judging those name it themselves."""
    return bool(re.search(r"polic|document|statement", key, re.IGNORECASE))


# Condition keys that pin who may call or where from: a statement with one (tested positively) is not public.
# (The keys IAM Access Analyzer and S3's "is public" evaluation treat as restricting; AWS IAM User Guide,
# "AWS global condition context keys".)
PINNING_KEYS = {"aws:sourcearn", "aws:sourceaccount", "aws:sourceowner", "aws:sourcevpc", "aws:sourcevpce",
                "aws:sourceip", "aws:principalorgid", "aws:principalorgpaths", "aws:principalaccount",
                "aws:principalarn", "aws:sourceorgid", "aws:sourceorgpaths", "aws:userid", "aws:username",
                "s3:dataaccesspointaccount", "s3:dataaccesspointarn", "kms:calleraccount", "kms:viaservice",
                "aws:principalservicename"}
NEGATED = ("stringnot", "arnnot", "notipaddress")


def _everyone(principal: Any) -> bool | None:
    if principal is UNKNOWN:
        return None
    if principal == "*":
        return True
    if isinstance(principal, dict):
        aws = principal.get("AWS")
        values = aws if isinstance(aws, list) else [aws]
        return "*" in values
    return False


def _pinned(condition: Any) -> bool:
    """Whether a Condition pins the caller: a positive test of a pinning key, with no wildcard or open range."""
    condition = _unwrap(condition)
    if not isinstance(condition, dict):
        return False
    for operator, tests in condition.items():
        op = operator.lower().split(":")[-1]
        if op.startswith(NEGATED) or op.endswith("ifexists") or not isinstance(tests, dict):
            continue
        for key, values in tests.items():
            if key.lower() not in PINNING_KEYS:
                continue
            values = values if isinstance(values, list) else [values]
            if not values or any(not isinstance(v, str) or v.strip() in ("", "*") for v in values):
                continue
            if key.lower() == "aws:sourceip" and any(_open_range(v) for v in values):
                continue
            return True
    return False


def _open_range(cidr: str) -> bool:
    try:
        return ipaddress.ip_network(cidr, strict=False).prefixlen < 8
    except ValueError:
        return True


def public_statements(document: Any) -> list[str] | None:
    """The Sids (or indexes) of statements that allow everyone without pinning the caller; None when unknown."""
    if document is UNKNOWN:
        return None
    statements = document.get("Statement")
    statements = statements if isinstance(statements, list) else [statements]
    found = []
    for i, st in enumerate(statements):
        st = _unwrap(st)
        if not isinstance(st, dict) or str(st.get("Effect", "")).lower() != "allow":
            continue
        everyone = _everyone(_unwrap(st.get("Principal")))
        if everyone is None:
            return None
        if everyone and not _pinned(st.get("Condition")):
            found.append(str(st.get("Sid") or f"Statement[{i}]"))
    return found


# Policies whose `Principal: "*"` does not expose data: a VPC endpoint's policy limits what goes *through* the
# endpoint, and a role's trust policy is about who may assume it (identity, judged by IAM review, not exposure).
NOT_EXPOSURE = {"aws:ec2/vpcEndpoint:VpcEndpoint", "aws:ec2/vpcEndpointPolicy:VpcEndpointPolicy",
                "aws:iam/role:Role", "aws:iam/policy:Policy", "aws:iam/rolePolicy:RolePolicy",
                "aws:iam/userPolicy:UserPolicy", "aws:iam/groupPolicy:GroupPolicy",
                "aws:organizations/policy:Policy"}
BUCKET_POLICY_TYPES = ("aws:s3/bucketPolicy:BucketPolicy",)


def _block(bucket: ResourceView, ctx: Context, *settings: str) -> Any:
    """Whether a public access block of the bucket turns on any of `settings` (True/False/UNKNOWN)."""
    seen = False
    for block in attached_to(bucket, ctx, *PUBLIC_ACCESS_TYPES):
        for setting in settings:
            value = lookup(block.props, setting)
            if value is UNKNOWN:
                seen = True
            elif truthy(value):
                return True
    return UNKNOWN if seen else False


def _bucket_of(view: ResourceView, ctx: Context) -> ResourceView | None:
    if view.type in BUCKET_TYPES:
        return view
    return ctx.resolve(lookup(view.props, "bucket"), view.property_dependencies.get("bucket", ()), BUCKET_TYPES)


@rule(id="SAHAB-CLOUD-010", name="cloud-all-resource-policy-not-public",
      title="No resource policy lets everyone in",
      description="No resource policy (bucket, queue, topic, repository, key, secret, file system, search domain, "
                  "any input holding a policy document) Allows `Principal: \"*\"` without a condition that pins the "
                  "caller (aws:SourceArn, aws:SourceAccount, aws:SourceVpc/Vpce, a bounded aws:SourceIp, "
                  "aws:PrincipalOrgID/Account, ...). For S3, a public access block with `blockPublicPolicy` or "
                  "`restrictPublicBuckets` neutralises such a statement, as in AWS.",
      remediation="Name the principals (account, role or service ARNs), or keep `Principal: \"*\"` only with a "
                  "condition on aws:SourceArn/aws:SourceAccount/aws:SourceVpce or aws:PrincipalOrgID; keep the S3 "
                  "public access block on.",
      severity=Severity.CRITICAL, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack")
def cloud_policy_not_public(ctx: Context):
    for view in ctx.resources:
        if view.type in NOT_EXPOSURE or view.type.startswith(("pulumi:", "kubernetes:")):
            continue
        for key, document in policy_documents(view):
            public = public_statements(document)
            if public is None:
                yield from ctx.still_unknown(f"{view.name!r}: `{key}`", view.urn)
                continue
            if not public:
                continue
            bucket = _bucket_of(view, ctx) if view.type in (*BUCKET_TYPES, *BUCKET_POLICY_TYPES) else None
            if bucket is not None:
                blocked = _block(bucket, ctx, "blockPublicPolicy", "restrictPublicBuckets")
                if blocked is True:
                    continue
            yield Finding(f"{view.name!r}: `{key}` allows everyone (Principal \"*\") with no condition pinning "
                          f"the caller, in {', '.join(public)}", view.urn)


PUBLIC_CANNED_ACLS = ("public-read", "public-read-write", "authenticated-read")
PUBLIC_GRANTEES = ("http://acs.amazonaws.com/groups/global/AllUsers",
                   "http://acs.amazonaws.com/groups/global/AuthenticatedUsers")
ACL_TYPES = ("aws:s3/bucketAclV2:BucketAclV2", "aws:s3/bucketAcl:BucketAcl")
OBJECT_TYPES = ("aws:s3/bucketObjectv2:BucketObjectv2", "aws:s3/bucketObject:BucketObject",
                "aws:s3/objectCopy:ObjectCopy")


def _public_acl(view: ResourceView) -> str | None:
    acl = lookup(view.props, "acl")
    if isinstance(acl, str) and acl in PUBLIC_CANNED_ACLS:
        return f"`acl` is {acl!r}"
    for i, grant in enumerate(items(view.props, "accessControlPolicy", "grants")):
        uri = lookup(grant, "grantee", "uri")
        if isinstance(uri, str) and uri in PUBLIC_GRANTEES:
            return f"`accessControlPolicy.grants[{i}]` grants {uri.rsplit('/', 1)[-1]}"
    for i, grant in enumerate(items(view.props, "grants")):
        uri = lookup(grant, "uri")
        if isinstance(uri, str) and uri in PUBLIC_GRANTEES:
            return f"`grants[{i}]` grants {uri.rsplit('/', 1)[-1]}"
    return None


@rule(id="SAHAB-AWS-040", name="aws-s3-bucket-acl-not-public",
      title="No S3 ACL grants everyone",
      description="No bucket or object ACL is public-read, public-read-write or authenticated-read, or grants the "
                  "AllUsers/AuthenticatedUsers groups, unless the bucket's public access block blocks or ignores "
                  "public ACLs (then AWS refuses or ignores them).",
      remediation="Use the `private` ACL (or none, with BucketOwnerEnforced ownership) and keep the public access "
                  "block's `block_public_acls` and `ignore_public_acls` on.",
      severity=Severity.CRITICAL, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*BUCKET_TYPES, *ACL_TYPES, *OBJECT_TYPES))
def aws_s3_acl_not_public(ctx: Context):
    for view in ctx.of_type(*BUCKET_TYPES, *ACL_TYPES, *OBJECT_TYPES):
        if lookup(view.props, "acl") is UNKNOWN:
            yield from ctx.still_unknown(f"{view.name!r}: `acl`", view.urn)
            continue
        public = _public_acl(view)
        if not public:
            continue
        bucket = _bucket_of(view, ctx)
        blocked = _block(bucket, ctx, "blockPublicAcls", "ignorePublicAcls") if bucket is not None else False
        if blocked is True:
            continue
        where = f" of bucket {bucket.name!r}" if bucket is not None and bucket is not view else ""
        yield Finding(f"{view.name!r}{where}: {public}, and no public access block ignores or blocks public "
                      "ACLs: the data is readable by everyone", view.urn)


def _public_settings(view: ResourceView) -> dict[str, Any]:
    return entry(view.type).get("public", {})


@rule(id="SAHAB-CLOUD-011", name="cloud-all-snapshot-image-not-shared-publicly",
      title="No snapshot or image is shared with every account",
      description="No RDS/cluster snapshot (or copy) lists `all` among its shared accounts and no AMI launch "
                  "permission or Image Builder distribution grants the group `all`: either makes the data public "
                  "(read from the SDKs' docs into the egress model's `public` inputs).",
      remediation="Share snapshots and images with named account ids only, or not at all.",
      severity=Severity.CRITICAL, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack")
def cloud_snapshot_not_public(ctx: Context):
    for view in ctx.resources:
        for path, when in _public_settings(view).items():
            if when != "all":
                continue
            for where, value in walk_model_path(_unwrap(view.props) or {}, model_steps(path)):
                values = value if isinstance(value, (list, tuple)) else [value]
                if UNKNOWN in values:
                    yield from ctx.still_unknown(f"{view.name!r}: `{where}`", view.urn)
                elif any(isinstance(v, str) and v.lower() == "all" for v in values):
                    yield Finding(f"{view.name!r}: `{where}` shares it with all accounts: the data is public",
                                  view.urn)


SEARCH_DOMAINS = ("aws:opensearch/domain:Domain", "aws:elasticsearch/domain:Domain")


@rule(id="SAHAB-CLOUD-012", name="cloud-all-datastore-not-publicly-accessible",
      title="No data store sits on a public address",
      description="No database, warehouse, broker or replication instance sets `publiclyAccessible: true` (the "
                  "inputs the SDKs document as such), and no OpenSearch/Elasticsearch domain is created outside a "
                  "VPC (without `vpcOptions` its endpoint is public).",
      remediation="Leave `publicly_accessible` off and reach the store from inside its VPC; give search domains "
                  "`vpc_options` with private subnets.",
      severity=Severity.CRITICAL, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=SEARCH_DOMAINS)
def cloud_datastore_not_public(ctx: Context):
    for view in ctx.resources:
        for path, when in _public_settings(view).items():
            if when is not True or "." in path:  # an app's ingress switch is not a store's address
                continue
            value = lookup(view.props, path)
            if value is UNKNOWN:
                yield from ctx.still_unknown(f"{view.name!r}: `{path}`", view.urn)
            elif truthy(value):
                yield Finding(f"{view.name!r}: `{path}` is true: the store has a public address", view.urn)
        if view.type in SEARCH_DOMAINS:
            subnets = lookup(view.props, "vpcOptions", "subnetIds")
            if subnets is UNKNOWN:
                yield from ctx.still_unknown(f"{view.name!r}: `vpcOptions.subnetIds`", view.urn)
            elif subnets is MISSING or subnets == []:
                yield Finding(f"{view.name!r}: no `vpcOptions`: the search domain's endpoint is public", view.urn)


# Azure data stores whose data is sensitive by kind (databases, key vaults), with where each keeps its switch and
# how its network rules can restrict an enabled public endpoint.
SENSITIVE_AZURE = {
    "azure-native:keyvault:Vault": ("properties", "publicNetworkAccess"),
    "azure-native:sql:Server": ("publicNetworkAccess",),
    "azure-native:cosmosdb:DatabaseAccount": ("publicNetworkAccess",),
    "azure-native:dbforpostgresql:Server": ("network", "publicNetworkAccess"),
    "azure-native:dbformysql:Server": ("network", "publicNetworkAccess"),
}
# Azure stores judged where the stack reaches its services through private endpoints (storage accounts, vaults and
# registries have their own rules: SAHAB-AZ-040 to SAHAB-AZ-042).
BEHIND_ENDPOINTS_AZURE = {
    "azure-native:eventhub:Namespace": ("publicNetworkAccess",),
    "azure-native:servicebus:Namespace": ("publicNetworkAccess",),
}
FIREWALL_RULES = ("azure-native:sql:FirewallRule", "azure-native:dbforpostgresql:FirewallRule",
                  "azure-native:dbformysql:FirewallRule")


def _restricted(view: ResourceView, ctx: Context) -> bool:
    """Whether a store with public network access on is still closed to the internet by its network rules."""
    if view.type == "azure-native:keyvault:Vault":
        acls = lookup(view.props, "properties", "networkAcls")
        return lookup(acls, "defaultAction") == "Deny" and not any(
            public_cidr(str(lookup(r, "value"))) for r in items(acls, "ipRules"))
    if view.type == "azure-native:cosmosdb:DatabaseAccount":
        return truthy(lookup(view.props, "isVirtualNetworkFilterEnabled")) and not any(
            public_cidr(str(lookup(r, "ipAddressOrRange"))) for r in items(view.props, "ipRules"))
    if view.type in ("azure-native:sql:Server", "azure-native:dbforpostgresql:Server",
                     "azure-native:dbformysql:Server"):
        # With public access on, only firewall rules admit anyone: none, or only private ranges, keeps it closed.
        rules = ctx.referencing(view, "serverName", *FIREWALL_RULES)
        return not any(_firewall_public(r) for r in rules)
    return False


def _firewall_public(rule_view: ResourceView) -> bool:
    start, end = lookup(rule_view.props, "startIpAddress"), lookup(rule_view.props, "endIpAddress")
    if not isinstance(start, str) or not isinstance(end, str):
        return start is UNKNOWN or end is UNKNOWN
    if start == end == "0.0.0.0":
        return False  # Azure's "allow Azure services" rule: other Azure tenants, not the internet at large
    try:
        first, last = ipaddress.ip_address(start), ipaddress.ip_address(end)
    except ValueError:
        return True
    return not any(first in net and last in net for net in PRIVATE_RANGES)


@rule(id="SAHAB-AZ-043", name="azure-all-datastore-public-network-access-disabled",
      title="Azure databases refuse the public internet",
      description="Azure SQL servers, Cosmos DB accounts, PostgreSQL/MySQL flexible servers and Key Vaults hold "
                  "data that is sensitive by kind: their public network access is Disabled, or their network rules "
                  "admit no public address (no firewall rule for a public range; Cosmos DB with the virtual-network "
                  "filter on and no public IP rule; a vault's network ACLs denying by default with no public IP "
                  "rule). Event Hubs and Service Bus namespaces disable it where the stack "
                  "reaches its services through private endpoints. An unset switch is Azure's default: Enabled.",
      remediation="Set `public_network_access=\"Disabled\"` and reach the store through a private endpoint; or keep "
                  "it enabled only with firewall rules for your private ranges.",
      severity=Severity.HIGH, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(*SENSITIVE_AZURE, *BEHIND_ENDPOINTS_AZURE, *FIREWALL_RULES))
def azure_datastore_public_network(ctx: Context):
    stores = dict(SENSITIVE_AZURE)
    if ctx.of_type(PRIVATE_ENDPOINT):
        stores |= BEHIND_ENDPOINTS_AZURE
        del stores["azure-native:keyvault:Vault"]  # there SAHAB-AZ-041 asks for Disabled outright
    for type_, path in stores.items():
        for view in ctx.of_type(type_):
            access = lookup(view.props, *path)
            if access is UNKNOWN:
                yield from ctx.still_unknown(f"{view.name!r}: `{'.'.join(path)}`", view.urn)
                continue
            if known(access) and access == "Disabled":
                continue
            if _restricted(view, ctx):
                continue
            shown = "unset (Azure's default: Enabled)" if access is MISSING else describe(access)
            yield Finding(f"{view.name!r}: `{'.'.join(path)}` is {shown} and its network rules admit the public "
                          "internet", view.urn)


# ---------------------------------------------------------------------------------------------------------
# Network exposure: data ports open to public ranges

# Ports of data services (IANA service names and vendors' defaults): databases, caches, search, queues and
# streams, file shares, key stores.
DATA_PORTS = {
    445: "SMB", 1433: "SQL Server", 1521: "Oracle", 2049: "NFS", 2379: "etcd", 2380: "etcd", 3306: "MySQL",
    5432: "PostgreSQL", 5439: "Redshift", 5672: "AMQP", 5984: "CouchDB", 6379: "Redis", 6380: "Redis (TLS)",
    7000: "Cassandra", 7001: "Cassandra (TLS)", 8020: "HDFS", 8086: "InfluxDB", 8123: "ClickHouse",
    8200: "Vault", 9000: "MinIO/ClickHouse", 9042: "Cassandra CQL", 9092: "Kafka", 9094: "Kafka (TLS)",
    9200: "Elasticsearch/OpenSearch", 9300: "Elasticsearch transport", 9870: "HDFS web", 11211: "Memcached",
    27017: "MongoDB", 27018: "MongoDB", 27019: "MongoDB", 50070: "HDFS web (2.x)",
}
PUBLIC_SOURCES = ("*", "internet", "any")


def public_cidr(cidr: str) -> bool:
    """Whether a CIDR (or an Azure service tag) admits public addresses."""
    text = cidr.strip().lower()
    if text in PUBLIC_SOURCES:
        return True
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False  # a service tag (VirtualNetwork, AzureLoadBalancer) or a security group
    return not any(net.version == p.version and net.subnet_of(p) for p in PRIVATE_RANGES) and not (
        net.is_loopback or net.is_link_local)


def _ports(low: Any, high: Any, protocol: Any) -> list[int] | None:
    """The data ports in [low, high] for the protocol; None when a value is unknown."""
    if UNKNOWN in (low, high, protocol):
        return None
    proto = str(protocol).lower() if known(protocol) else "tcp"
    if proto in ("udp", "17", "icmp", "1", "icmpv6", "58"):
        return []
    if proto in ("-1", "all", "*"):
        return sorted(DATA_PORTS)
    try:
        lo, hi = int(low), int(high)
    except (TypeError, ValueError):
        return []
    if (lo <= 0 and hi <= 0) or (lo == 0 and hi == 65535):
        return sorted(DATA_PORTS)
    return [p for p in DATA_PORTS if lo <= p <= hi]


def _azure_ports(ranges: list[Any]) -> list[int] | None:
    out: list[int] = []
    for r in ranges:
        if r is UNKNOWN:
            return None
        text = str(r).strip()
        if text == "*":
            return sorted(DATA_PORTS)
        lo, _, hi = text.partition("-")
        try:
            out += [p for p in DATA_PORTS if int(lo) <= p <= int(hi or lo)]
        except ValueError:
            continue
    return out


def _aws_rules(view: ResourceView) -> Iterator[tuple[str, list[Any], Any, Any, Any]]:
    """(where, cidrs, from, to, protocol) of every ingress rule the resource declares."""
    if view.type == "aws:ec2/securityGroup:SecurityGroup":
        for i, rule_ in enumerate(items(view.props, "ingress")):
            cidrs = items(rule_, "cidrBlocks") + items(rule_, "ipv6CidrBlocks")
            yield (f"`ingress[{i}]`", cidrs, lookup(rule_, "fromPort"), lookup(rule_, "toPort"),
                   lookup(rule_, "protocol"))
    elif view.type == "aws:ec2/securityGroupRule:SecurityGroupRule":
        if lookup(view.props, "type") == "ingress":
            cidrs = items(view.props, "cidrBlocks") + items(view.props, "ipv6CidrBlocks")
            yield ("the rule", cidrs, lookup(view.props, "fromPort"), lookup(view.props, "toPort"),
                   lookup(view.props, "protocol"))
    elif view.type == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        cidrs = [c for c in (lookup(view.props, "cidrIpv4"), lookup(view.props, "cidrIpv6")) if c is not MISSING]
        protocol = lookup(view.props, "ipProtocol")
        yield ("the rule", cidrs, lookup(view.props, "fromPort"), lookup(view.props, "toPort"), protocol)


def _azure_rules(view: ResourceView) -> Iterator[tuple[str, Any]]:
    if view.type == "azure-native:network:NetworkSecurityGroup":
        for i, rule_ in enumerate(items(view.props, "securityRules")):
            yield f"`securityRules[{i}]`", rule_
    elif view.type == "azure-native:network:SecurityRule":
        yield "the rule", view.props


NETWORK_RULE_TYPES = ("aws:ec2/securityGroup:SecurityGroup", "aws:ec2/securityGroupRule:SecurityGroupRule",
                      "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                      "azure-native:network:NetworkSecurityGroup", "azure-native:network:SecurityRule")


@rule(id="SAHAB-CLOUD-013", name="cloud-all-network-data-port-not-public",
      title="No data port is open to a public range",
      description="No security group rule, network security group rule or database firewall rule admits a public "
                  "address (0.0.0.0/0, ::/0, `*`, `Internet`, any non-private range) to a data port: databases "
                  "(1433, 1521, 3306, 5432, 5439, 27017), caches (6379, 11211), search (9200, 9300), queues and "
                  "streams (5672, 9092), file shares (445, 2049), etcd and Vault; all ports count as every port.",
      remediation="Admit the application's security group or private ranges only; reach data stores from inside "
                  "the VPC/VNet or through a private endpoint.",
      severity=Severity.CRITICAL, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*NETWORK_RULE_TYPES, *FIREWALL_RULES))
def cloud_data_port_not_public(ctx: Context):
    for view in ctx.of_type(*NETWORK_RULE_TYPES):
        for where, cidrs, low, high, protocol in _aws_rules(view):
            ports = _ports(low, high, protocol)
            if ports is None or UNKNOWN in cidrs:
                yield from ctx.still_unknown(f"{view.name!r}: {where}", view.urn)
                continue
            public = [c for c in cidrs if isinstance(c, str) and public_cidr(c)]
            if ports and public:
                yield Finding(f"{view.name!r}: {where} opens {_names(ports)} to {', '.join(public)}", view.urn)
        for where, rule_ in _azure_rules(view):
            if rule_ is UNKNOWN:
                yield from ctx.still_unknown(f"{view.name!r}: {where}", view.urn)
                continue
            if str(lookup(rule_, "direction")).lower() != "inbound" or str(lookup(rule_, "access")).lower() != \
                    "allow":
                continue
            sources = [s for s in (lookup(rule_, "sourceAddressPrefix"), *items(rule_, "sourceAddressPrefixes"))
                       if s is not MISSING]
            ranges = [r for r in (lookup(rule_, "destinationPortRange"), *items(rule_, "destinationPortRanges"))
                      if r is not MISSING]
            ports = _azure_ports(ranges)
            if ports is None or UNKNOWN in sources:
                yield from ctx.still_unknown(f"{view.name!r}: {where}", view.urn)
                continue
            public = [s for s in sources if isinstance(s, str) and public_cidr(s)]
            if ports and public:
                yield Finding(f"{view.name!r}: {where} admits {', '.join(public)} to {_names(ports)}", view.urn)
    for view in ctx.of_type(*FIREWALL_RULES):
        if _firewall_public(view):
            yield Finding(f"{view.name!r}: the firewall rule admits "
                          f"{describe(lookup(view.props, 'startIpAddress'))}-"
                          f"{describe(lookup(view.props, 'endIpAddress'))}, a public range, to the database",
                          view.urn)


def _names(ports: list[int]) -> str:
    if len(ports) > 4:
        return f"{len(ports)} data ports (all ports)"
    return ", ".join(f"{p} ({DATA_PORTS[p]})" for p in ports)


# ---------------------------------------------------------------------------------------------------------
# Anonymous web endpoints

WEBSITE_TYPES = ("aws:s3/bucketWebsiteConfigurationV2:BucketWebsiteConfigurationV2",
                 "aws:s3/bucketWebsiteConfiguration:BucketWebsiteConfiguration",
                 "azure-native:storage:StorageAccountStaticWebsite")
FUNCTION_URL = "aws:lambda/functionUrl:FunctionUrl"
BLOB_CONTAINER = "azure-native:storage:BlobContainer"
ACR = "azure-native:containerregistry:Registry"


@rule(id="SAHAB-CLOUD-014", name="cloud-all-web-endpoint-not-anonymous",
      title="No data is served to anonymous web clients",
      description="No S3 bucket is a website (its website endpoint serves objects to anyone, over HTTP only), no "
                  "Azure storage account serves a static website, no blob container allows anonymous reads "
                  "(`publicAccess` Blob or Container), no container registry allows anonymous pulls and no Lambda "
                  "function URL has `authorizationType` NONE.",
      remediation="Serve through an authenticated regional endpoint in the UAE (an ALB with authentication, API "
                  "Gateway with an authorizer); set `authorization_type=\"AWS_IAM\"` on function URLs and "
                  "`public_access=\"None\"` on containers.",
      severity=Severity.HIGH, frameworks=EXPOSURE, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(*WEBSITE_TYPES, FUNCTION_URL, BLOB_CONTAINER, ACR, *BUCKET_TYPES))
def cloud_web_endpoint_not_anonymous(ctx: Context):
    for view in ctx.of_type(*WEBSITE_TYPES):
        yield Finding(f"{view.name!r} ({view.type.split(':')[-1]}) serves its data as an anonymous website",
                      view.urn)
    for view in ctx.of_type(*BUCKET_TYPES):
        website = lookup(view.props, "website")
        websites = items(view.props, "websites")
        if website is not MISSING or websites:
            yield Finding(f"bucket {view.name!r} is configured as a website: its endpoint serves objects "
                          "anonymously", view.urn)
    for view in ctx.of_type(FUNCTION_URL):
        auth = lookup(view.props, "authorizationType")
        if auth is UNKNOWN:
            yield from ctx.still_unknown(f"{view.name!r}: `authorizationType`", view.urn)
        elif auth == "NONE":
            yield Finding(f"{view.name!r}: the function URL has `authorizationType` NONE: anyone may call it",
                          view.urn)
    for view in ctx.of_type(ACR):
        anonymous = lookup(view.props, "anonymousPullEnabled")
        if anonymous is UNKNOWN:
            yield from ctx.still_unknown(f"{view.name!r}: `anonymousPullEnabled`", view.urn)
        elif truthy(anonymous):
            yield Finding(f"{view.name!r}: `anonymousPullEnabled` is true: anyone may pull its images", view.urn)
    for view in ctx.of_type(BLOB_CONTAINER):
        access = lookup(view.props, "publicAccess")
        if access is UNKNOWN:
            yield from ctx.still_unknown(f"{view.name!r}: `publicAccess`", view.urn)
        elif isinstance(access, str) and access.lower() in ("blob", "container"):
            yield Finding(f"{view.name!r}: `publicAccess` is {access!r}: anyone may read its blobs", view.urn)
