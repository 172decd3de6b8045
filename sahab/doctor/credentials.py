"""Cloud credentials, only for the clouds the stack uses, read from the providers' standard chains offline.

Nothing is sent anywhere: the chain is read, not exercised (whether the keys still work is the clouds area's
question). AWS (pulumi-aws takes the AWS SDK's chain, plus `aws:accessKey`/`aws:profile` stack settings):
static keys in the environment or stack, a web-identity token file, a container credentials endpoint, or the
profile (`aws:profile`, AWS_PROFILE, else `default`) in ~/.aws/credentials or ~/.aws/config with keys, SSO,
a credential_process or a role. An EC2 instance role cannot be told offline and is named in the remedy.
Azure (azure-native: `azure-native:*` stack settings or the ARM_* environment, as the provider documents them):
a service principal with a secret or certificate, managed identity, OIDC, else the Azure CLI's login
(~/.azure/azureProfile.json, or AZURE_CONFIG_DIR), which must hold the stack's subscription when it names one.
"""

from __future__ import annotations

import configparser
import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext

AREA = "credentials"


def _ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    with contextlib.suppress(configparser.Error, OSError, UnicodeDecodeError):
        parser.read(path)
    return parser


def aws(ctx: DoctorContext) -> Check:
    env, cfg = os.environ, ctx.config
    if cfg.get("aws:accessKey") and cfg.get("aws:secretKey"):
        return Check(AREA, "aws", OK, "static keys in the stack's aws:accessKey / aws:secretKey")
    if env.get("AWS_ACCESS_KEY_ID") or env.get("AWS_SECRET_ACCESS_KEY"):
        if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
            return Check(AREA, "aws", OK, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")
        return Check(AREA, "aws", FAIL, "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set",
                     "set both, or unset both and use a profile")
    token = env.get("AWS_WEB_IDENTITY_TOKEN_FILE")
    if token and env.get("AWS_ROLE_ARN"):
        if os.access(token, os.R_OK):
            return Check(AREA, "aws", OK, f"web identity: {env['AWS_ROLE_ARN']} with the token in {token}")
        return Check(AREA, "aws", FAIL, f"AWS_WEB_IDENTITY_TOKEN_FILE {token} is not readable", "fix the path")
    if env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") or env.get("AWS_CONTAINER_CREDENTIALS_FULL_URI"):
        return Check(AREA, "aws", OK, "the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_*)")
    profile = cfg.get("aws:profile") or env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    home = Path.home() / ".aws"
    credentials = Path(env.get("AWS_SHARED_CREDENTIALS_FILE") or home / "credentials")
    config = Path(env.get("AWS_CONFIG_FILE") or home / "config")
    shared = _ini(credentials)
    if shared.has_section(profile) and shared[profile].get("aws_access_key_id") \
            and shared[profile].get("aws_secret_access_key"):
        return Check(AREA, "aws", OK, f"profile {profile}: keys in {credentials}")
    conf = _ini(config)
    section = "default" if profile == "default" else f"profile {profile}"
    if conf.has_section(section):
        p = conf[section]
        if p.get("aws_access_key_id") and p.get("aws_secret_access_key"):
            return Check(AREA, "aws", OK, f"profile {profile}: keys in {config}")
        if p.get("sso_session") or p.get("sso_start_url"):
            return Check(AREA, "aws", OK, f"profile {profile}: IAM Identity Center (SSO) in {config}; "
                         f"`aws sso login --profile {profile}` when its session expires")
        if p.get("credential_process"):
            return Check(AREA, "aws", OK, f"profile {profile}: credential_process in {config}")
        if p.get("role_arn") and (p.get("source_profile") or p.get("credential_source")):
            return Check(AREA, "aws", OK, f"profile {profile}: assumes {p['role_arn']} ({config})")
    return Check(AREA, "aws", FAIL, f"no AWS credentials: none in the environment or the stack, and profile "
                 f"{profile} has none in {credentials} or {config}",
                 "aws configure sso (or export AWS_PROFILE); on an EC2 instance with a role this check cannot see "
                 "the role")


def azure(ctx: DoctorContext) -> Check:
    env, cfg = os.environ, ctx.config

    def setting(key: str, var: str) -> str:
        return cfg.get(f"azure-native:{key}") or env.get(var) or ""

    client, tenant = setting("clientId", "ARM_CLIENT_ID"), setting("tenantId", "ARM_TENANT_ID")
    if setting("clientSecret", "ARM_CLIENT_SECRET") or setting("clientCertificatePath", "ARM_CLIENT_CERTIFICATE_PATH"):
        if client and tenant:
            return Check(AREA, "azure", OK, "a service principal (client id, tenant and a secret or certificate)")
        return Check(AREA, "azure", FAIL, "a service principal secret or certificate without its client id and "
                     "tenant", "set ARM_CLIENT_ID and ARM_TENANT_ID (or azure-native:clientId / tenantId)")
    if setting("useMsi", "ARM_USE_MSI").lower() == "true":
        return Check(AREA, "azure", OK, "managed identity (useMsi)")
    if setting("useOidc", "ARM_USE_OIDC").lower() == "true":
        if env.get("ARM_OIDC_TOKEN") or env.get("ARM_OIDC_REQUEST_TOKEN") or cfg.get("azure-native:oidcToken"):
            return Check(AREA, "azure", OK, "OIDC (workload identity federation)")
        return Check(AREA, "azure", FAIL, "useOidc without a token", "set ARM_OIDC_TOKEN (or run in the CI that "
                     "issues one)")
    folder = Path(env.get("AZURE_CONFIG_DIR") or Path.home() / ".azure")
    try:
        profile = json.loads((folder / "azureProfile.json").read_text(encoding="utf-8-sig"))
        subscriptions = [s for s in profile.get("subscriptions", []) if isinstance(s, dict)]
    except (OSError, ValueError, AttributeError):
        subscriptions = []
    if not subscriptions:
        return Check(AREA, "azure", FAIL, f"no service principal, managed identity or OIDC settings, and no Azure "
                     f"CLI login in {folder}", "az login (or set ARM_CLIENT_ID, ARM_CLIENT_SECRET, ARM_TENANT_ID)")
    wanted = getattr(getattr(getattr(ctx.fleet, "clouds", None), "azure", None), "subscription_id", None) \
        or setting("subscriptionId", "ARM_SUBSCRIPTION_ID")
    ids = {str(s.get("id", "")).lower() for s in subscriptions}
    if wanted and wanted.lower() not in ids:
        return Check(AREA, "azure", FAIL, f"the Azure CLI login ({folder}) has no subscription {wanted}",
                     f"az login with an account that holds it, then az account set --subscription {wanted}")
    default = next((s for s in subscriptions if s.get("isDefault")), subscriptions[0])
    return Check(AREA, "azure", OK, f"Azure CLI login in {folder}, subscription {wanted or default.get('id')}")


def checks(ctx: DoctorContext) -> Iterator[Check]:
    clouds = getattr(ctx.fleet, "clouds", None)
    used = {"aws": bool(getattr(clouds, "aws", None)), "azure": bool(getattr(clouds, "azure", None))}
    if not any(used.values()):
        yield Check(AREA, "clouds", SKIP, "the stack uses no cloud")
        return
    if used["aws"]:
        yield aws(ctx)
    if used["azure"]:
        yield azure(ctx)
