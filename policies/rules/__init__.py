"""The rule catalog, grouped per vendor and service. Importing this package registers every rule in
`policies.core.RULES`; nothing else happens at import time."""

from . import (  # noqa: F401  (each module registers its rules)
    aws_compute,
    aws_ebs_account,
    aws_eks,
    aws_kms,
    aws_residency,
    aws_s3,
    azure_platform,
    azure_residency,
    azure_storage,
    cloud_residency,
    data_stores,
    egress,
    exposure,
    hybrid_links,
    kubernetes,
    kubernetes_burst,
    kubernetes_images,
    kubernetes_volumes,
    onprem,
    stores,
    transit,
)
