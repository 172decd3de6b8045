"""Fleet: one stack's whole fleet, composed from the validated config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import ValidationError
from sahab.components.addons import Target, addons, wanted
from sahab.components.artifacts import Images, read_digest_lock
from sahab.components.checkpoint_build import checkpoint_access, export_access, referenced_access
from sahab.components.egress import storage_destinations
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT, Cluster, FleetConfig, Workload
from sahab.components.kinds import ClusterComponent, build_order
from sahab.components.kinds import get as kind_spec
from sahab.components.kubernetes.platform import Platform, PlatformArgs
from sahab.components.kubernetes.platform_fences import fence_args
from sahab.components.kubernetes.training_job import TrainingJob, TrainingJobArgs, node_shape

if TYPE_CHECKING:
    from sahab.components.cluster_reference import ReferencedCluster
    from sahab.components.hybrid_build import Hybrid
    from sahab.components.kubernetes.cilium import Cilium
    from sahab.components.kubernetes.multikueue import Burst


class Fleet(pulumi.ComponentResource):
    """Composes region-pinned providers, clusters, node pools, storage and the Kubernetes platform.

    Each area comes from its own component module; an area whose component is not part of Sahab yet is
    simply absent from the plan."""

    def __init__(self, name: str, config: FleetConfig, opts: pulumi.ResourceOptions | None = None,
                 digests: dict[str, str] | None = None):
        super().__init__("sahab:index:Fleet", name, None, opts)
        self.fleet_name = name
        self.config = config
        self.exports: dict[str, pulumi.Input] = {
            "environment": config.environment,
            "allowedRegions": list(config.residency.allowed_regions),
        }
        self.tags = {"sahab.io/fleet": config.name, "sahab.io/environment": config.environment,
                     "sahab.io/managed-by": "pulumi"}
        self.node_pools: dict[str, pulumi.ComponentResource] = {}
        self._stack_refs: dict[str, pulumi.StackReference] = {}
        # What each kind's builder made that other parts build on (providers, networks, landing zones), by kind;
        # the kind's module reads it back typed (e.g. components.kinds.eks.state).
        self.kind_state: dict[str, object] = {}
        self.buckets: dict[str, pulumi.ComponentResource] = {}
        # Recorded digests by in-country reference: the program's own stacks/digests.lock (sahab registry pin).
        self.digests = read_digest_lock() if digests is None else dict(digests)
        self.clusters: dict[str, ClusterComponent] = self._clusters()
        self.hybrid = self._hybrid()
        self.registries = self._registries()
        self.k8s_providers: dict[str, k8s.Provider] = {}
        self.platforms: dict[str, Platform] = self._platforms()
        self.autoscalers = self._autoscalers()
        self.checkpoint_stores: dict[str, Any] = {}  # per cluster this stack builds, with the workload enabled
        self.training_jobs: dict[str, TrainingJob] = self._training_jobs()
        self.burst = self._burst()
        self.register_outputs(self.exports)

    # ---- in-country registries ----------------------------------------------------------------------------
    def images(self, kind: str) -> Images:
        """Where a cluster of this kind pulls every chart and image (components.artifacts)."""
        return Images(host=self.config.registries.host_of(kind), digests=self.digests)

    def _registries(self) -> dict[str, pulumi.ComponentResource]:
        """The ECR pull-through cache and the ACR with its cache rules (components.aws.registry,
        components.azure.registry), built where the stack has the cloud and a registry for it."""
        from sahab.components.registry_build import build_registries

        return build_registries(self)

    # ---- the hybrid network -------------------------------------------------------------------------------
    def _hybrid(self) -> Hybrid:
        """The sites' links to the clouds' networks and their ends, DNS forwarders and the deployer's location
        (components.hybrid_build)."""
        from sahab.components.hybrid_build import build_hybrid

        return build_hybrid(self)

    # ---- clusters ---------------------------------------------------------------------------------------
    def _clusters(self) -> dict[str, ClusterComponent]:
        """Cluster components by cluster name. Each exposes `.kubeconfig` (a secret Output), `.kind` and
        `.storage_encryption_id` (EKS: the EBS KMS key ARN; AKS: the Disk Encryption Set id; on-prem: None,
        its volumes are LUKS-encrypted by Ansible). The EKS, AKS and on-prem cluster components fill this.
        Cloud clusters also offer `.region` and `.cluster_name`; a burst stack's clusters come from the owning
        stack (components.cluster_reference) with the same attributes. Each kind's builder (components.kinds)
        makes its own, in the registry's order."""
        return {name: component for spec in build_order() for name, component in spec.build(self).items()}

    # ---- the Kubernetes platform ------------------------------------------------------------------------
    def _platforms(self) -> dict[str, Platform]:
        platforms = {}
        for i, cluster in enumerate(self.config.clusters):
            if cluster.stack_reference:
                continue  # the stack that owns the cluster installs its platform
            component = self.clusters.get(cluster.name)
            provider = self.k8s_providers[cluster.name] = self._kubernetes_provider(cluster, component)
            cni = self._cni(cluster, component, provider) if wanted("cilium", self.addon_target(cluster)) else None
            try:
                platforms[cluster.name] = self._platform(cluster.name, cluster.kind, provider,
                                                         getattr(component, "storage_encryption_id", None), cni)
            except ValidationError as err:
                # A setting the schema allows alone but not together with the cluster's others.
                message = err.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
                raise ConfigError(f"{ROOT}.clusters[{i}]", f"{cluster.name}: {message}") from None
        return platforms

    def _kubernetes_provider(self, cluster: Cluster, component: ClusterComponent | None) -> k8s.Provider:
        """One provider per cluster, from the cluster component's kubeconfig. A cluster this program does not
        build (no component) is reached through the operator's kubeconfig context of the same name."""
        # A cloud cluster's private API answers the deployer only once its site's link is up.
        spec = kind_spec(cluster.kind)
        waits = self.hybrid.deployer_waits_for() if spec.private_api else []
        opts = pulumi.ResourceOptions(parent=self, depends_on=([component] if component is not None else []) + waits
                                      or None)
        if component is not None:
            kubeconfig = component.kubeconfig
            if spec.late_kubeconfig:
                # Empty until kubeadm init has run; never let the provider fall back to the operator's own
                # kubeconfig (another cluster): point it at this cluster's endpoint, with no credentials.
                kubeconfig = pulumi.Output.secret(kubeconfig.apply(
                    lambda text, endpoint=component.endpoint, name=cluster.name:
                    text or credential_less_kubeconfig(name, endpoint)))
            return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", kubeconfig=kubeconfig, opts=opts)
        return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", context=cluster.name, opts=opts)

    def _cni(self, cluster: Cluster, component: ClusterComponent, k8s_provider: k8s.Provider) -> Cilium:
        """On-prem clusters: Cilium, the pod network kubeadm does not bring (components.kubernetes.cilium)."""
        from sahab.components.kubernetes.cilium import Cilium, CiliumArgs

        return Cilium(f"{self.fleet_name}-{cluster.name}-cni", CiliumArgs(
            api_server=component.endpoint, operator_replicas=2 if len(cluster.control_plane_hosts) >= 3 else 1,
            images=self.images(cluster.kind)),
            opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": k8s_provider}))

    def _platform(self, cluster_name: str, kind: str, k8s_provider: k8s.Provider,
                  encryption_id: pulumi.Input[str] | None, cni: Cilium | None = None) -> Platform:
        from sahab.components.kubernetes.cilium import after_cni

        return Platform(
            f"{self.fleet_name}-{cluster_name}-platform",
            PlatformArgs(cluster_kind=kind, pools=self.config.pools_of(cluster_name), encryption_key=encryption_id,
                         monitoring=self.config.monitoring, teams=self.config.workload.teams,
                         cluster_name=cluster_name, images=self.images(kind),
                         kubernetes_version=self.config.cluster(cluster_name).kubernetes_version,
                         fences=fence_args(self.config, self.config.cluster(cluster_name)),
                         object_storage=storage_destinations(self.config, self.config.cluster(cluster_name)),
                         validator_image=self._validator_image(kind)),
            opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": k8s_provider},
                                        transformations=[after_cni(cni)] if cni else None))

    def _validator_image(self, kind: str) -> str | None:
        """Nodes are judged by the platform's validator (the training image, from the cluster kind's registry)
        wherever training Jobs require its verdict."""
        workload = self.config.workload
        return self._workload_for(kind).image if workload.enabled and workload.validate_nodes else None

    # ---- autoscaling ---------------------------------------------------------------------------------------
    def _autoscalers(self) -> dict[str, pulumi.ComponentResource]:
        """The add-ons installed beside the platform (components.addons: cluster-autoscaler on EKS) on every
        cluster this stack creates that gets them."""
        found = {}
        for addon in (a for a in addons().values() if a.build is not None):
            for cluster in self.config.clusters:
                built = addon.build(self, cluster) if not cluster.stack_reference and \
                    addon.wanted(self.addon_target(cluster)) else None
                if built is not None:
                    found[cluster.name] = built
        return found

    def addon_target(self, cluster: Cluster) -> Target:
        """The cluster as the add-on registry decides on it."""
        return Target(kind_spec(cluster.kind), self.config.pools_of(cluster.name), self.config.monitoring.enabled)

    # ---- training ----------------------------------------------------------------------------------------
    def _training_jobs(self) -> dict[str, TrainingJob]:
        """With the workload enabled: one validated training Job per node pool of every cluster with a platform,
        in the workload team's namespace."""
        workload = self.config.workload
        if not workload.enabled:
            return {}
        team = next(t for t in workload.teams if t.name == (workload.team or workload.teams[0].name))
        # A burst worker's pools train through the burst queue instead (_burst), into the same store.
        burst_workers = set(self.config.burst.workers) if self.config.burst else set()
        jobs = {}
        for cluster_name, platform in self.platforms.items():
            access = self.checkpoint_stores[cluster_name] = checkpoint_access(self, cluster_name, team.name)
            if access is not None and cluster_name in self.exports.get("clusters", {}):
                # Burst stacks train on this cluster too, into the same store (components.checkpoint_build).
                self.exports["clusters"][cluster_name]["checkpoints"] = export_access(access)
            if cluster_name in burst_workers:
                continue
            kind_workload = self._workload_for(self.config.cluster(cluster_name).kind)
            for pool in self.config.pools_of(cluster_name):
                if pool.size == 0:
                    continue  # scale-from-zero pools train when they have nodes: launch a Job then
                remote = {} if access is None else {
                    "service_account": access.account, "checkpoint_env": tuple(access.env),
                    "pod_labels": access.pod_labels,
                    "checkpoint_uri": pulumi.Output.concat(access.uri, "/", f"train-{pool.name}")}
                jobs[pool.name] = TrainingJob(f"{self.fleet_name}-{pool.name}-training", TrainingJobArgs(
                    pool=pool, team=team, workload=kind_workload, queue=team.name,
                    storage_class=platform.storage_class, **node_shape(self.config, pool),
                    **remote),
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[platform] + ([access] if access else []),
                                                providers={"kubernetes": self.k8s_providers[cluster_name]}))
        return jobs

    def _workload_for(self, kind: str) -> Workload:
        """The workload settings with the training image in the registry of the cluster kind it runs on."""
        workload = self.config.workload
        image = self.images(kind).own_image(workload.image)
        return workload.model_copy(update={"image": image})

    # ---- burst --------------------------------------------------------------------------------------------
    def _burst(self) -> Burst | None:
        """Burst stacks: MultiKueue from the on-prem manager to the cloud workers this stack adds pools to,
        and (workload enabled) one queued training Job per burst pool, dispatched through the burst queue."""
        burst = self.config.burst
        if burst is None:
            return None
        from sahab.components.cluster_reference import referenced_kubeconfig
        from sahab.components.kubernetes.multikueue import MULTIKUEUE_JOBS, Burst, BurstArgs, BurstWorker, queue_name
        from sahab.components.kubernetes.storage import DEFAULT_CLASS

        manager = self.config.cluster(burst.manager)
        kubeconfig = referenced_kubeconfig(self._stack_ref(manager.stack_reference), manager.stack_reference,
                                           manager.name) if manager.stack_reference else \
            self.clusters[manager.name].kubeconfig
        manager_provider = self.k8s_providers.get(manager.name) or k8s.Provider(
            f"{self.fleet_name}-{manager.name}-k8s", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(parent=self))
        workers = []
        for name in burst.workers:
            cluster, component = self.config.cluster(name), self.clusters[name]
            provider = self.k8s_providers.get(name) or k8s.Provider(
                f"{self.fleet_name}-{name}-k8s", kubeconfig=component.kubeconfig,
                opts=pulumi.ResourceOptions(parent=self))
            self.k8s_providers[name] = provider
            workers.append(BurstWorker(name=name, kind=cluster.kind, region=self.config.region_of(cluster),
                                       provider=provider, kubeconfig=component.kubeconfig,
                                       pools=self.config.pools_of(name)))
        teams = self.config.workload.teams
        dispatch = Burst(f"{self.fleet_name}-burst", BurstArgs(manager=manager_provider, workers=tuple(workers),
                                                               teams=teams,
                                                               rotation_image=self._workload_for(manager.kind).image),
                         opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.node_pools.values())))
        self.exports["burst"] = {"manager": manager.name, "workers": list(burst.workers),
                                 "queues": dispatch.queues}
        workload = self.config.workload
        if not workload.enabled:
            return dispatch
        team = next(t for t in teams if t.name == (workload.team or teams[0].name))
        for worker in workers:
            local = worker.name in self.platforms  # a worker this stack builds has its own platform and store
            validator_image = self._validator_image(worker.kind)
            if validator_image and not local:
                # The pools' validators; the owning stack's platform has the account, rights and policy.
                from sahab.components.kubernetes.node_validator import NodeValidator, NodeValidatorArgs

                NodeValidator(f"{self.fleet_name}-{worker.name}-node-validator", NodeValidatorArgs(
                    image=validator_image, pools=worker.pools, shared=False),
                    opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": worker.provider}))
            # The checkpoint store on that cluster (the schema's burst rule sees that there is one): a burst run
            # survives losing its cloud nodes.
            store = self.checkpoint_stores[worker.name] if local else referenced_access(self.clusters[worker.name])
            for pool in worker.pools:
                self.training_jobs[pool.name] = TrainingJob(
                    f"{self.fleet_name}-{pool.name}-training", TrainingJobArgs(
                        pool=pool, team=team, workload=self._workload_for(worker.kind), queue=queue_name(team),
                        nodes=min(burst.nodes_per_job, pool.max_size), managed_by=MULTIKUEUE_JOBS,
                        **node_shape(self.config, pool),
                        run_on=(worker.provider,), storage_class=DEFAULT_CLASS,
                        service_account=store.account, checkpoint_env=tuple(store.env),
                        pod_labels=store.pod_labels,
                        checkpoint_uri=pulumi.Output.concat(store.uri, "/", f"train-{pool.name}")),
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[dispatch],
                                                providers={"kubernetes": manager_provider}))
        return dispatch

    def _stack_ref(self, ref: str) -> pulumi.StackReference:
        if ref not in self._stack_refs:
            self._stack_refs[ref] = pulumi.StackReference(f"{self.fleet_name}-{ref.rsplit('/', 1)[-1]}-stack",
                                                          stack_name=ref, opts=pulumi.ResourceOptions(parent=self))
        return self._stack_refs[ref]

    # ---- shared -------------------------------------------------------------------------------------------
    def export_cluster(self, name: str, record: dict[str, Any], kubeconfig: pulumi.Output[str]) -> None:
        """Burst stacks read `clusters.<name>` (see components.cluster_reference); kubeconfigs stay secret."""
        self.exports.setdefault("clusters", {})[name] = record
        self.exports.setdefault("kubeconfigs", {})[name] = pulumi.Output.secret(kubeconfig)

    def export_pool(self, pool: str, cluster: str, kind: str, cloud_name: pulumi.Input[str]) -> None:
        self.exports.setdefault("nodePools", {})[pool] = {"cluster": cluster, "kind": kind, "name": cloud_name}

    def referenced(self, cluster: Cluster, provider: pulumi.ProviderResource) -> ReferencedCluster:
        """The cluster the owning stack created, as this stack reads it (components.cluster_reference)."""
        from sahab.components.cluster_reference import ReferencedCluster

        # One StackReference per referenced stack, however many clusters come from it.
        ref = cluster.stack_reference
        azure = self.config.clouds.azure
        return ReferencedCluster(self._stack_ref(ref), ref, cluster.name, cluster.kind, provider=provider,
                                 where=f"{ROOT}.clusters[{self.config.clusters.index(cluster)}]",
                                 kubelogin=azure.kubelogin if azure else "azurecli")


def credential_less_kubeconfig(name: str, endpoint: str) -> str:
    """A kubeconfig that reaches `endpoint` (`host:port`) and authenticates as nobody: requests fail instead of
    going to whatever cluster the operator's own kubeconfig points at. Built by the serializer, never by string
    formatting: a value is a value, whatever it holds."""
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": {"server": f"https://{endpoint}"}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "users": [{"name": name, "user": {}}],
    }, sort_keys=False)
