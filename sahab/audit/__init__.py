"""Live audit of a deployed AWS account against the policy pack's rules.

`scanner` reads every enabled region read-only with boto3 (one module per service under `services/`),
`adapters` turn live API shapes into the same resource views the policy rules see at preview time,
`evaluate` runs the pack's rules and waivers over them, and `evidence` writes the compliance record.
"""
