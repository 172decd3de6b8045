"""Leak: a cloud package the pack has never seen, in Frankfurt."""
# expect: cloud-all-resource-region-allowed box

import pulumi

pulumi.CustomResource("digitalocean:index/droplet:Droplet", "box", {"region": "fra1", "size": "s-1vcpu-1gb",
                                                                     "image": "ubuntu-22-04-x64"})
