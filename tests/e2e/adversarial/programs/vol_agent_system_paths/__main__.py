"""Look-alike (volumes): a node agent that reads the node's system trees and logs, read-only."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.apps.v1.DaemonSet("node-agent", metadata={"namespace": "monitoring"}, spec={
    "selector": {"match_labels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
        "containers": [{"name": "agent", "image": f"{ECR}/node-exporter:1.8",
                        "volume_mounts": [{"name": "proc", "mount_path": "/host/proc", "read_only": True},
                                          {"name": "sys", "mount_path": "/host/sys", "read_only": True},
                                          {"name": "root", "mount_path": "/host/root", "read_only": True},
                                          {"name": "logs", "mount_path": "/var/log"}]}],
        "volumes": [{"name": "proc", "host_path": {"path": "/proc"}},
                    {"name": "sys", "host_path": {"path": "/sys"}},
                    {"name": "root", "host_path": {"path": "/"}},
                    {"name": "logs", "host_path": {"path": "/var/log"}}]}}})
