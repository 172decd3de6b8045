"""The place vocabulary: region codes are recognised by grammar wherever they appear; names, tags and IAM
conditions are not places."""

from __future__ import annotations

import base64
import json

import pytest
from sahab.policies.places import allowed, places_in, places_in_text

ALLOWED = ("me-central-1", "uaenorth", "uaecentral")


@pytest.mark.parametrize(("text", "place"), [
    ("arn:aws:sns:eu-west-1:111122223333:t", "eu-west-1"),
    ("https://s3.eu-west-1.amazonaws.com/b", "eu-west-1"),
    ("com.amazonaws.us-gov-west-1.s3", "us-gov-west-1"),
    ("cn-northwest-1", "cn-northwest-1"),
    ("us-east-1-bos-1a", "us-east-1"),
    ("ap-southeast-7", "ap-southeast-7"),  # a region the pack was never told about
    ("europe-west1-docker.pkg.dev/p/i", "europe-west1"),
    ("me-central1", "me-central1"),  # GCP Doha, not AWS me-central-1
    ("West Europe", "westeurope"),
    ("/subscriptions/s/providers/Microsoft.Compute/locations/westeurope/x", "westeurope"),
    ("westeurope.api.cognitive.microsoft.com", "westeurope"),
])
def test_places_named_in_text(text, place):
    assert place in places_in_text(text)
    assert not allowed(place, ALLOWED)


@pytest.mark.parametrize("text", ["me-central-1a", "UAE North", "com.amazonaws.me-central-1.s3", "uaecentral"])
def test_uae_places_are_allowed(text):
    (place,) = places_in_text(text)
    assert allowed(place, ALLOWED)


def test_scan_reads_documents_and_user_data_but_not_names_tags_or_conditions():
    props = {
        "bucket": "backup-eu-west-1",
        "tags": {"from": "eu-west-1"},
        "policy": json.dumps({"Statement": [{"Effect": "Deny", "Action": "*", "Resource": "*",
                                             "Condition": {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}}]}),
        "containerDefinitions": json.dumps([{"logConfiguration": {"options": {"awslogs-region": "ap-south-1"}}}]),
        "userData": base64.b64encode(b"#!/bin/sh\naws s3 cp /data s3://x --region sa-east-1\n").decode(),
        "locationName": "westeurope",
    }
    found = {place for _, place in places_in(props)}
    assert found == {"ap-south-1", "sa-east-1", "westeurope"}


def test_a_resource_identity_is_not_a_place_but_its_arn_region_and_host_are():
    """Names spelling a region (a log group with slashes, an ARN's resource part, a bucket's virtual host, an ARM
    id's group) name the resource; the ARN's region field, the endpoint's region label and `/locations/` place it."""
    props = {
        "name": "/migrated/eu-west-1/orders",
        "arn": "arn:aws:logs:me-central-1:111122223333:log-group:/migrated/eu-west-1/orders",
        "roleArn": "arn:aws:iam::111122223333:role/replicator-eu-west-1",
        "url": "https://sqs.me-central-1.amazonaws.com/111122223333/orders-from-eu-west-1",
        "bucketRegionalDomainName": "acme-eu-west-1-logs.s3.me-central-1.amazonaws.com",
        "id": "/subscriptions/s/resourceGroups/rg-westeurope/providers/Microsoft.OperationalInsights/workspaces/w",
    }
    assert {place for _, place in places_in(props)} == {"me-central-1"}
    leaks = {
        "deadLetterTargetArn": "arn:aws:sqs:eu-west-1:111122223333:orders-me-central-1",
        "endpoint": "https://logs-me-central-1.s3.eu-west-1.amazonaws.com/x",
        "presigned": "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F20250101%2Fap-south-1%2Fs3%2Faws4_request",
        "scope": "/subscriptions/s/providers/Microsoft.Compute/locations/westeurope/x",
    }
    assert {place for _, place in places_in(leaks)} == {"eu-west-1", "ap-south-1", "westeurope"}


def test_the_name_of_an_entry_of_a_list_of_places_is_that_place():
    """An Incident Manager replication set lists its Regions as `regions[].name`: a name there that is wholly a
    place is the place; one that merely spells a region, or a name outside a list of places, stays a name."""
    props = {"regions": [{"name": "me-central-1"}, {"name": "eu-west-1"}, {"name": "orders-ap-south-1"}],
             "replicas": [{"name": "sa-east-1"}]}
    assert {place for _, place in places_in(props)} == {"me-central-1", "eu-west-1"}
