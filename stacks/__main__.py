"""The one Sahab program: `sahab:fleet` -> FleetConfig -> Fleet. Run by `pulumi up -s <stack>`."""

import sys
from pathlib import Path

import pulumi

# Pulumi runs this file with the program folder (stacks/) as cwd; the project root holds the packages.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sahab.components.artifacts import read_digest_lock
from sahab.components.errors import ConfigError
from sahab.components.fleet import Fleet
from sahab.components.fleet_config import load_fleet_config

try:
    config = load_fleet_config()
    # Digests beside the stack files (written by `sahab registry pin`): this program's own, wherever it runs.
    fleet = Fleet(config.name, config, digests=read_digest_lock(Path(__file__).resolve().parent / "digests.lock"))
except ConfigError as err:
    # RunError prints one message, no traceback, under the Pulumi CLI too.
    raise pulumi.RunError(str(err)) from err

for key, value in fleet.exports.items():
    pulumi.export(key, value)
