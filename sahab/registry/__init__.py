"""The in-country registries from the operator's side: a stack's seed list (`sahab registry list`), copying it in
(`sahab registry seed`, with skopeo or crane) and recording what the registry holds (`sahab registry pin`, from the
registry's v2 API, into the stack config folder's digests.lock)."""
