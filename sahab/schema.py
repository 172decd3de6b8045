"""The version of every JSON document the CLI writes (`"schemaVersion"`): bump it when a document's shape changes.

Defined in workloads/schema.py, which the workload image carries (it writes bench and training documents and has
no `sahab` package), with `versions()`, the two keys every document starts with; these are the same."""

from sahab.workloads.schema import SCHEMA_VERSION, versions

__all__ = ["SCHEMA_VERSION", "versions"]
