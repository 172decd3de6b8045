"""Leak: a Google Cloud bucket; GCP has no region in the UAE (me-central1 is Doha)."""
# expect: cloud-all-resource-region-allowed data

import pulumi

pulumi.CustomResource("gcp:storage/bucket:Bucket", "data", {"location": "ME-CENTRAL1", "name": "data"})
