"""Look-alike: a third-party package whose resource names uaenorth."""
# expect: pass

import pulumi

pulumi.CustomResource("azapi:index:Resource", "thing", {"type": "Microsoft.Example/things@2024-01-01",
                                                       "location": "uaenorth", "name": "thing"})
