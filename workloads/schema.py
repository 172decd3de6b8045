"""The version of every JSON document Sahab writes (`"schemaVersion"`), the workload's results included: bump it
when a document's shape changes. It lives here because the workload image carries no `sahab` package;
`sahab.schema` re-exports it, so there is one number."""

SCHEMA_VERSION = 2


def versions() -> dict[str, object]:
    """The two keys every JSON document starts with: its shape's version and the Sahab that wrote it."""
    from .version import version

    return {"schemaVersion": SCHEMA_VERSION, "sahabVersion": version()}
