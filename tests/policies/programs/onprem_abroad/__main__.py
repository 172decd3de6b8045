"""A program whose stack config declares an on-prem site outside the UAE; it creates no cloud resources."""

import pulumi

pulumi.export("sites", pulumi.Config("sahab").require_object("fleet")["sites"])
