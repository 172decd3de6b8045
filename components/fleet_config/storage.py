"""Object storage (S3 buckets, Azure storage accounts) and the customer-managed keys that encrypt it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt
from sahab.components.fleet_config.types import Name, _Model


class Bucket(_Model):
    """Object storage for datasets and checkpoints, pinned to the fleet's region."""

    name: Name
    """Unique bucket name (prefixed with the fleet name)."""
    cloud: Literal["aws", "azure"]
    """Which cloud holds it: an S3 bucket or an Azure storage account."""
    purpose: Literal["datasets", "checkpoints", "artifacts", "logs"] = "datasets"
    """What it holds (a tag and the name suffix). Default: datasets."""
    versioning: StrictBool = True
    """Keep object versions. Default: true."""
    geo_redundant: StrictBool = False
    """Azure only: geo-redundant storage (UAE North pairs with UAE Central). Default: false."""
    replicate_to: str | None = None
    """AWS only: replicate objects to this region (must be in the residency list). Default: none."""
    noncurrent_version_days: Annotated[StrictInt, Field(ge=1, le=36_500)] = 90
    """Expire old versions after this many days. Default: 90."""


class KeyPolicy(_Model):
    """Settings of every customer-managed key."""

    rotation_period_days: Annotated[StrictInt, Field(ge=90, le=2560)] = 365
    """KMS key rotation period. Default: 365."""
    deletion_window_days: Annotated[StrictInt, Field(ge=7, le=30)] = 30
    """Waiting period before a deleted key is gone. Default: 30 (the maximum)."""


class Storage(_Model):
    """Object storage and the customer-managed keys that encrypt it."""

    buckets: tuple[Bucket, ...] = ()
    """Buckets/storage accounts. Default: none."""
    keys: KeyPolicy = KeyPolicy()
    """Customer-managed key settings for every key Sahab creates. Default: rotation yearly, 30-day deletion."""
