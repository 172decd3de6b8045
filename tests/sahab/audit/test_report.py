"""Reports for people: scan errors grouped per missing permission, HTML that escapes what AWS returned."""

from __future__ import annotations

import io

from rich.console import Console

from sahab.audit.evidence import render_html
from sahab.audit.report import render_text


def document(errors, findings=()):
    return {
        "account": "123456789012", "caller": "arn:aws:iam::123456789012:user/auditor",
        "regionsScanned": ["me-central-1"],
        "started": "2026-11-21T21:00:00+00:00", "finished": "2026-11-21T21:00:09+00:00",
        "allowedRegions": ["me-central-1"], "waiversFile": None, "rules": [], "findings": list(findings),
        "waived": [], "errors": errors,
        "summary": {"resources": {"aws:s3/bucket:Bucket": 1000}, "findings": len(findings), "mandatory": 0,
                    "waived": 0, "errors": len(errors), "apiCalls": 1, "passed": not errors},
    }


def denied(bucket):
    return {"service": "s3", "region": "me-central-1", "operation": "GetBucketEncryption", "code": "AccessDenied",
            "message": "Access Denied", "permission": "s3:GetEncryptionConfiguration",
            "missingPermission": "s3:GetEncryptionConfiguration", "resource": bucket}


def test_a_missing_permission_on_every_bucket_is_one_line_naming_it():
    out = io.StringIO()
    render_text(document([denied(f"data-{i}") for i in range(1000)]), Console(file=out, soft_wrap=True))
    lines = [line for line in out.getvalue().splitlines() if "GetBucketEncryption" in line]
    assert lines == ["  s3 GetBucketEncryption on data-0, data-1, data-2 and 997 more: AccessDenied "
                     "(needs s3:GetEncryptionConfiguration) in me-central-1"]
    assert out.getvalue().rstrip().splitlines()[-1].startswith("FAIL: 0 findings")


def test_html_escapes_values_read_from_the_account():
    finding = {"rule": "SAHAB-AWS-010", "severity": "high", "enforcement": "mandatory", "region": "me-central-1",
               "resource": "arn:aws:s3:::x", "message": "bucket '<script>alert(1)</script>': no encryption"}
    html = render_html(document([denied("<b>bucket</b>")], [finding]))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;bucket&lt;/b&gt;" in html
    assert "FAIL" in html and "s3:GetEncryptionConfiguration" in html
