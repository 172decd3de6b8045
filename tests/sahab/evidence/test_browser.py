"""The evidence page holds up in a real browser: Debian's chromium, driven by Playwright (never a browser it
downloads), prints prod's page to an A4 PDF that holds the control table, with every table inside the printable
width. One browser launch. SAHAB_UPDATE_SCREENSHOT=1 also refreshes docs/evidence-report.png for the README."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.sahab.evidence.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = ROOT / "docs" / "evidence-report.png"
# A4 less the page's 12 mm side margins (the template's @page), in CSS pixels (96 per inch).
PRINTABLE_PX = round((210 - 2 * 12) / 25.4 * 96)
A4_POINTS = (595, 842)


@pytest.fixture
def browser(tmp_path, monkeypatch):
    if not CHROMIUM.is_file():
        pytest.skip("Debian's chromium is not installed (make host-deps)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "no-downloaded-browsers"))
    monkeypatch.setenv("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run"])
        try:
            yield launched
        finally:
            launched.close()


def test_the_page_prints_to_a4_with_the_control_table_and_nothing_wider_than_the_page(evidence, browser, tmp_path):
    from pypdf import PdfReader

    prod = evidence.bundle("prod")
    page = browser.new_page(viewport={"width": PRINTABLE_PX, "height": 1100})
    page.goto((prod.folder / "evidence.html").as_uri())
    page.emulate_media(media="print")
    too_wide = page.evaluate("""(limit) => {
        const out = [];
        for (const el of document.querySelectorAll('table, pre, code, h1, h2, h3, p')) {
            const box = el.getBoundingClientRect();
            if (box.right > limit + 0.5 || el.scrollWidth > el.clientWidth + 1)
                out.push(`${el.tagName} ${Math.round(box.right)}px: ${el.textContent.slice(0, 60)}`);
        }
        if (document.documentElement.scrollWidth > limit) out.push(`page ${document.documentElement.scrollWidth}px`);
        return out;
    }""", PRINTABLE_PX)
    assert too_wide == []
    tables = page.evaluate("document.querySelectorAll('table.controls').length")
    assert tables == 4  # one per framework

    pdf = tmp_path / "evidence.pdf"
    page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
    reader = PdfReader(str(pdf))
    assert len(reader.pages) > 3
    for sheet in reader.pages:
        assert (round(float(sheet.mediabox.width)), round(float(sheet.mediabox.height))) == A4_POINTS
    text = "".join("".join(sheet.extract_text().split()) for sheet in reader.pages)  # cells wrap long words
    for expected in ("Control matrix", "ISO/IEC 27001:2022 Annex A", "A.8.24", "Use of cryptography",
                     "UAE Information Assurance Regulation", "Waiver register", "platform-security@example.ae",
                     prod.doc["provenance"]["planSha256"]):
        assert "".join(expected.split()) in text, expected

    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 900, "height": 1150})
    shot = tmp_path / "evidence-report.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("SAHAB_UPDATE_SCREENSHOT"):
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
    assert SCREENSHOT.is_file(), "the README's screenshot: run this test with SAHAB_UPDATE_SCREENSHOT=1"


def test_the_readme_shows_the_page_to_auditors():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Evidence for auditors", 1)[1].split("\n## ", 1)[0]
    assert "](docs/evidence-report.png)" in section and SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for command in ("sahab evidence --stack", "sahab evidence verify", "sahab evidence diff"):
        assert command in section
