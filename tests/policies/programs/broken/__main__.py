"""A program with a bug: `sahab check` must say where, in one line, and exit 2."""

import pulumi_aws as aws

aws.s3.Bucket("b", no_such_argument=True)
