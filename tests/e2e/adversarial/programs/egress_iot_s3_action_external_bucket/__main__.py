"""Leak: an IoT rule writing every matching device message into a bucket this program does not create, by name."""
# expect: cloud-all-resource-references-in-country telemetry

import pulumi_aws as aws

aws.iot.TopicRule("telemetry", enabled=True, sql="SELECT * FROM 'devices/+/vitals'", sql_version="2016-03-23",
                  s3=[{"bucket_name": "partner-telemetry-lake", "key": "${topic()}/${timestamp()}",
                       "role_arn": "arn:aws:iam::111122223333:role/iot-s3"}])
