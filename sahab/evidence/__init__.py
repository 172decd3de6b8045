"""Compliance evidence: one signed, self-contained bundle per stack and release (`sahab evidence`).

A bundle is a folder:

    evidence.json          everything, with `schemaVersion` and `sahabVersion`: provenance, the control matrix,
                           each rule's verdict on each resource, the waiver register, the readiness verdict, the
                           artifact list and, when given, the live audit's findings
    evidence.html          the same as one printable page
    controls.csv           the control matrix, one row per control, rule and resource, for spreadsheets
    audit.json             the live audit's own evidence (`sahab audit aws --evidence FILE`), when merged in
    evidence.intoto.jsonl  an in-toto Statement naming every other file by its SHA-256, in a DSSE envelope
                           signed with the organisation's Ed25519 key

`sahab evidence verify DIR --public-key PUB` is the only judge of a bundle; `sahab evidence diff A B` says what
changed between two.
"""
