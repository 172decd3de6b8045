"""The fleet schema: defaults, derived labels/taints and instance types, and cross-field rules that name the
exact config path of the problem."""

import pytest
from sahab.components.fleet_config import FleetConfig, parse_fleet

from sahab.errors import ConfigError
from tests.conftest import STACKS
from tests.fleets import hybrid_fleet, stack_fleet


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_file_holds_a_valid_fleet(stack):
    fleet = parse_fleet(stack_fleet(stack))
    assert fleet.environment == stack


def test_models_are_frozen_and_forbid_unknown_keys():
    assert FleetConfig.model_config["frozen"] is True
    assert FleetConfig.model_config["extra"] == "forbid"
    fleet = parse_fleet(hybrid_fleet())
    with pytest.raises(Exception, match="frozen"):
        fleet.name = "other"


def test_every_field_documents_its_default():
    """Each field carries a docstring (the schema is the user's reference); pydantic exposes them."""
    from sahab.components import fleet_config as config
    from sahab.components.fleet_config.types import _Model

    models = [m for m in vars(config).values()
              if isinstance(m, type) and issubclass(m, _Model) and m is not _Model]
    assert len(models) >= 14
    undocumented = []
    for model in models:
        for name, field in model.model_fields.items():
            if not field.description or not (field.is_required() or "Default" in field.description):
                undocumented.append(f"{model.__name__}.{name}")
    assert undocumented == []


def test_gpu_pools_get_the_gpu_taint_and_accelerator_labels_cpu_pools_none():
    fleet = parse_fleet(hybrid_fleet())
    gpu, _, cpu = fleet.node_pools
    assert [(t.key, t.value, t.effect) for t in gpu.taints] == [("nvidia.com/gpu", "present", "NoSchedule")]
    assert gpu.node_labels == {"sahab.io/pool": "gpu", "sahab.io/accelerator": "h100", "nvidia.com/gpu.present": "true",
                               "nvidia.com/device-plugin.config": "mig-none"}
    assert cpu.taints == ()
    assert "nvidia.com/gpu.present" not in cpu.node_labels


def test_instance_types_default_from_the_catalog_and_onprem_sizes_follow_hosts():
    fleet = parse_fleet(hybrid_fleet())
    gpu, eks_gpu, cpu = fleet.node_pools
    assert eks_gpu.instance_type == "g5.2xlarge"
    assert cpu.instance_type == "Standard_D8s_v5"
    assert (gpu.min_size, gpu.size, gpu.max_size) == (1, 1, 1)
    assert cpu.size == 2


def _error(mutate) -> ConfigError:
    data = hybrid_fleet()
    mutate(data)
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    return info.value


@pytest.mark.parametrize(("mutate", "path", "says"), [
    (lambda d: d["node_pools"][2].update(max_size=1), "sahab:fleet.node_pools[2].desired_size",
     "min_size <= desired_size <= max_size"),
    (lambda d: d["node_pools"][1].update(instance_type="m6i.large"), "sahab:fleet.node_pools[1].instance_type",
     "carries 'cpu'"),
    (lambda d: d["node_pools"][1].update(accelerator="h100"), "sahab:fleet.node_pools[1].accelerator",
     "not offered in me-central-1"),
    (lambda d: d["clouds"]["aws"].update(region="eu-west-1"), "sahab:fleet.clouds.aws.region",
     "outside the residency list; allowed: me-central-1, uaenorth, uaecentral"),
    (lambda d: d["clouds"]["azure"].update(location="westeurope"), "sahab:fleet.clouds.azure.location",
     "outside the residency list"),
    (lambda d: d["clusters"][2].update(location="northeurope"), "sahab:fleet.clusters[2].location",
     "outside the residency list"),
    (lambda d: d["sites"][0].update(country="DE"), "sahab:fleet.sites[0].country", "outside the residency list"),
    (lambda d: d["node_pools"][0].update(hosts=["nope"]), "sahab:fleet.node_pools[0].hosts[0]",
     "not a host of site auh"),
    (lambda d: d["node_pools"][0].update(cluster="ghost"), "sahab:fleet.node_pools[0].cluster", "not a cluster"),
    (lambda d: d["node_pools"].append(dict(d["node_pools"][0])), "sahab:fleet.node_pools[3].name", "duplicate"),
    (lambda d: d["node_pools"][2].update(mig_strategy="mixed"), "sahab:fleet.node_pools[2].accelerator",
     "GPU pools only"),
    (lambda d: d["storage"]["buckets"][0].update(replicate_to="eu-central-1"),
     "sahab:fleet.storage.buckets[0].replicate_to", "outside the residency list"),
    (lambda d: d["node_pools"][2].update(maxsize=3), "sahab:fleet.node_pools[2].maxsize",
     "unknown key; allowed: name, cluster, accelerator"),
    (lambda d: d["node_pools"][2].update(accelerator="v100"), "sahab:fleet.node_pools[2].accelerator",
     "'h100', 'h200', 'a100', 'l40s', 'a10g', 't4' or 'cpu'"),
    (lambda d: d["node_pools"][2].update(min_size="many"), "sahab:fleet.node_pools[2].min_size", "integer"),
    (lambda d: d.pop("environment"), "sahab:fleet.environment", "required"),
    (lambda d: d["clouds"].pop("aws"), "sahab:fleet.clusters[1].kind", "needs clouds.aws"),
])
def test_bad_fleets_are_refused_naming_the_path_and_what_is_allowed(mutate, path, says):
    err = _error(mutate)
    assert err.path == path
    assert says in err.message


def test_a_region_outside_the_list_is_refused_even_when_the_catalog_sells_gpus_there():
    data = hybrid_fleet()
    data["residency"] = {"allowed_regions": ["uaenorth"]}
    with pytest.raises(ConfigError, match="me-central-1' is outside the residency list; allowed: uaenorth"):
        parse_fleet(data)
