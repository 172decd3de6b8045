"""The fleet schema: everything one stack builds, under the single structured config key `sahab:fleet`.

Every model is frozen and forbids unknown keys; every field documents its default. One module per section
(clouds, sites, clusters, pools, storage, monitoring, workload, the root FleetConfig); the cross-field rules
live in `rules`, the derived defaults in `resolve`, and `load` parses a value (the only module that reads
`pulumi.Config`). A bad fleet is refused before any resource exists with every problem found, each at its exact
config path, e.g. `sahab:fleet.node_pools[2].max_size` (a ConfigError, or ConfigErrors holding several).
"""

from sahab.components.fleet_config.clouds import (
    RESTRICTED_LOCATIONS,
    AwsCloud,
    AzureCloud,
    Clouds,
    MaintenanceWindow,
    Residency,
)
from sahab.components.fleet_config.clusters import AksCluster, Cluster, EksCluster, OnpremCluster
from sahab.components.fleet_config.load import load_fleet_config, parse_fleet, secret_config
from sahab.components.fleet_config.monitoring import Alerting, AlertReceiver, Monitoring
from sahab.components.fleet_config.pools import AKS_SPOT_TAINT, NodePool, Taint
from sahab.components.fleet_config.resolve import vpc_zones
from sahab.components.fleet_config.root import FleetConfig
from sahab.components.fleet_config.sites import Host, HostGpus, ObjectStore, Site, StoreCredentials
from sahab.components.fleet_config.storage import Bucket, KeyPolicy, Storage
from sahab.components.fleet_config.types import ROOT, config_path
from sahab.components.fleet_config.workload import Burst, Team, Workload

__all__ = [
    "AKS_SPOT_TAINT", "RESTRICTED_LOCATIONS", "ROOT", "AksCluster", "AlertReceiver", "Alerting", "AwsCloud",
    "AzureCloud", "Bucket", "Burst", "Clouds", "Cluster", "EksCluster", "FleetConfig", "Host", "HostGpus", "KeyPolicy",
    "MaintenanceWindow", "Monitoring", "NodePool", "ObjectStore", "OnpremCluster", "Residency", "Site", "Storage",
    "StoreCredentials", "Taint", "Team", "Workload", "config_path", "load_fleet_config", "parse_fleet",
    "secret_config", "vpc_zones",
]
