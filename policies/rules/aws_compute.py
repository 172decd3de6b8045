"""EC2 and EBS: every volume encrypted, instance metadata only through IMDSv2 sessions."""

from __future__ import annotations

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

ENCRYPTION = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.24"))
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"


@rule(id="SAHAB-AWS-012", name="aws-ebs-volume-encrypted",
      title="EBS volumes are encrypted",
      description="Every EBS volume is encrypted at rest.",
      remediation="Set `encrypted=True` (and `kms_key_id` to a customer-managed key) on `aws.ebs.Volume`.",
      severity=Severity.HIGH, frameworks=ENCRYPTION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE,
      types=("aws:ebs/volume:Volume",))
def aws_ebs_encrypted(view: ResourceView, ctx: Context):
    encrypted = lookup(view.props, "encrypted")
    if encrypted is UNKNOWN:
        yield from ctx.still_unknown("`encrypted`")
        return
    if truthy(encrypted):
        return
    yield Finding(f"`encrypted` is {describe(encrypted)}")


def _block_device_problems(view: ResourceView, ctx: Context) -> list[str]:
    devices = items(view.props, "blockDeviceMappings")
    if not devices:
        return ["no `blockDeviceMappings`: instances get the AMI's volumes, encrypted or not"]
    problems = []
    for i, device in enumerate(devices):
        if device is UNKNOWN:
            problems.extend(f.message for f in ctx.still_unknown(f"`blockDeviceMappings[{i}]`"))
            continue
        ebs = lookup(device, "ebs")
        if ebs is MISSING:
            if lookup(device, "virtualName") is MISSING and lookup(device, "noDevice") is MISSING:
                problems.append(f"blockDeviceMappings[{i}] has no `ebs` block, so it is not encrypted")
            continue
        encrypted = lookup(ebs, "encrypted")
        if encrypted is UNKNOWN:
            problems.extend(f.message for f in ctx.still_unknown(f"`blockDeviceMappings[{i}].ebs.encrypted`"))
        elif not truthy(encrypted):
            problems.append(f"blockDeviceMappings[{i}].ebs.encrypted is {describe(encrypted)}")
    return problems


@rule(id="SAHAB-AWS-013", name="aws-ec2-launchtemplate-ebs-encrypted",
      title="Launch-template block devices are encrypted",
      description="Every EBS block device a launch template declares is encrypted, so every node's root and "
                  "data volumes are.",
      remediation="Declare the root device in `block_device_mappings` with `ebs={\"encrypted\": \"true\", "
                  "\"kms_key_id\": key.arn, ...}`.",
      severity=Severity.HIGH, frameworks=ENCRYPTION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE,
      types=(LAUNCH_TEMPLATE,))
def aws_launch_template_encrypted(view: ResourceView, ctx: Context):
    for problem in _block_device_problems(view, ctx):
        yield Finding(problem)


@rule(id="SAHAB-AWS-026", name="aws-ec2-instance-imdsv2-required",
      title="Instances require IMDSv2",
      description="Instances and launch templates require session tokens for the instance metadata service, "
                  "so a request-forgery bug cannot read the node's credentials.",
      remediation="Set `metadata_options={\"http_tokens\": \"required\"}`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.9"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=(INSTANCE, LAUNCH_TEMPLATE))
def aws_imdsv2(view: ResourceView, ctx: Context):
    tokens = lookup(view.props, "metadataOptions", "httpTokens")
    if tokens is UNKNOWN or tokens == "required":
        return
    yield Finding(f"`metadataOptions.httpTokens` is {describe(tokens)}")
