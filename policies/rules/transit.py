"""Encryption in transit as one family: data crosses a network only inside TLS.

Object stores already have theirs (SAHAB-AWS-011 S3 deny-insecure-transport, SAHAB-AZ-010/011 storage TLS and
HTTPS). These rules cover the rest of the places data moves between a client and a store:

* Kafka and caches: MSK between clients and brokers and among brokers, ElastiCache, MemoryDB, Azure Cache for Redis;
* databases that must refuse plaintext clients: RDS and Aurora engines whose default accepts them are given a
  parameter group of this program that forces TLS; Azure SQL's minimal TLS; Azure PostgreSQL/MySQL's
  `require_secure_transport` left on; search domains that enforce HTTPS;
* file-system mounts: EFS file systems whose policy refuses non-TLS access, Kubernetes volumes that do not turn
  TLS off (EFS CSI) or mount plain NFS;
* load-balancer listeners: no plain-HTTP listener that serves instead of redirecting, no TLS policy older than 1.2.

Defaults are the providers' documented ones (quoted from the installed SDKs' docs beside each)."""

from __future__ import annotations

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
    lookup,
    pdpl,
    rule,
    truthy,
)
from ..places import _unwrap

TRANSIT = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.20"), iso27001("A.5.14"), iso27001("A.8.24"))

MSK = ("aws:msk/cluster:Cluster",)
ELASTICACHE = ("aws:elasticache/replicationGroup:ReplicationGroup", "aws:elasticache/cluster:Cluster")
MEMORYDB = ("aws:memorydb/cluster:Cluster",)
AZURE_REDIS = ("azure-native:redis:Redis",)
TLS_OK = ("1.2", "1.3", "TLS1_2", "TLS1_3", "Tls12", "Tls13")


def _unknown(ctx: Context, view: ResourceView, what: str) -> Iterator[Finding]:
    yield from ctx.still_unknown(f"{view.name!r}: {what}", view.urn)


@rule(id="SAHAB-CLOUD-020", name="cloud-all-stream-cache-encrypted-in-transit",
      title="Kafka and caches encrypt data in transit",
      description="MSK encrypts between clients and brokers (`encryptionInfo.encryptionInTransit.clientBroker` "
                  "TLS, the default) and among brokers (`inCluster`, default true); ElastiCache replication groups "
                  "and clusters set `transitEncryptionEnabled` (off unless set); MemoryDB keeps `tlsEnabled` "
                  "(default true); Azure Cache for Redis keeps the non-TLS port off and TLS 1.2 as the minimum.",
      remediation="Use TLS only between clients and brokers; set `transit_encryption_enabled=True` on ElastiCache; "
                  "`enable_non_ssl_port=False` and `minimum_tls_version=\"1.2\"` on Azure Redis.",
      severity=Severity.HIGH, frameworks=TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*MSK, *ELASTICACHE, *MEMORYDB, *AZURE_REDIS))
def cloud_stream_cache_transit(ctx: Context):
    for view in ctx.of_type(*MSK):
        # "Default value is `TLS`" / "Default value: `true`" (pulumi_aws msk ClusterEncryptionInfoEncryptionInTransit).
        broker = lookup(view.props, "encryptionInfo", "encryptionInTransit", "clientBroker")
        in_cluster = lookup(view.props, "encryptionInfo", "encryptionInTransit", "inCluster")
        if UNKNOWN in (broker, in_cluster):
            yield from _unknown(ctx, view, "`encryptionInfo.encryptionInTransit`")
            continue
        if broker not in (MISSING, "TLS"):
            yield Finding(f"{view.name!r}: `encryptionInfo.encryptionInTransit.clientBroker` is {broker!r}: clients "
                          "may talk to the brokers in plaintext", view.urn)
        if in_cluster is not MISSING and not truthy(in_cluster):
            yield Finding(f"{view.name!r}: `encryptionInfo.encryptionInTransit.inCluster` is false: brokers "
                          "replicate in plaintext", view.urn)
    for view in ctx.of_type(*ELASTICACHE):
        if view.type == "aws:elasticache/cluster:Cluster" and lookup(view.props, "replicationGroupId") is not MISSING:
            continue  # a member of a replication group, judged there
        enabled = lookup(view.props, "transitEncryptionEnabled")
        if enabled is UNKNOWN:
            yield from _unknown(ctx, view, "`transitEncryptionEnabled`")
        elif not truthy(enabled):
            yield Finding(f"{view.name!r}: `transitEncryptionEnabled` is {describe(enabled)}: the cache talks "
                          "plaintext", view.urn)
        elif lookup(view.props, "transitEncryptionMode") == "preferred":
            yield Finding(f"{view.name!r}: `transitEncryptionMode` is 'preferred': plaintext clients are still "
                          "accepted", view.urn)
    for view in ctx.of_type(*MEMORYDB):
        tls = lookup(view.props, "tlsEnabled")  # "Defaults to `true`" (pulumi_aws memorydb.Cluster)
        if tls is UNKNOWN:
            yield from _unknown(ctx, view, "`tlsEnabled`")
        elif tls is not MISSING and not truthy(tls):
            yield Finding(f"{view.name!r}: `tlsEnabled` is false", view.urn)
    for view in ctx.of_type(*AZURE_REDIS):
        plain = lookup(view.props, "enableNonSslPort")
        minimum = lookup(view.props, "minimumTlsVersion")
        if UNKNOWN in (plain, minimum):
            yield from _unknown(ctx, view, "`enableNonSslPort`/`minimumTlsVersion`")
            continue
        if truthy(plain):
            yield Finding(f"{view.name!r}: `enableNonSslPort` is true: port 6379 serves plaintext", view.urn)
        if minimum is not MISSING and str(minimum) not in TLS_OK:
            yield Finding(f"{view.name!r}: `minimumTlsVersion` is {minimum!r}, below 1.2", view.urn)


# RDS engines whose default parameter group accepts plaintext clients, and the parameter that forces TLS
# (Amazon RDS user guide: "Using SSL/TLS to encrypt a connection to a DB instance"; RDS for PostgreSQL 15 and
# later default `rds.force_ssl` to 1).
FORCE_SSL = {"mysql": ("require_secure_transport", ("1", "on")), "mariadb": ("require_secure_transport", ("1", "on")),
             "postgres": ("rds.force_ssl", ("1",)), "sqlserver": ("rds.force_ssl", ("1",)),
             "aurora-mysql": ("require_secure_transport", ("1", "on")),
             "aurora-postgresql": ("rds.force_ssl", ("1",))}
RDS_TYPES = ("aws:rds/instance:Instance", "aws:rds/cluster:Cluster")
PARAMETER_GROUPS = ("aws:rds/parameterGroup:ParameterGroup", "aws:rds/clusterParameterGroup:ClusterParameterGroup")
AZURE_SQL = ("azure-native:sql:Server",)
AZURE_FLEX_CONFIG = ("azure-native:dbforpostgresql:Configuration", "azure-native:dbformysql:Configuration")
SEARCH = ("aws:opensearch/domain:Domain", "aws:elasticsearch/domain:Domain")


def _engine_family(engine: str) -> str | None:
    engine = engine.lower()
    if engine.startswith("sqlserver"):
        return "sqlserver"
    return engine if engine in FORCE_SSL else None


def _major(version: Any) -> int:
    match = re.match(r"(\d+)", str(version)) if isinstance(version, str) else None
    return int(match.group(1)) if match else 0


def _forces(group: ResourceView, parameter: str, values: tuple[str, ...]) -> Any:
    """True/False whether the parameter group sets the parameter to force TLS, UNKNOWN, or MISSING (not set)."""
    for p in items(group.props, "parameters"):
        if p is UNKNOWN:
            return UNKNOWN
        if lookup(p, "name") == parameter:
            value = lookup(p, "value")
            return UNKNOWN if value is UNKNOWN else str(value).lower() in values
    return MISSING


@rule(id="SAHAB-CLOUD-021", name="cloud-all-database-requires-tls",
      title="Databases refuse clients without TLS",
      description="RDS and Aurora MySQL, MariaDB, PostgreSQL (before 15) and SQL Server accept plaintext clients "
                  "unless a parameter group of this program sets `require_secure_transport`/`rds.force_ssl` "
                  "(PostgreSQL 15 and later, and an unpinned PostgreSQL, force it by default); a group that turns it "
                  "off fails for any version. Azure SQL servers keep `minimalTlsVersion` at 1.2 or "
                  "more; Azure PostgreSQL/MySQL flexible servers keep `require_secure_transport` on; OpenSearch/"
                  "Elasticsearch domains enforce HTTPS (`domainEndpointOptions.enforceHttps`).",
      remediation="Give the instance or cluster a parameter group with `rds.force_ssl=1` (PostgreSQL, SQL Server) "
                  "or `require_secure_transport=1` (MySQL, MariaDB); set `minimal_tls_version=\"1.2\"` on Azure SQL; "
                  "leave `require_secure_transport` ON on flexible servers.",
      severity=Severity.HIGH, frameworks=TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(*RDS_TYPES, *PARAMETER_GROUPS, *AZURE_SQL, *AZURE_FLEX_CONFIG, *SEARCH))
def cloud_database_requires_tls(ctx: Context):
    for view in ctx.of_type(*RDS_TYPES):
        if view.type == "aws:rds/instance:Instance" and lookup(view.props, "dbClusterIdentifier") is not MISSING:
            continue  # an Aurora member: the cluster's parameter group decides
        engine = lookup(view.props, "engine")
        if engine is UNKNOWN:
            yield from _unknown(ctx, view, "`engine`")
            continue
        family = _engine_family(engine) if isinstance(engine, str) else None
        if family is None:
            continue
        parameter, values = FORCE_SSL[family]
        key = "dbClusterParameterGroupName" if view.type == "aws:rds/cluster:Cluster" else "parameterGroupName"
        name = lookup(view.props, key)
        group = ctx.resolve(name, view.property_dependencies.get(key, ()), PARAMETER_GROUPS) \
            if name is not MISSING else None
        forced = _forces(group, parameter, values) if group is not None else MISSING
        if forced is UNKNOWN or (name is UNKNOWN and group is None):
            yield from _unknown(ctx, view, f"`{key}` (its `{parameter}`)")
            continue
        if forced is True:
            continue
        version = lookup(view.props, "engineVersion")
        # Without `engineVersion` RDS creates the current default major version (15 or later).
        default_on = family == "postgres" and (version is MISSING or _major(version) >= 15)
        if forced is MISSING and default_on:
            continue
        why = f"its parameter group sets `{parameter}` off" if forced is False else \
            f"no parameter group of this program sets `{parameter}`, and the {engine} default accepts plaintext"
        yield Finding(f"{view.name!r}: {why}", view.urn)
    for view in ctx.of_type(*AZURE_SQL):
        version = lookup(view.props, "minimalTlsVersion")
        if version is UNKNOWN:
            yield from _unknown(ctx, view, "`minimalTlsVersion`")
        elif version is not MISSING and str(version) not in TLS_OK:
            yield Finding(f"{view.name!r}: `minimalTlsVersion` is {version!r}, below 1.2", view.urn)
    for view in ctx.of_type(*AZURE_FLEX_CONFIG):
        name = lookup(view.props, "configurationName")
        value = lookup(view.props, "value")
        if name is UNKNOWN or value is UNKNOWN:
            yield from _unknown(ctx, view, "`configurationName`/`value`")
        elif isinstance(name, str) and name.lower() == "require_secure_transport" and str(value).lower() == "off":
            yield Finding(f"{view.name!r}: `require_secure_transport` is OFF: the server accepts plaintext "
                          "clients", view.urn)
    for view in ctx.of_type(*SEARCH):
        enforce = lookup(view.props, "domainEndpointOptions", "enforceHttps")  # "Defaults to `true`"
        if enforce is UNKNOWN:
            yield from _unknown(ctx, view, "`domainEndpointOptions.enforceHttps`")
        elif enforce is not MISSING and not truthy(enforce):
            yield Finding(f"{view.name!r}: `domainEndpointOptions.enforceHttps` is false", view.urn)


EFS = ("aws:efs/fileSystem:FileSystem",)
EFS_POLICY = ("aws:efs/fileSystemPolicy:FileSystemPolicy",)
PV = "kubernetes:core/v1:PersistentVolume"
EFS_CSI = "efs.csi.aws.com"


def _denies_plaintext(document: Any) -> Any:
    """Whether a policy document has a Deny on `aws:SecureTransport` false (UNKNOWN if the document is)."""
    import json

    if document is UNKNOWN:
        return UNKNOWN
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            return False
    document = _unwrap(document)
    statements = document.get("Statement", []) if isinstance(document, dict) else []
    for st in statements if isinstance(statements, list) else [statements]:
        if not isinstance(st, dict) or str(st.get("Effect", "")).lower() != "deny":
            continue
        for operator, tests in (st.get("Condition") or {}).items():
            if not operator.lower().startswith("bool") or not isinstance(tests, dict):
                continue
            for key, value in tests.items():
                values = value if isinstance(value, list) else [value]
                if key.lower() == "aws:securetransport" and any(str(v).lower() == "false" for v in values):
                    return True
    return False


def _volume_sources(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """(where, volume source) of a PersistentVolume and of every pod volume the object declares."""
    from .kubernetes_volumes import pod_volumes

    if view.type == PV:
        yield "`spec`", lookup(view.props, "spec")
        return
    yield from pod_volumes(view)


@rule(id="SAHAB-CLOUD-022", name="cloud-all-filesystem-mount-encrypted-in-transit",
      title="File systems are mounted over TLS",
      description="Every EFS file system has a file-system policy that denies access when `aws:SecureTransport` is "
                  "false, so no client mounts it in plaintext; Kubernetes volumes on the EFS CSI driver do not turn "
                  "`encryptInTransit` off; no pod or persistent volume mounts plain NFS (a PersistentVolume may, "
                  "with `sec=krb5p` among its mount options).",
      remediation="Attach `aws.efs.FileSystemPolicy` with a Deny of every action when aws:SecureTransport is false; "
                  "mount EFS through the EFS CSI driver (TLS by default); use Kerberos privacy (`sec=krb5p`) for NFS.",
      severity=Severity.HIGH, frameworks=TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*EFS, *EFS_POLICY, PV))
def cloud_filesystem_transit(ctx: Context):
    for fs in ctx.of_type(*EFS):
        policies = ctx.referencing(fs, "fileSystemId", *EFS_POLICY)
        verdicts = [_denies_plaintext(lookup(p.props, "policy")) for p in policies]
        if any(v is True for v in verdicts):
            continue
        if UNKNOWN in verdicts:
            yield from _unknown(ctx, fs, "its file-system policy")
            continue
        yield Finding(f"{fs.name!r}: no file-system policy denies access without TLS (aws:SecureTransport "
                      "false): clients may mount it in plaintext", fs.urn)
    for view in ctx.resources:
        if view.package != "kubernetes":
            continue
        for where, source in _volume_sources(view):
            if source is UNKNOWN or (not hasattr(source, "get") and not isinstance(source, dict)):
                continue
            csi = lookup(source, "csi")
            if lookup(csi, "driver") == EFS_CSI:
                flag = lookup(csi, "volumeAttributes", "encryptInTransit")
                if flag is UNKNOWN:
                    yield from _unknown(ctx, view, f"{where}.csi.volumeAttributes.encryptInTransit")
                elif isinstance(flag, str) and flag.lower() == "false":
                    yield Finding(f"{view.name!r}: {where} mounts EFS with `encryptInTransit` false", view.urn)
            if lookup(source, "nfs") is not MISSING:
                options = [str(o) for o in items(source, "mountOptions")]
                if not any("krb5p" in o for o in options):
                    yield Finding(f"{view.name!r}: {where} mounts plain NFS: the data crosses the network "
                                  "unencrypted", view.urn)


LISTENERS = ("aws:lb/listener:Listener", "aws:alb/listener:Listener")
APP_GATEWAY = ("azure-native:network:ApplicationGateway",)
# ELB policies whose minimum is TLS 1.2 or 1.3 carry it in their name (ELBSecurityPolicy-TLS13-1-2-2021-06,
# -TLS-1-2-2017-01, -FS-1-2-Res-2020-10, -TLS13-1-3-2021-06); the default, ELBSecurityPolicy-2016-08 ("Default is
# `ELBSecurityPolicy-2016-08`", pulumi_aws lb.Listener), still accepts TLS 1.0.
MODERN_ELB_POLICY = re.compile(r"(TLS13-1-[23]|TLS-1-2|FS-1-2)", re.IGNORECASE)


def _redirects_to_https(view: ResourceView) -> bool:
    for action in items(view.props, "defaultActions"):
        if lookup(action, "type") == "redirect" and str(lookup(action, "redirect", "protocol")).upper() == "HTTPS":
            return True
    return False


@rule(id="SAHAB-CLOUD-023", name="cloud-all-loadbalancer-listener-tls",
      title="Load-balancer listeners serve TLS 1.2 or later",
      description="No AWS load-balancer listener serves plain HTTP (a port-80 listener may only redirect to "
                  "HTTPS), and HTTPS/TLS listeners use a security policy whose minimum is TLS 1.2 (the default, "
                  "ELBSecurityPolicy-2016-08, accepts TLS 1.0). Azure Application Gateways serve no plain-HTTP "
                  "listener without a redirect and disable TLS 1.0/1.1.",
      remediation="Make port 80 a redirect to HTTPS; set `ssl_policy=\"ELBSecurityPolicy-TLS13-1-2-2021-06\"`; on "
                  "Application Gateway use a predefined TLS 1.2 policy (AppGwSslPolicy20220101).",
      severity=Severity.HIGH, frameworks=TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*LISTENERS, *APP_GATEWAY))
def cloud_listener_tls(ctx: Context):
    for view in ctx.of_type(*LISTENERS):
        protocol = lookup(view.props, "protocol")
        if protocol is UNKNOWN:
            yield from _unknown(ctx, view, "`protocol`")
            continue
        protocol = str(protocol).upper() if protocol is not MISSING else "HTTP"
        if protocol == "HTTP" and not _redirects_to_https(view):
            yield Finding(f"{view.name!r}: an HTTP listener that serves instead of redirecting to HTTPS", view.urn)
        elif protocol in ("HTTPS", "TLS"):
            policy = lookup(view.props, "sslPolicy")
            if policy is UNKNOWN:
                yield from _unknown(ctx, view, "`sslPolicy`")
            elif policy is MISSING or not MODERN_ELB_POLICY.search(str(policy)):
                shown = "the default ELBSecurityPolicy-2016-08" if policy is MISSING else repr(policy)
                yield Finding(f"{view.name!r}: `sslPolicy` is {shown}, which accepts TLS below 1.2", view.urn)
    for view in ctx.of_type(*APP_GATEWAY):
        redirects = {lookup(r, "name") for r in items(view.props, "redirectConfigurations")}
        for i, listener in enumerate(items(view.props, "httpListeners")):
            if listener is UNKNOWN or lookup(listener, "protocol") is UNKNOWN:
                yield from _unknown(ctx, view, f"`httpListeners[{i}].protocol`")
                continue
            if str(lookup(listener, "protocol")).lower() == "http" and not redirects:
                yield Finding(f"{view.name!r}: `httpListeners[{i}]` serves plain HTTP", view.urn)
        disabled = {str(p) for p in items(view.props, "sslPolicy", "disabledSslProtocols")}
        policy = lookup(view.props, "sslPolicy", "policyName")
        if isinstance(policy, str) and policy.startswith("AppGwSslPolicy2015"):
            yield Finding(f"{view.name!r}: `sslPolicy.policyName` {policy!r} accepts TLS 1.0", view.urn)
        elif lookup(view.props, "sslPolicy", "policyType") == "Custom" and not {"TLSv1_0", "TLSv1_1"} <= disabled \
                and lookup(view.props, "sslPolicy", "minProtocolVersion") not in ("TLSv1_2", "TLSv1_3"):
            yield Finding(f"{view.name!r}: the custom SSL policy still accepts TLS 1.0/1.1", view.urn)
