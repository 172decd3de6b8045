"""What a burst stack accepts from the stack that owns a cluster, without Pulumi."""

import pytest
from sahab.components.cluster_reference import REQUIRED_KEYS, cluster_export

from sahab.errors import ConfigError

EKS = {"kind": "eks", **{k: "x" for k in REQUIRED_KEYS["eks"]}}


def test_a_complete_record_is_returned_as_is():
    assert cluster_export({"eks-main": EKS}, "org/sahab/prod", "eks-main", "eks") == EKS


@pytest.mark.parametrize("exports, message", [
    ({}, "exports no cluster 'eks-main'"),
    (None, "exports no cluster 'eks-main'"),
    ({"eks-main": {**EKS, "kind": "aks"}}, "as 'aks', not 'eks'"),
    ({"eks-main": {k: v for k, v in EKS.items() if k != "nodeRoleArn"}}, "without nodeRoleArn"),
])
def test_a_missing_or_wrong_record_names_the_stack_and_what_is_missing(exports, message):
    with pytest.raises(ConfigError, match=message) as err:
        cluster_export(exports, "org/sahab/prod", "eks-main", "eks")
    assert "eks-main" in str(err.value)
