"""Fleet: one stack's whole fleet, composed from the validated config."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import ValidationError

from components.artifacts import Images, read_digest_lock
from components.checkpoint_build import checkpoint_access, export_access, referenced_access
from components.egress import storage_destinations
from components.errors import ConfigError
from components.fleet_config import ROOT, Cluster, FleetConfig, secret_config
from components.kubernetes.platform import Platform, PlatformArgs
from components.kubernetes.platform_fences import fence_args
from components.kubernetes.training_job import TrainingJob, TrainingJobArgs, node_shape


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
        self.node_pools: dict[str, Any] = {}
        self._stack_refs: dict[str, pulumi.StackReference] = {}
        self._aws_providers: dict[str, Any] = {}
        self._aws_account_id: Any = None
        self._azure_provider: Any = None
        self.buckets: dict[str, Any] = {}
        # Recorded digests by in-country reference: the program's own stacks/digests.lock (sahab registry pin).
        self.digests = read_digest_lock() if digests is None else dict(digests)
        self._azure_zones: dict[str, Any] = {}
        self._aws_networks: dict[str, Any] = {}
        self.clusters: dict[str, Any] = self._clusters()
        self.hybrid = self._hybrid()
        self.registries = self._registries()
        self.k8s_providers: dict[str, k8s.Provider] = {}
        self.platforms: dict[str, Platform] = self._platforms()
        self.autoscalers = self._autoscalers()
        self.training_jobs: dict[str, TrainingJob] = self._training_jobs()
        self.burst = self._burst()
        self.register_outputs(self.exports)

    # ---- in-country registries ----------------------------------------------------------------------------
    def images(self, kind: str) -> Images:
        """Where a cluster of this kind pulls every chart and image (components.artifacts)."""
        return Images(host=self.config.registries.host_of(kind), digests=self.digests)

    def _registries(self) -> dict[str, Any]:
        """The ECR pull-through cache and the ACR with its cache rules (components.aws.registry,
        components.azure.registry), built where the stack has the cloud and a registry for it."""
        from components.registry_build import build_registries

        return build_registries(self)

    # ---- the hybrid network -------------------------------------------------------------------------------
    def _hybrid(self) -> Any:
        """The sites' links to the clouds' networks and their ends, DNS forwarders and the deployer's location
        (components.hybrid_build)."""
        from components.hybrid_build import build_hybrid

        return build_hybrid(self)

    # ---- clusters ---------------------------------------------------------------------------------------
    def _clusters(self) -> dict[str, Any]:
        """Cluster components by cluster name. Each exposes `.kubeconfig` (a secret Output), `.kind` and
        `.storage_encryption_id` (EKS: the EBS KMS key ARN; AKS: the Disk Encryption Set id; on-prem: None,
        its volumes are LUKS-encrypted by Ansible). The EKS, AKS and on-prem cluster components fill this.
        Cloud clusters also offer `.region` and `.cluster_name`; a burst stack's clusters come from the owning
        stack (components.cluster_reference) with the same attributes."""
        return {**self._onprem(), **self._aws(), **self._azure()}

    # ---- the Kubernetes platform ------------------------------------------------------------------------
    def _platforms(self) -> dict[str, Platform]:
        platforms = {}
        for i, cluster in enumerate(self.config.clusters):
            if cluster.stack_reference:
                continue  # the stack that owns the cluster installs its platform
            component = self.clusters.get(cluster.name)
            provider = self.k8s_providers[cluster.name] = self._kubernetes_provider(cluster, component)
            cni = self._cni(cluster, component, provider) if cluster.kind == "onprem" else None
            try:
                platforms[cluster.name] = self._platform(cluster.name, cluster.kind, provider,
                                                         getattr(component, "storage_encryption_id", None), cni)
            except ValidationError as err:
                # A setting the schema allows alone but not together with the cluster's others.
                message = err.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
                raise ConfigError(f"{ROOT}.clusters[{i}]", f"{cluster.name}: {message}") from None
        return platforms

    def _kubernetes_provider(self, cluster: Cluster, component: Any | None) -> k8s.Provider:
        """One provider per cluster, from the cluster component's kubeconfig. A cluster this program does not
        build (no component) is reached through the operator's kubeconfig context of the same name."""
        # A cloud cluster's private API answers the deployer only once its site's link is up.
        waits = self.hybrid.deployer_waits_for() if cluster.kind != "onprem" else []
        opts = pulumi.ResourceOptions(parent=self, depends_on=([component] if component is not None else []) + waits
                                      or None)
        if component is not None:
            kubeconfig = component.kubeconfig
            if cluster.kind == "onprem":
                # Empty until kubeadm init has run; never let the provider fall back to the operator's own
                # kubeconfig (another cluster): point it at this cluster's endpoint, with no credentials.
                kubeconfig = pulumi.Output.secret(kubeconfig.apply(
                    lambda text, endpoint=component.endpoint, name=cluster.name:
                    text or credential_less_kubeconfig(name, endpoint)))
            return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", kubeconfig=kubeconfig, opts=opts)
        return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", context=cluster.name, opts=opts)

    def _cni(self, cluster: Cluster, component: Any, k8s_provider: k8s.Provider) -> Any:
        """On-prem clusters: Cilium, the pod network kubeadm does not bring (components.kubernetes.cilium)."""
        from components.kubernetes.cilium import Cilium, CiliumArgs

        return Cilium(f"{self.fleet_name}-{cluster.name}-cni", CiliumArgs(
            api_server=component.endpoint, operator_replicas=2 if len(cluster.control_plane_hosts) >= 3 else 1,
            images=self.images("onprem")),
            opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": k8s_provider}))

    def _platform(self, cluster_name: str, kind: str, k8s_provider: k8s.Provider,
                  encryption_id: pulumi.Input[str] | None, cni: Any = None) -> Platform:
        from components.kubernetes.cilium import after_cni

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
    def _autoscalers(self) -> dict[str, Any]:
        """cluster-autoscaler on every EKS cluster this stack creates: its pools autoscale, and burst stacks add
        scale-from-zero groups to it that the autoscaler discovers by tag. (AKS runs its own.)"""
        from components.aws.cluster_autoscaler import ClusterAutoscaler, ClusterAutoscalerArgs
        from components.aws.eks_cluster import EksCluster
        from components.kubernetes.placement import system_placement

        found = {}
        for cluster in self.config.clusters:
            eks, region = self.clusters.get(cluster.name), self.config.region_of(cluster)
            if not isinstance(eks, EksCluster):
                continue  # not an EKS cluster this stack creates
            found[cluster.name] = ClusterAutoscaler(f"{self.fleet_name}-{cluster.name}-autoscaler",
                ClusterAutoscalerArgs(
                    cluster_name=eks.cluster_name, region=region, account_id=self._aws_account_id,
                    oidc_provider_arn=eks.oidc_provider_arn, oidc_issuer=eks.oidc_issuer,
                    kubernetes_version=cluster.kubernetes_version,
                    placement=system_placement(self.config.pools_of(cluster.name)), tags=self.tags,
                    images=self.images("eks")),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.platforms[cluster.name]], providers={
                    "aws": self._aws_providers[region], "kubernetes": self.k8s_providers[cluster.name]}))
        return found

    # ---- training ----------------------------------------------------------------------------------------
    def _training_jobs(self) -> dict[str, TrainingJob]:
        """With the workload enabled: one validated training Job per node pool of every cluster with a platform,
        in the workload team's namespace."""
        workload = self.config.workload
        if not workload.enabled:
            return {}
        team = next(t for t in workload.teams if t.name == (workload.team or workload.teams[0].name))
        jobs = {}
        for cluster_name, platform in self.platforms.items():
            access = checkpoint_access(self, cluster_name, team.name)
            if access is not None and cluster_name in self.exports.get("clusters", {}):
                # Burst stacks train on this cluster too, into the same store (components.checkpoint_build).
                self.exports["clusters"][cluster_name]["checkpoints"] = export_access(access)
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

    def _workload_for(self, kind: str) -> Any:
        """The workload settings with the training image in the registry of the cluster kind it runs on."""
        workload = self.config.workload
        image = self.images(kind).own_image(workload.image)
        return workload.model_copy(update={"image": image})

    # ---- burst --------------------------------------------------------------------------------------------
    def _burst(self) -> Any:
        """Burst stacks: MultiKueue from the on-prem manager to the cloud workers this stack adds pools to,
        and (workload enabled) one queued training Job per burst pool, dispatched through the burst queue."""
        burst = self.config.burst
        if burst is None:
            return None
        from components.cluster_reference import referenced_kubeconfig
        from components.kubernetes.multikueue import MULTIKUEUE_JOBS, Burst, BurstArgs, BurstWorker, queue_name
        from components.kubernetes.storage import DEFAULT_CLASS

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
            validator_image = self._validator_image(worker.kind)
            if validator_image:
                # The pools' validators; the owning stack's platform has the account, rights and policy.
                from components.kubernetes.node_validator import NodeValidator, NodeValidatorArgs

                NodeValidator(f"{self.fleet_name}-{worker.name}-node-validator", NodeValidatorArgs(
                    image=validator_image, pools=worker.pools, shared=False),
                    opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": worker.provider}))
            # The owning stack's checkpoint store on that cluster: a burst run survives losing its cloud nodes.
            store = referenced_access(self.clusters[worker.name])
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
    def _export_cluster(self, name: str, record: dict[str, Any], kubeconfig: pulumi.Output[str]) -> None:
        """Burst stacks read `clusters.<name>` (see components.cluster_reference); kubeconfigs stay secret."""
        self.exports.setdefault("clusters", {})[name] = record
        self.exports.setdefault("kubeconfigs", {})[name] = pulumi.Output.secret(kubeconfig)

    def _export_pool(self, pool: str, cluster: str, kind: str, cloud_name: pulumi.Input[str]) -> None:
        self.exports.setdefault("nodePools", {})[pool] = {"cluster": cluster, "kind": kind, "name": cloud_name}

    def _referenced(self, cluster: Cluster, provider: pulumi.ProviderResource) -> Any:
        from components.cluster_reference import ReferencedCluster

        # One StackReference per referenced stack, however many clusters come from it.
        ref = cluster.stack_reference
        azure = self.config.clouds.azure
        return ReferencedCluster(self._stack_ref(ref), ref, cluster.name, cluster.kind, provider=provider,
                                 where=f"{ROOT}.clusters[{self.config.clusters.index(cluster)}]",
                                 kubelogin=azure.kubelogin if azure else "azurecli")

    # ---- on-prem -----------------------------------------------------------------------------------------
    def _onprem(self) -> dict[str, Any]:
        """kubeadm clusters on the sites' servers and their node pools, converged by Ansible. The SSH key is the
        site's secret setting when the stack has one, else the operator's ssh-agent."""
        from components.onprem.cluster import OnPremCluster
        from components.onprem.from_config import cluster_args, pool_args
        from components.onprem.node_pool import OnPremNodePool

        built: dict[str, Any] = {}
        for cluster in (c for c in self.config.clusters if c.kind == "onprem" and not c.stack_reference):
            key = secret_config(self.config.site(cluster.site).ssh_private_key_secret)
            control_plane = OnPremCluster(f"{self.fleet_name}-{cluster.name}", cluster_args(self.config, cluster, key,
                                                                                  digests=self.digests),
                                          opts=pulumi.ResourceOptions(parent=self))
            built[cluster.name] = control_plane
            for pool in self.config.pools_of(cluster.name):
                self.node_pools[pool.name] = OnPremNodePool(
                    f"{self.fleet_name}-{pool.name}", pool_args(self.config, pool, key, control_plane.data_volume_keys,
                                                    digests=self.digests),
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[control_plane]))
                self._export_pool(pool.name, cluster.name, "onprem", pool.name)
            self.exports.setdefault("onpremClusters", {})[cluster.name] = {
                "site": cluster.site, "endpoint": control_plane.endpoint, "failedHosts": control_plane.failed_hosts}
            self.exports.setdefault("kubeconfigs", {})[cluster.name] = control_plane.kubeconfig
        return built

    # ---- AWS ---------------------------------------------------------------------------------------------
    def _aws(self) -> dict[str, Any]:
        """EKS clusters (created, or referenced from the owning stack) with their node groups, and S3 buckets,
        all under one explicit provider per Region."""
        cfg, cloud = self.config, self.config.clouds.aws
        clusters = [c for c in cfg.clusters if c.kind == "eks"]
        buckets = [b for b in cfg.storage.buckets if b.cloud == "aws"]
        if cloud is None or not (clusters or buckets):
            return {}
        import pulumi_aws as aws

        from components.aws.bucket import S3Bucket, S3BucketArgs
        from components.aws.eks_cluster import EksCluster, EksClusterArgs
        from components.aws.network import Network, NetworkArgs
        from components.aws.node_group import EksNodeGroup, EksNodeGroupArgs
        from components.hybrid_build import site_cidrs

        regions = sorted({cfg.region_of(c) for c in clusters} | ({cloud.region} if buckets else set()))
        providers = {region: aws.Provider(
            f"{self.fleet_name}-aws-{region}", region=region,
            allowed_account_ids=[cloud.account_id] if cloud.account_id else None,
            default_tags=aws.ProviderDefaultTagsArgs(tags=self.tags),
            opts=pulumi.ResourceOptions(parent=self)) for region in regions}

        self._aws_providers = providers

        def under(region: str) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, providers=[providers[region]])

        created = [c for c in clusters if not c.stack_reference]
        account_id = cloud.account_id
        if created and account_id is None:  # key policies name the account
            account_id = aws.get_caller_identity_output(
                opts=pulumi.InvokeOutputOptions(provider=providers[cfg.region_of(created[0])])).account_id
        self._aws_account_id = account_id
        # Buckets first: the VPC endpoints let through to them and nowhere else.
        for bucket in buckets:
            s3 = S3Bucket(f"{self.fleet_name}-{bucket.name}", S3BucketArgs(
                bucket=bucket, allowed_regions=cfg.residency.allowed_regions, keys=cfg.storage.keys),
                opts=under(cloud.region))
            self.buckets[bucket.name] = s3
            self.exports.setdefault("buckets", {})[bucket.name] = {
                "cloud": "aws", "region": cloud.region, "bucketName": s3.bucket_name, "arn": s3.arn,
                "kmsKeyArn": s3.kms_key_arn}
        networks: dict[str, Network] = {}
        from components.fleet_config import vpc_zones

        for region in sorted({cfg.region_of(c) for c in created}):
            networks[region] = Network(f"{self.fleet_name}-{region}", NetworkArgs(
                region=region, cidr=cloud.vpc_cidr, az_count=cloud.az_count, zone_ids=vpc_zones(cfg, region),
                account_id=account_id,
                nat_gateway=not cloud.airgapped, keys=cfg.storage.keys,
                bucket_arns=tuple(s3.arn for s3 in self.buckets.values() if cloud.region == region),
                hybrid_hub=cloud.hybrid_hub if site_cidrs(cfg, "aws") else None, site_cidrs=site_cidrs(cfg, "aws")),
                opts=under(region))
        self._aws_networks = networks

        built: dict[str, Any] = {}
        for cluster in clusters:
            region = cfg.region_of(cluster)
            pools = cfg.pools_of(cluster.name)
            if cluster.stack_reference:
                eks = self._referenced(cluster, providers[region])
                # The owning stack runs the cluster and its add-ons; this one only adds node groups.
                groups = {pool.name: EksNodeGroup(f"{self.fleet_name}-{pool.name}", EksNodeGroupArgs(
                    pool=pool, region=region, cluster_name=eks.cluster_name, node_role_arn=eks.node_role_arn,
                    subnet_ids=eks.subnet_ids, subnets_by_zone=eks.get_optional("subnetIdsByZone"),
                    ebs_kms_key_arn=eks.ebs_kms_key_arn, cluster_security_group_id=eks.get_optional(
                        "clusterSecurityGroupId"), vpc_id=eks.get_optional("vpcId"),
                    kubernetes_version=cluster.kubernetes_version, tags=self.tags),
                    opts=under(region)) for pool in pools}
            else:
                network = networks[region]
                subnets = network.private_subnet_ids
                eks = EksCluster(f"{self.fleet_name}-{cluster.name}", EksClusterArgs(
                    cluster_name=f"{self.fleet_name}-{cluster.name}", region=region, account_id=account_id,
                    subnet_ids=subnets, subnets_by_zone=network.private_subnets_by_zone, vpc_id=network.vpc_id,
                    admin_principals=cloud.admin_principals, kubernetes_version=cluster.kubernetes_version,
                    public_endpoint=cluster.public_endpoint, public_access_cidrs=cluster.public_endpoint_cidrs,
                    security_group_ids=tuple(networks[region].api_security_group_ids),
                    keys=cfg.storage.keys, pools=pools, tags=self.tags),
                    # Nodes join through the endpoints (the only way out of an air-gapped VPC).
                    opts=pulumi.ResourceOptions.merge(under(region), pulumi.ResourceOptions(
                        depends_on=[networks[region].endpoints])))
                groups = eks.node_groups
                self._export_cluster(cluster.name, {
                    "kind": "eks", "region": region, "clusterName": eks.cluster_name, "endpoint": eks.endpoint,
                    "certificateAuthority": eks.certificate_authority, "nodeRoleArn": eks.node_role_arn,
                    "subnetIds": subnets, "subnetIdsByZone": network.private_subnets_by_zone,
                    "vpcId": network.vpc_id, "clusterSecurityGroupId": eks.cluster_security_group_id,
                    "ebsKmsKeyArn": eks.ebs_kms_key_arn,
                    "secretsKmsKeyArn": eks.secrets_kms_key_arn, "oidcProviderArn": eks.oidc_provider_arn,
                }, eks.kubeconfig)
            built[cluster.name] = eks
            for pool_name, group in groups.items():
                self.node_pools[pool_name] = group
                self._export_pool(pool_name, cluster.name, "eks", group.node_group_name)

        return built

    # ---- Azure -------------------------------------------------------------------------------------------
    def _azure(self) -> dict[str, Any]:
        """AKS clusters (created, or referenced) with their pools, and storage accounts, one landing zone
        (resource group, VNet, Key Vault) per location."""
        cfg, cloud = self.config, self.config.clouds.azure
        clusters = [c for c in cfg.clusters if c.kind == "aks"]
        buckets = [b for b in cfg.storage.buckets if b.cloud == "azure"]
        if cloud is None or not (clusters or buckets):
            return {}
        import pulumi_azure_native as azure_native

        from components.azure import plan
        from components.azure.aks_cluster import AksCluster, AksClusterArgs
        from components.azure.landing_zone import LandingZone, LandingZoneArgs
        from components.azure.node_pool import AksNodePool, AksNodePoolArgs
        from components.azure.storage_account import AzureStorage, AzureStorageArgs
        from components.hybrid_build import site_cidrs
        from components.pool_plan import aks_pool_names

        provider = azure_native.Provider(f"{self.fleet_name}-azure", location=cloud.location,
                                         subscription_id=cloud.subscription_id,
                                         opts=pulumi.ResourceOptions(parent=self))
        self._azure_provider = provider
        under = pulumi.ResourceOptions(parent=self, providers=[provider])
        created = [c for c in clusters if not c.stack_reference]
        locations = sorted({cfg.region_of(c) for c in created} | ({cloud.location} if buckets else set()))
        zones: dict[str, LandingZone] = {}
        client = azure_native.authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(provider=provider))
        deployer = client.object_id  # the identity running `pulumi up`: it administers the clusters it creates
        # A person signs in with the Azure CLI; CI and runners as workload identities, service principals, MSIs.
        deployer_type = "User" if cloud.kubelogin == "azurecli" else "ServicePrincipal"
        if locations:
            tenant = client.tenant_id
            unique = (pulumi.get_project(), pulumi.get_stack(), cloud.subscription_id or "")
            for location in locations:
                zones[location] = LandingZone(f"{self.fleet_name}-{location}", LandingZoneArgs(
                    location=location, tenant_id=tenant, vnet_cidr=cloud.vnet_cidr,
                    vault_name=plan.key_vault_name(f"{self.fleet_name}-{location}", *unique),
                    clusters=tuple(c.name for c in created if cfg.region_of(c) == location),
                    hybrid=bool(site_cidrs(cfg, "azure")), site_cidrs=site_cidrs(cfg, "azure"),
                    tags=self.tags), opts=under)
        self._azure_zones = zones

        built: dict[str, Any] = {}
        for cluster in clusters:
            location = cfg.region_of(cluster)
            if cluster.stack_reference:
                aks = self._referenced(cluster, provider)
                rg, subnet = aks.resource_group_name, aks.subnet_id
            else:
                zone = zones[location]
                rg, subnet = zone.resource_group_name, zone.subnet_ids[cluster.name]
                aks = AksCluster(f"{self.fleet_name}-{cluster.name}", AksClusterArgs(
                    cluster_name=f"{self.fleet_name}-{cluster.name}", location=location, resource_group_name=rg,
                    subnet_id=subnet, api_server_subnet_id=zone.api_server_subnet_ids[cluster.name],
                    admin_principal_ids=((deployer, deployer_type), *((g, "Group") for g in cloud.admin_group_ids)),
                    kubelogin=cloud.kubelogin,
                    maintenance=cloud.gpu_maintenance, vault_id=zone.vault_id, vault_name=zone.vault_name,
                    kubernetes_version=cluster.kubernetes_version, public_endpoint=cluster.public_endpoint,
                    authorized_ip_ranges=cluster.public_endpoint_cidrs, keys=cfg.storage.keys, tags=self.tags,
                    control_plane_log_retention_days=cfg.clouds.azure.control_plane_log_retention_days,
                    control_plane_logs_cmk_gb_per_day=cfg.clouds.azure.control_plane_logs_cmk_gb_per_day), opts=under)
                self._export_cluster(cluster.name, {
                    "kind": "aks", "location": location, "clusterName": aks.cluster_name,
                    "resourceGroupName": aks.resource_group_name, "fqdn": aks.fqdn, "subnetId": aks.subnet_id,
                    "diskEncryptionSetId": aks.disk_encryption_set_id,
                }, aks.kubeconfig)
            built[cluster.name] = aks
            pools = cfg.pools_of(cluster.name)
            names = aks_pool_names([p.name for p in pools])
            for pool in pools:
                self.node_pools[pool.name] = AksNodePool(f"{self.fleet_name}-{pool.name}", AksNodePoolArgs(
                    pool=pool, location=location, resource_group_name=rg, cluster_name=aks.cluster_name,
                    subnet_id=subnet, agent_pool_name=names[pool.name], tags=self.tags), opts=under)
                self._export_pool(pool.name, cluster.name, "aks", names[pool.name])

        for bucket in buckets:
            zone = zones[cloud.location]
            account = AzureStorage(f"{self.fleet_name}-{bucket.name}", AzureStorageArgs(
                bucket=bucket, location=cloud.location, resource_group_name=zone.resource_group_name,
                account_name=plan.storage_account_name(f"{self.fleet_name}{bucket.name}", pulumi.get_project(),
                                                       pulumi.get_stack(), cloud.subscription_id or ""),
                vault_name=zone.vault_name, vault_uri=zone.vault_uri,
                allowed_locations=cfg.residency.allowed_regions, subnet_ids=tuple(zone.subnet_ids.values()),
                private_endpoints={where: (lz.private_endpoint_subnet_id, lz.dns_zone_ids["blob"])
                                   for where, lz in zones.items()},
                keys=cfg.storage.keys, tags=self.tags), opts=under)
            self.buckets[bucket.name] = account
            self.exports.setdefault("buckets", {})[bucket.name] = {
                "cloud": "azure", "location": cloud.location, "accountName": account.account_name,
                "containerName": account.container_name, "keyId": account.key_id}
        return built


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
