"""Makes the pictures the documentation shows (docs/teaching.md), from the repository's own files and commands:

- docs/utf8-dfa.svg: the minimal DFA of grammars/utf8.abnf, drawn by Graphviz
  (``abnfc dfa grammars/utf8.abnf --format svg``);
- docs/railroad/<rule>.svg: the railroad diagram of every rule of grammars/utf8.abnf
  (``abnfc railroad grammars/utf8.abnf --out docs/railroad``);
- docs/book.png: a screenshot of the grammar book generated/utf8.html in headless Chromium
  (Debian's ``chromium``, driven by Playwright for Python, as tests/test_browser.py does), after
  typing an input with an error into its tester.

Run from the repository root: ``.venv/bin/python docs/make_pictures.py``.  Needs Graphviz and
Chromium (``apt-get install graphviz chromium``) and the test extra (Playwright).  Graphviz and
Chromium draw slightly differently from version to version, so these files are not checked for
freshness; regenerate them when the pictures should change.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BOOK_INPUT = "61 E2 82 AC ED A0 80"  # "a€", then a surrogate's lead bytes: refused at offset 5


def abnfc(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "abnfc", *args], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        sys.exit(f"abnfc {' '.join(args)} failed:\n{result.stderr}")
    return result.stdout


def book_screenshot(target: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("ABNFC_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        sys.exit("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 980, "height": 900}, device_scale_factor=1)
        page.goto((ROOT / "generated" / "utf8.html").as_uri())
        page.wait_for_selector("body[data-ready=true]")
        page.check("#mode-hex")
        page.fill("#input", BOOK_INPUT)
        page.screenshot(path=str(target))
        browser.close()


def main() -> None:
    (DOCS / "utf8-dfa.svg").write_text(abnfc("dfa", "grammars/utf8.abnf", "--format", "svg"), encoding="utf-8")
    print(abnfc("railroad", "grammars/utf8.abnf", "--out", "docs/railroad", "--locale", "en"), end="")
    book_screenshot(DOCS / "book.png")
    print("wrote docs/utf8-dfa.svg and docs/book.png")


if __name__ == "__main__":
    main()
