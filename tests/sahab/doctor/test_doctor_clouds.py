"""`sahab doctor`'s clouds area: EC2 offerings and region opt-in from moto's EC2 on loopback, EC2 quotas and Azure
SKUs and usages from loopback stand-ins built from the documented schemas (tests/sahab/doctor/fakes.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sahab.doctor.clouds import EC2_QUOTAS, ec2_class
from tests.sahab.doctor.fakes import ResourceManager, ServiceQuotas, fake_az, sku, usage
from tools.ports import free_port

ROOT = Path(__file__).resolve().parents[3]
SUBSCRIPTION = "3f2c1a7e-5b0d-4c9e-8a61-2d7e9b4f0c15"
# A fresh account's EC2 vCPU quotas in this scenario: 5 standard on-demand vCPUs (the value AWS's CLI guide shows
# for L-1216C47A) and none for GPU instances, on-demand or spot.
FRESH_ACCOUNT = {code: (name, 5.0 if code == "L-1216C47A" else 0.0)
                 for pair in EC2_QUOTAS.values() for code, name in pair}

pytestmark = pytest.mark.moto


@pytest.fixture(scope="module")
def ec2():
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def doctor(stack: str, *endpoints: str, path: str = "/usr/bin:/bin") -> tuple[int, dict[str, dict]]:
    env = {**os.environ, "PATH": path, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "me-central-1"}
    env.pop("AWS_PROFILE", None)
    args = [a for e in endpoints for a in ("--endpoint", e)]
    done = subprocess.run([sys.executable, "-m", "sahab", "doctor", "--stack", stack, "--only", "clouds",
                           "--format", "json", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, {c["name"]: c for c in json.loads(done.stdout)["checks"]}


def test_spot_g_quota_of_a_fresh_account_is_the_gap_of_burst_a10g_naming_the_code(ec2):
    with ServiceQuotas(FRESH_ACCOUNT) as quotas:
        code, found = doctor("burst", f"ec2={ec2}", f"service-quotas={quotas.url}")
    assert code == 1
    spot = found["quota L-3819A6DF"]
    assert spot["status"] == "fail"
    assert "All G and VT Spot Instance Requests: 0 vCPUs" in spot["detail"] and "burst-a10g" in spot["detail"]
    # 16 x g5.12xlarge at 48 vCPUs each (EC2's own figure, from moto's DescribeInstanceTypes)
    assert spot["remedy"] == ("aws service-quotas request-service-quota-increase --service-code ec2 --quota-code "
                              "L-3819A6DF --desired-value 768 --region me-central-1")
    on_demand = found["quota L-DB2E81BA"]  # burst-l40s is on-demand: 8 x g6e.12xlarge
    assert on_demand["status"] == "fail" and "--desired-value 384" in on_demand["remedy"]
    # moto's account has not opted in to me-central-1, as a fresh account has not
    region = found["region me-central-1"]
    assert region["status"] == "fail" and region["remedy"] == "aws account enable-region --region-name me-central-1"
    # The pools' zones sell their types (EC2's offerings by zone ID, served by moto)
    assert found["offerings burst-a10g"]["status"] == "ok" and "mec1-az1" in found["offerings burst-a10g"]["detail"]


def test_quotas_that_hold_the_pools_pass_and_an_applied_value_wins_over_the_default(ec2):
    applied = {**FRESH_ACCOUNT, "L-3819A6DF": (FRESH_ACCOUNT["L-3819A6DF"][0], 1024.0),
               "L-DB2E81BA": (FRESH_ACCOUNT["L-DB2E81BA"][0], 384.0)}
    with ServiceQuotas(applied, defaults=FRESH_ACCOUNT) as quotas:
        _, found = doctor("burst", f"ec2={ec2}", f"service-quotas={quotas.url}")
    assert found["quota L-3819A6DF"]["status"] == "ok" and "1024 vCPUs" in found["quota L-3819A6DF"]["detail"]
    assert found["quota L-DB2E81BA"]["status"] == "ok"


def test_a_pool_placed_in_a_zone_ec2_does_not_sell_its_type_in_is_named_with_the_zones_that_do(ec2, monkeypatch):
    """A pool placed in az2 (as a stack planned against an older snapshot could be) for p5en; EC2 sells it in az1
    and az3."""
    from sahab.doctor import DoctorContext
    from sahab.doctor.clouds import CloudPool, _aws_client, _offered, _offerings

    ctx = DoctorContext(project_dir=ROOT, stack="x", fleet=None, config={}, endpoints={"ec2": ec2})
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    offered = _offerings(_aws_client(ctx, "ec2", "me-central-1"), ["p5en.48xlarge"])
    pool = CloudPool("h200", "sahab:fleet.node_pools[3]", "eks-main", "eks", "me-central-1", "p5en.48xlarge",
                     ("mec1-az2",), 2, False)
    check = _offered("me-central-1", pool, offered)
    assert check.status == "fail" and "sold in mec1-az1, mec1-az3, not in mec1-az2" in check.detail
    assert "sahab:fleet.node_pools[3].zones" in check.remedy


def test_azure_sizes_restricted_for_the_subscription_and_vcpu_limits_are_named(ec2, tmp_path):
    skus = {"uaenorth": [
        sku("Standard_NC40ads_H100_v5", "standardNCadsH100v5Family", 40, "UAENorth", ["1", "2"], [
            {"type": "Location", "values": ["UAENorth"], "restrictionInfo": {"locations": ["UAENorth"]},
             "reasonCode": "NotAvailableForSubscription"}]),
        sku("Standard_D8s_v5", "standardDSv5Family", 8, "UAENorth", ["1", "2", "3"]),
        sku("Standard_D4s_v5", "standardDSv5Family", 4, "UAENorth", ["1", "2", "3"]),
    ]}
    usages = {"uaenorth": [usage("cores", "Total Regional vCPUs", 10, 100),
                           usage("standardDSv5Family", "Standard DSv5 Family vCPUs", 10, 100)]}
    with ResourceManager(SUBSCRIPTION, skus, usages) as arm, ServiceQuotas(FRESH_ACCOUNT) as quotas:
        _, found = doctor("prod", f"ec2={ec2}", f"service-quotas={quotas.url}", f"azure={arm.url}",
                          path=f"{fake_az(tmp_path, SUBSCRIPTION)}:/usr/bin:/bin")
    h100 = found["sku aks-h100"]
    assert h100["status"] == "fail" and "NotAvailableForSubscription" in h100["detail"]
    assert "support request" in h100["remedy"]
    assert found["sku aks-cpu"]["status"] == "ok"
    # aks-h100 (4 x 40), aks-cpu (10 x 8) and the system pool (3 x 4) on top of 10 in use: 262 > 100
    regional = found["quota cores"]
    assert regional["status"] == "fail" and "need 252" in regional["detail"]
    assert "request a limit of 262 for Total Regional vCPUs (cores) in uaenorth" in regional["remedy"]
    family = found["quota standardDSv5Family"]  # 80 + 12 on top of 10: 102 > 100
    assert family["status"] == "fail" and "need 92" in family["detail"]
    assert "request a limit of 102 for Standard DSv5 Family vCPUs" in family["remedy"]
    assert found["quota standardNCadsH100v5Family"]["status"] == "fail"  # no limit listed for the family
    # every request carried the CLI's bearer token
    assert arm.requests and all("/subscriptions/" + SUBSCRIPTION in r for r in arm.requests)


def test_without_an_azure_login_the_gap_is_the_login(monkeypatch):
    import yaml
    from sahab.components.fleet_config import parse_fleet

    from sahab.doctor import DoctorContext
    from sahab.doctor.clouds import _azure_location, cloud_pools

    fleet = parse_fleet(yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]["sahab:fleet"])
    ctx = DoctorContext(project_dir=ROOT, stack="prod", fleet=fleet, config={}, timeout=5)
    monkeypatch.setenv("PATH", "/nonexistent")
    (check,) = list(_azure_location(ctx, "uaenorth", [p for p in cloud_pools(fleet) if p.kind == "aks"]))
    assert check.status == "fail" and "az login" in check.remedy


@pytest.mark.parametrize(("instance_type", "kind"), [
    ("g5.12xlarge", "g"), ("g6e.2xlarge", "g"), ("vt1.3xlarge", "g"), ("p5en.48xlarge", "p"), ("p4d.24xlarge", "p"),
    ("m6i.4xlarge", "standard"), ("c7i.large", "standard"), ("r7i.xlarge", "standard"), ("inf2.xlarge", "inf"),
    ("x2idn.16xlarge", "x"), ("f1.2xlarge", "f"), ("trn1.32xlarge", None), ("dl1.24xlarge", None),
    ("u-6tb1.metal", None), ("hpc7g.4xlarge", None),
])
def test_instance_types_map_to_their_vcpu_quota_class(instance_type, kind):
    assert ec2_class(instance_type) == kind
