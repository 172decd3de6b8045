"""The version of every JSON document the CLI writes (`"schemaVersion"`): bump it when a document's shape changes."""

SCHEMA_VERSION = 2


def versions() -> dict[str, object]:
    """The two keys every JSON document the CLI writes starts with: its shape's version and the Sahab that wrote it."""
    from sahab.version import version

    return {"schemaVersion": SCHEMA_VERSION, "sahabVersion": version()}
