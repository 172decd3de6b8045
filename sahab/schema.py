"""The version of every JSON document the CLI writes (`"schemaVersion"`): bump it when a document's shape changes.

Defined in workloads/schema.py, which the workload image carries (it writes bench and training documents and has
no `sahab` package); this is the same number."""

from workloads.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION"]
