"""What prod and burst plan on the clouds: pools in zones that sell their types (readiness.pools, against moto's
copy of EC2's data), the EFA fabric for eks-l40s, one owner per GPU layer, cluster admins, AKS Secrets under KMS,
a maintenance window, an unattended kubeconfig, and the smaller items of issue 37."""

import base64
import gzip
import json
from pathlib import Path

import pytest
import yaml
from sahab.components import pool_plan
from sahab.components.azure.aks_cluster import AKS_SERVER_APP_ID, non_interactive_kubeconfig
from sahab.components.fleet_config import NodePool, parse_fleet
from sahab.components.kubernetes.kueue import CLOUD_PODS_READY_TIMEOUT
from sahab.components.registry_plan import seed_list

from sahab.readiness import judge
from tests.fleets import stack_fleet

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
RELEASE = "kubernetes:helm.sh/v3:Release"


def moto_offerings(region: str) -> dict[str, set[str]]:
    """EC2's offerings by zone ID as moto 5.x ships them (its copy of AWS's data), read from the package itself."""
    import moto

    folder = Path(moto.__file__).parent / "ec2" / "resources" / "instance_type_offerings" / "availability-zone-id"
    with gzip.open(folder / f"{region}.json.gz") as data:
        found: dict[str, set[str]] = {}
        for offering in json.load(data):
            found.setdefault(offering["InstanceType"], set()).add(offering["Location"])
    return found


@pytest.fixture(scope="module")
def prod_ready(prod):
    return judge(prod.resources)


@pytest.fixture(scope="module")
def burst_ready(burst, prod):
    return judge(burst.resources, prod.resources)


def by_pool(readiness) -> dict[str, dict]:
    return {p.pool: p.contract() for p in readiness.pools}


@pytest.mark.parametrize("stack", ["prod", "burst"])
def test_every_eks_node_group_is_in_zones_that_sell_its_types_per_moto(stack, prod_ready, burst_ready):
    readiness = prod_ready if stack == "prod" else burst_ready
    assert readiness.ok, readiness.problems
    sold = moto_offerings("me-central-1")
    eks = [p for p in by_pool(readiness).values() if p["cloud"] == "aws"]
    assert eks
    for pool in eks:
        assert pool["zones"], pool
        for instance_type in pool["instance_types"]:
            assert set(pool["zones"]) <= sold[instance_type], pool


def test_readiness_pools_name_every_cloud_pool_with_zone_ids(prod_ready, burst_ready):
    prod = by_pool(prod_ready)
    assert set(prod) == {"eks-cpu", "eks-l40s", "system", "aks-cpu", "aks-h100"}
    assert prod["eks-l40s"] == {"cluster": "sahab-eks-main", "pool": "eks-l40s", "cloud": "aws",
                                "region": "me-central-1", "instance_types": ["g6e.12xlarge"], "zones": ["mec1-az1"]}
    assert prod["eks-cpu"]["zones"] == ["mec1-az1", "mec1-az2", "mec1-az3"]
    assert prod["aks-h100"]["region"] == "uaenorth" and prod["aks-h100"]["cloud"] == "azure"
    burst = by_pool(burst_ready)
    assert set(burst) == {"burst-a10g", "burst-l40s", "burst-h100"}  # prod's pools are prod's to report
    assert burst["burst-a10g"]["zones"] == ["mec1-az1"]


def test_a_program_that_puts_a_node_group_where_its_type_is_not_sold_is_not_ready():
    from sahab.engine import PlannedResource

    def res(urn, type_, inputs, **kw):
        return PlannedResource(urn=urn, type=type_, name=urn, parent=None, provider=None, inputs=inputs, **kw)

    subnet = res("sn", "aws:ec2/subnet:Subnet", {"availabilityZoneId": "mec1-az3", "region": "me-central-1"})
    cluster = res("c", "aws:eks/cluster:Cluster", {"name": "c", "region": "me-central-1"})
    group = res("ng", NODE_GROUP, {"clusterName": "c", "instanceTypes": ["g5.xlarge"], "region": "me-central-1",
                                   "scalingConfig": {"minSize": 1, "maxSize": 1, "desiredSize": 1},
                                   "labels": {"sahab.io/pool": "gpu"}},
                property_dependencies={"subnetIds": ["sn"], "clusterName": ["c"]})
    readiness = judge([subnet, cluster, group])
    (problem,) = [p for p in readiness.problems if "not sold" in p.problem]
    assert problem.object == "node group gpu"
    assert problem.problem.startswith("g5.xlarge is not sold in mec1-az3 (sold in mec1-az1, mec1-az2")
    assert by_pool(readiness)["gpu"]["zones"] == ["mec1-az3"]


# ---- the fabric ----------------------------------------------------------------------------------------------
def node_group(planned, pool):
    return next(g for g in planned.of(NODE_GROUP) if g.inputs["labels"]["sahab.io/pool"] == pool)


def template_of(planned, group):
    return planned.by_id(TEMPLATE, group.inputs["launchTemplate"]["id"])


def test_eks_l40s_has_efa_interfaces_a_placement_group_hugepages_and_one_zone(prod):
    group = node_group(prod, "eks-l40s")
    template = template_of(prod, group)
    (nic,) = template.inputs["networkInterfaces"]  # g6e.12xlarge: one EFA, one network card (EC2's data)
    assert nic["interfaceType"] == "efa" and nic["deviceIndex"] == 0 and nic["networkCardIndex"] == 0
    cluster = prod.one("aws:eks/cluster:Cluster")
    assert nic["securityGroups"] == [cluster.outputs["vpcConfig"]["clusterSecurityGroupId"]]
    group_name = template.inputs["placement"]["groupName"]
    (placement,) = [p for p in prod.of("aws:ec2/placementGroup:PlacementGroup") if p.outputs.get("name") == group_name
                    or p.inputs.get("name") == group_name or p.id == group_name]
    assert placement.inputs["strategy"] == "cluster"
    script = base64.b64decode(template.inputs["userData"]).decode()
    assert "sysctl -w vm.nr_hugepages=2560" in script and "text/x-shellscript" in script
    assert len(group.inputs["subnetIds"]) == 1
    assert group.inputs["labels"]["sahab.io/efa"] == "true"
    cpu_template = template_of(prod, node_group(prod, "eks-cpu"))
    assert "networkInterfaces" not in cpu_template.inputs and "placement" not in cpu_template.inputs


def test_the_efa_device_plugin_runs_on_efa_nodes_from_the_in_country_registry(prod):
    (plugin,) = [r for r in prod.of(RELEASE) if r.inputs.get("name") == "aws-efa-k8s-device-plugin"]
    assert plugin.inputs["chart"] == "oci://111122223333.dkr.ecr.me-central-1.amazonaws.com/charts/" \
                                     "aws-efa-k8s-device-plugin"
    assert plugin.inputs["version"] == "v0.5.30"
    values = plugin.inputs["values"]
    assert values["image"]["repository"] == ("111122223333.dkr.ecr.me-central-1.amazonaws.com/ecr-public/eks/"
                                              "aws-efa-k8s-device-plugin")
    assert values["nodeSelector"] == {"sahab.io/efa": "true"}
    rules = prod.of("aws:ecr/pullThroughCacheRule:PullThroughCacheRule")
    assert any(r.inputs["upstreamRegistryUrl"] == "public.ecr.aws" for r in rules)


def test_training_pods_on_efa_pools_ask_for_the_devices_and_hugepages(prod):
    job = next(j for j in prod.of("kubernetes:batch/v1:Job") if j.inputs["metadata"]["name"] == "train-eks-l40s")
    container = job.inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["vpc.amazonaws.com/efa"] == "1"
    assert container["resources"]["limits"]["hugepages-2Mi"] == "5120Mi"
    assert {"name": "FI_PROVIDER", "value": "efa"} in container["env"]
    cpu = next(j for j in prod.of("kubernetes:batch/v1:Job") if j.inputs["metadata"]["name"] == "train-eks-cpu")
    assert "vpc.amazonaws.com/efa" not in cpu.inputs["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]


def test_p5en_gets_one_efa_per_network_card_as_eksctl_lays_them_out():
    pool = NodePool(name="h200", cluster="c", accelerator="h200", instance_type="p5en.48xlarge", max_size=2,
                    gpus_per_node=8)
    layout = pool_plan.efa_layout(pool, "p5en.48xlarge")
    assert len(layout.interfaces) == 16 and layout.per_pod == 16
    assert layout.interfaces[0] == pool_plan.Nic(0, 0)
    assert all(nic == pool_plan.Nic(1, card) for card, nic in enumerate(layout.interfaces) if card)
    tags = pool_plan.autoscaler_node_template_tags(pool, efa=layout)
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/vpc.amazonaws.com/efa"] == "16"
    assert pool_plan.efa_layout(pool.model_copy(update={"max_size": 1}), "p5en.48xlarge") is None  # one node
    assert pool_plan.efa_layout(pool.model_copy(update={"efa": False}), "p5en.48xlarge") is None


def test_before_133_an_efa_node_group_gets_its_own_self_referencing_security_group():
    assert pool_plan.efa_needs_own_security_group("1.32") and not pool_plan.efa_needs_own_security_group("1.33")
    from sahab.components.aws.node_group import EksNodeGroup, EksNodeGroupArgs

    from tests.helpers import record

    pool = NodePool(name="l40s", cluster="c", accelerator="l40s", instance_type="g6e.12xlarge", max_size=2,
                    zones=("mec1-az1",))
    planned = record(lambda: EksNodeGroup("ng", EksNodeGroupArgs(
        pool=pool, region="me-central-1", cluster_name="c", node_role_arn="r", subnets_by_zone={"mec1-az1": "s-1"},
        ebs_kms_key_arn="k", cluster_security_group_id="sg-cluster", vpc_id="vpc-1", kubernetes_version="1.32")))
    group = planned.one("aws:ec2/securityGroup:SecurityGroup")
    rules = planned.of("aws:ec2/securityGroupRule:SecurityGroupRule")
    assert {r.inputs["type"] for r in rules} == {"ingress", "egress"}
    assert all(r.inputs["protocol"] == "-1" and r.inputs["sourceSecurityGroupId"] == group.id for r in rules)
    (nic,) = planned.one(TEMPLATE).inputs["networkInterfaces"]
    assert nic["securityGroups"] == ["sg-cluster", group.id]


# ---- one owner per layer of the GPU stack --------------------------------------------------------------------
def test_on_eks_the_operator_leaves_the_driver_and_toolkit_to_the_ami(prod):
    operators = {r.name: r.inputs["values"] for r in prod.of(RELEASE) if r.inputs.get("name") == "gpu-operator"}
    eks = next(v for n, v in operators.items() if "eks-main" in n)
    aks = next(v for n, v in operators.items() if "aks-main" in n)
    assert eks["driver"]["enabled"] is False and eks["toolkit"]["enabled"] is False
    assert aks["driver"]["enabled"] is True and aks["toolkit"]["enabled"] is True  # gpuProfile.driver: None there


def test_the_seed_list_names_no_driver_image_for_an_eks_only_fleet():
    images = {(e.cluster_kind, e.source.split(":")[0]) for e in seed_list(parse_fleet(stack_fleet("prod")))}
    assert ("eks", "nvcr.io/nvidia/driver") not in images and ("eks", "nvcr.io/nvidia/k8s/container-toolkit") \
        not in images
    assert ("aks", "nvcr.io/nvidia/driver") in images  # the operator installs it on AKS's Ubuntu nodes
    assert ("eks", "public.ecr.aws/eks/aws-efa-k8s-device-plugin") in images


# ---- who may use the clusters ---------------------------------------------------------------------------------
def test_admin_principals_get_eks_access_entries_with_cluster_admin(prod):
    fleet = stack_fleet("prod")
    (arn,) = fleet["clouds"]["aws"]["admin_principals"]
    (entry,) = prod.of("aws:eks/accessEntry:AccessEntry")
    assert entry.inputs["principalArn"] == arn and entry.inputs["type"] == "STANDARD"
    (policy,) = prod.of("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert policy.inputs["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert policy.inputs["accessScope"] == {"type": "cluster"}


def test_the_deployer_and_admin_groups_get_aks_rbac_cluster_admin(prod):
    cluster = prod.one("azure-native:containerservice:ManagedCluster")
    admins = [r for r in prod.of("azure-native:authorization:RoleAssignment") if r.inputs["scope"] == cluster.id]
    assert admins and all(r.inputs["roleDefinitionId"].endswith("/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b")
                          for r in admins)
    kinds = {r.inputs["principalType"] for r in admins}
    assert "User" in kinds  # the deployer, signed in with the Azure CLI
    groups = stack_fleet("prod")["clouds"]["azure"].get("admin_group_ids", [])
    assert {r.inputs["principalId"] for r in admins if r.inputs["principalType"] == "Group"} == set(groups)


def test_the_aks_kubeconfig_signs_in_without_a_prompt():
    fetched = yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "users": [{"name": "u", "user": {"exec": {
        "command": "kubelogin", "args": ["get-token", "--login", "devicecode", "--server-id", AKS_SERVER_APP_ID,
                                         "--client-id", "80faf920-1908-4b52-b5ef-a8e7bedfc67a"]}}}]})
    for mode in ("azurecli", "workloadidentity", "spn"):
        user = yaml.safe_load(non_interactive_kubeconfig(fetched, mode))["users"][0]["user"]["exec"]
        assert user["args"] == ["get-token", "--login", mode, "--server-id", AKS_SERVER_APP_ID]
        assert user["interactiveMode"] == "Never" and "devicecode" not in user["args"]


def test_a_kubelogin_mode_that_prompts_is_not_accepted():
    fleet = stack_fleet("prod")
    fleet["clouds"]["azure"]["kubelogin"] = "devicecode"
    with pytest.raises(Exception, match="kubelogin"):
        parse_fleet(fleet)


# ---- AKS: Secrets under KMS, maintenance window --------------------------------------------------------------
def test_aks_secrets_are_encrypted_by_kms_with_the_private_vault(prod):
    cluster = prod.one("azure-native:containerservice:ManagedCluster")
    kms = cluster.inputs["securityProfile"]["azureKeyVaultKms"]
    vault = prod.one("azure-native:keyvault:Vault")
    assert kms["enabled"] is True and kms["keyVaultNetworkAccess"] == "Private"
    assert kms["keyVaultResourceId"] == vault.id
    key = next(k for k in prod.of("azure-native:keyvault:Key") if "kms-key" in k.name)
    assert kms["keyId"] == key.outputs["keyUriWithVersion"]
    assert sorted(key.inputs["properties"]["keyOps"]) == ["decrypt", "encrypt"]
    access = cluster.inputs["apiServerAccessProfile"]
    assert access["enableVnetIntegration"] is True and access["subnetId"].endswith("/subnets/apiserver-aks-main")
    vnet = prod.one("azure-native:network:VirtualNetwork")
    subnet = next(s for s in vnet.inputs["subnets"] if s["name"] == "apiserver-aks-main")
    assert subnet["delegations"][0]["serviceName"] == "Microsoft.ContainerService/managedClusters"
    roles = {r.inputs["roleDefinitionId"].rsplit("/", 1)[-1]
             for r in prod.of("azure-native:authorization:RoleAssignment") if r.inputs["scope"] in (key.id, vault.id)}
    assert {"12338af0-0e69-4776-bea7-57ae8d297424", "f25e0fa2-a7c8-4377-a976-54943a77a395"} <= roles


def test_aks_upgrades_and_node_images_wait_for_the_maintenance_window(prod):
    configs = {c.inputs["configName"]: c.inputs["maintenanceWindow"]
               for c in prod.of("azure-native:containerservice:MaintenanceConfiguration")}
    assert set(configs) == {"aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"}
    for window in configs.values():
        assert window["schedule"] == {"weekly": {"dayOfWeek": "Friday", "intervalWeeks": 1}}
        assert window["durationHours"] == 8 and window["startTime"] == "00:00"


# ---- smaller items ------------------------------------------------------------------------------------------
def test_eks_gpu_nodes_carry_the_accelerator_label_cluster_autoscaler_reads(prod):
    gpu = node_group(prod, "eks-l40s")
    assert gpu.inputs["labels"]["k8s.amazonaws.com/accelerator"] == "nvidia-l40s"
    assert "k8s.amazonaws.com/accelerator" not in node_group(prod, "eks-cpu").inputs["labels"]
    tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in prod.of("aws:autoscaling/tag:Tag")}
    assert tags["k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator"] == "nvidia-l40s"


def test_kueue_waits_long_enough_for_a_cold_cloud_gpu_node(prod):
    configs = {}
    for release in prod.of(RELEASE):
        if release.inputs.get("name") == "kueue":
            config = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
            configs[release.name] = config
    cloud = [c for n, c in configs.items() if "eks-main" in n or "aks-main" in n]
    onprem = [c for n, c in configs.items() if "onprem" in n]
    assert cloud and onprem
    assert all(c["waitForPodsReady"]["timeout"] == CLOUD_PODS_READY_TIMEOUT == "30m" for c in cloud)
    assert all(c["waitForPodsReady"]["timeout"] == "10m" for c in onprem)
    assert all(c["resources"]["excludeResourcePrefixes"] == ["vpc.amazonaws.com/efa", "hugepages-"]
               for c in configs.values())


def test_efa_pods_do_not_fit_where_no_efa_device_plugin_runs(prod):
    """Readiness counts a node's EFA devices only once AWS's plugin runs on the cluster, as the kubelet would."""
    plugin = "aws-efa-k8s-device-plugin"
    without = [r for r in prod.resources if not (r.type == RELEASE and r.inputs.get("name") == plugin)]
    problems = [p for p in judge(without).problems if p.object == "Job research/train-eks-l40s"]
    assert problems and "asks 1 vpc.amazonaws.com/efa, a node has 0" in problems[0].problem
