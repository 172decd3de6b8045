"""On-prem servers in the fleet: Sahab's Ansible (ansible/) run by ansible-runner from `pulumi up`.

cluster.OnPremCluster and node_pool.OnPremNodePool are the components; playbook_run.PlaybookRun is the dynamic
resource that converges; runner is the plain-Python ansible-runner driver; inventory holds the pure planning;
from_config maps the fleet config onto the components' args.
"""
