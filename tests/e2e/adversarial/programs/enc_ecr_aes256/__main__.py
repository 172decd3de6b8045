"""Leak: an ECR repository with the default AES256 encryption."""
# expect: aws-storage-datastore-encrypted-cmk images

import pulumi_aws as aws

aws.ecr.Repository("images", image_tag_mutability="IMMUTABLE")
