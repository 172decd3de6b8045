"""Leak (direction): a DataSync task copying from this program's location to one in eu-west-1."""
# expect: cloud-all-resource-references-in-country to-eu


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.datasync.Task("to-eu", source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                  destination_location_arn="arn:aws:datasync:eu-west-1:111122223333:location/loc-0b")
