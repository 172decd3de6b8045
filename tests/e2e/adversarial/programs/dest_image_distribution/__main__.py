"""Leak: Image Builder distributes the AMI (and its data) to Frankfurt."""
# expect: cloud-all-resource-references-in-country dist

import pulumi_aws as aws

aws.imagebuilder.DistributionConfiguration("dist", name="dist", distributions=[
    {"region": "me-central-1", "ami_distribution_configuration": {"name": "img-{{ imagebuilder:buildDate }}"}},
    {"region": "eu-central-1", "ami_distribution_configuration": {"name": "img-{{ imagebuilder:buildDate }}"}}])
