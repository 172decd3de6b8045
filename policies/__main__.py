"""The CrossGuard entry point: `pulumi preview --policy-pack policies`. It only assembles the pack.

The rules live in importable modules (`policies.rules`, adapted by `policies.pack`); `PolicyPack(...)` starts
the analyzer's gRPC server and never returns, so nothing may follow it."""

import sys
from pathlib import Path

# The CLI runs this file with the pack folder as cwd. In the repository this folder is the `policies` package
# (found through its parent); in the published pack (`make policy-pack`) the package sits beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pulumi_policy.policy
import yaml
from pulumi_policy import EnforcementLevel, PolicyPack

from policies.pack import PACK_NAME, POLICIES
from policies.waivers import WaiverError, load_waivers

# The pack's version is PulumiPolicy.yaml's (the file the Pulumi CLI reads, beside this one here and in the
# published pack). pulumi-policy's PolicyPack always tells the engine "0.0.1" (pulumi_policy/policy.py,
# PolicyPack.__init__, 1.21.0), which then names the pack in every violation; the analyzer is told the real one.
PACK_VERSION = str(yaml.safe_load((Path(__file__).resolve().parent / "PulumiPolicy.yaml").read_text())["version"])
_Analyzer = pulumi_policy.policy._PolicyAnalyzerServicer


class _VersionedAnalyzer(_Analyzer):
    def __init__(self, name, _version, *rest):
        super().__init__(name, PACK_VERSION, *rest)


pulumi_policy.policy._PolicyAnalyzerServicer = _VersionedAnalyzer

try:
    load_waivers()  # an invalid waivers file stops the pack before any resource is judged
except WaiverError as err:
    sys.exit(f"error: {err}")

PolicyPack(
    name=PACK_NAME,
    policies=POLICIES,
    enforcement_level=EnforcementLevel.ADVISORY,  # each policy carries its own default level
    description="UAE data residency and encryption: PDPL (Federal Decree-Law 45/2021), Federal Law 2/2019 "
                "art. 13 for health data, ISO 27001 Annex A.",
    display_name="Sahab UAE residency and encryption",
    provider="multi",
    tags=["uae", "residency", "encryption", "pdpl"],
)
