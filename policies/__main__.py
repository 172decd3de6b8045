"""The CrossGuard entry point: `pulumi preview --policy-pack policies`. It only assembles the pack.

The rules live in importable modules (`policies.rules`, adapted by `policies.pack`); `PolicyPack(...)` starts
the analyzer's gRPC server and never returns, so nothing may follow it."""

import sys
from pathlib import Path

# The CLI runs this file with the pack folder as cwd. In the repository this folder is the `policies` package
# (found through its parent); in the published pack (`make policy-pack`) the package sits beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pulumi_policy import EnforcementLevel, PolicyPack

from policies.pack import PACK_NAME, POLICIES
from policies.waivers import WaiverError, load_waivers

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
