"""The version of every JSON document the CLI writes (`"schemaVersion"`): bump it when a document's shape changes."""

SCHEMA_VERSION = 2
