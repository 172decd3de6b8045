"""The policy pack's rules over live resources: same rules, same ids, same waivers.

Each `LiveResource` becomes a `policies.core.ResourceView` whose provider is pinned to the region the resource
was read from. Every rule of the pack that can judge an audited type runs on the views: resource rules that
apply to one of the types the scanner produces, and stack rules of an audited service (the service is the
second part of a rule's name, `aws-s3-...`). Findings about an S3 bucket's configuration are reported against
the bucket. A waiver in `policies/waivers.yaml` matches a live resource by its ARN (or a glob over ARNs), as
it matches a declared one by URN.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from sahab.audit import adapters
from sahab.audit.scan_types import LiveResource
from sahab.policies import core
from sahab.policies.waivers import Waiver, decide

AUDITED_TYPES = (
    adapters.BUCKET, adapters.BUCKET_SSE, adapters.BUCKET_PAB, adapters.BUCKET_POLICY, adapters.BUCKET_REPLICATION,
    adapters.BUCKET_VERSIONING, adapters.VOLUME, adapters.SNAPSHOT, adapters.EBS_DEFAULT, adapters.KMS_KEY,
    adapters.EKS_CLUSTER,
)
# Services (the second part of a rule name) whose stack rules can see everything they correlate in a live scan.
AUDITED_SERVICES = ("all", "s3", "ebs", "kms", "eks")
# Rules about a setting AWS does not show on a live resource: running them would pass vacuously.
NOT_OBSERVABLE = {
    "aws-kms-key-deletion-window-30-days": "KMS shows the deletion window only once a deletion is scheduled",
}


@dataclass(frozen=True)
class AuditFinding:
    rule: core.Rule
    resource: str  # ARN (or id) of the resource the finding is about
    resource_type: str
    region: str
    message: str
    waiver: Waiver | None = None  # the active waiver that waives it
    expired_waiver: Waiver | None = None  # a waiver that would have, had it not expired

    @property
    def mandatory(self) -> bool:
        return self.rule.enforcement is core.Enforcement.MANDATORY

    def as_dict(self) -> dict:
        out = {
            "rule": self.rule.id, "policy": self.rule.name, "title": self.rule.title,
            "severity": self.rule.severity.value, "enforcement": self.rule.enforcement.value,
            "resource": self.resource, "type": self.resource_type, "region": self.region, "message": self.message,
            "remediation": self.rule.remediation,
        }
        if self.waiver is not None:
            out["waiver"] = waiver_dict(self.waiver)
        if self.expired_waiver is not None:
            out["expiredWaiver"] = waiver_dict(self.expired_waiver)
        return out


def waiver_dict(waiver: Waiver) -> dict:
    return {"policy": waiver.policy, "resource": waiver.resource, "reason": waiver.reason,
            "approver": waiver.approver, "expires": waiver.expires.isoformat()}


@dataclass
class Evaluation:
    rules: list[core.Rule]
    findings: list[AuditFinding] = field(default_factory=list)  # not waived
    waived: list[AuditFinding] = field(default_factory=list)

    @property
    def mandatory(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.mandatory]


def audited_rules() -> list[core.Rule]:
    """The pack's rules that can judge what the audit reads, in catalog order."""
    chosen = []
    for rule in core.all_rules():
        if rule.enforcement is core.Enforcement.DISABLED or rule.name in NOT_OBSERVABLE:
            continue
        if rule.scope == "resource":
            judged = any(rule.applies_to(t) for t in AUDITED_TYPES)
        else:
            judged = rule.name.split("-")[:2] in (["aws", s] for s in AUDITED_SERVICES)
        if judged:
            chosen.append(rule)
    return chosen


def view_of(resource: LiveResource) -> core.ResourceView:
    provider = core.ProviderView("pulumi:providers:aws", f"live-{resource.region}", f"live:aws:{resource.region}",
                                 {"region": resource.region})
    return core.ResourceView(type=resource.type, name=resource.name, urn=resource.id, props=resource.props,
                             provider=provider, identities=resource.identities)


def evaluate(resources: Iterable[LiveResource], allowed_regions: Iterable[str], waivers: list[Waiver],
             today: dt.date | None = None) -> Evaluation:
    today = today or dt.datetime.now(dt.UTC).date()
    live = list(resources)
    by_id = {r.id: r for r in live}
    views = tuple(view_of(r) for r in live)
    ctx = core.Context(allowed_regions=tuple(allowed_regions), resources=views)
    result = Evaluation(rules=audited_rules())
    seen: set[tuple[str, str, str]] = set()

    def record(rule: core.Rule, finding: core.Finding, default_urn: str | None) -> None:
        urn = finding.urn or default_urn
        source = by_id.get(urn or "")
        subject = source.subject if source else (urn or "account")
        key = (rule.id, subject, finding.message)
        if key in seen:  # the same problem seen through a bucket and its configuration resources
            return
        seen.add(key)
        target = by_id.get(subject, source)
        active, expired = decide(waivers, rule.id, rule.name, subject, today)
        made = AuditFinding(rule, subject, target.type if target else "", target.region if target else "",
                            finding.message, active, expired)
        (result.waived if active else result.findings).append(made)

    for rule in result.rules:
        if rule.scope == "stack":
            for finding in rule.run_stack(ctx):
                record(rule, finding, None)
            continue
        for view in views:
            for finding in rule.run_resource(view, ctx):
                record(rule, finding, view.urn)
    order = {r.id: i for i, r in enumerate(result.rules)}
    result.findings.sort(key=lambda f: (order[f.rule.id], f.region, f.resource))
    result.waived.sort(key=lambda f: (order[f.rule.id], f.region, f.resource))
    return result
