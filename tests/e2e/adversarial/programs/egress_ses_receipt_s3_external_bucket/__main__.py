"""Leak: an SES receipt rule storing every inbound mail in a bucket this program does not create."""
# expect: cloud-all-resource-references-in-country archive-mail

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
rules = aws.ses.ReceiptRuleSet("inbound", rule_set_name="inbound")
aws.ses.ReceiptRule("archive-mail", name="archive-mail", rule_set_name=rules.rule_set_name,
                    recipients=["support@example.ae"], enabled=True, scan_enabled=True,
                    s3_actions=[{"bucket_name": "partner-mail-archive", "position": 1, "kms_key_arn": key.arn}])
