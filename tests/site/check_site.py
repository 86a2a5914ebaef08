"""The results site in a real browser: headless Chromium loads a run's page (and the index of
the runs beside it), and the DOM it built must hold every table of the run (as many as the
run's tables/*.md and cost.md hold), every figure as an image that loaded, links and anchors
that resolve, and no console message. A screenshot of each page is saved.

    python tests/site/check_site.py CHROMIUM RUN_DIR SCREENSHOT_DIR

Exit 0 when every check passes, 1 otherwise (each failure printed).
"""
import html.parser
import pathlib
import subprocess
import sys
import urllib.parse

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--allow-file-access-from-files", "--virtual-time-budget=5000"]


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.images, self.links, self.ids, self.body = 0, [], [], set(), {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self.tables += 1
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "body":
            self.body = a


def md_tables(path: pathlib.Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if line.startswith("|---") or line.startswith("| ---"))


def load(chromium: str, page: pathlib.Path, shot: pathlib.Path):
    url = page.resolve().as_uri()
    dom = subprocess.run([chromium, *FLAGS, "--enable-logging=stderr", "--v=0", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    subprocess.run([chromium, *FLAGS, f"--screenshot={shot}", "--window-size=1400,1600", url],
                   capture_output=True, text=True, timeout=120)
    parsed = Dom()
    parsed.feed(dom.stdout)
    console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    return parsed, console


def check_page(chromium, page, shot, expected_tables, figures):
    errors = []
    dom, console = load(chromium, page, shot)
    if dom.tables != expected_tables:
        errors.append(f"{page}: {dom.tables} tables in the page, {expected_tables} in the run's files")
    for f in figures:
        if f"figures/{f}" not in dom.images:
            errors.append(f"{page}: figure {f} not shown")
    broken = dom.body.get("data-broken-images")
    if broken != "0":
        errors.append(f"{page}: images that did not load: {broken} (page script ran: {broken is not None})")
    for href in dom.links:
        parts = urllib.parse.urlsplit(href)
        if parts.scheme in ("http", "https"):
            errors.append(f"{page}: link to the network: {href}")
        elif not parts.scheme and parts.path:
            if not (page.parent / urllib.parse.unquote(parts.path)).exists():
                errors.append(f"{page}: broken link {href}")
        elif href.startswith("#") and href[1:] not in dom.ids:
            errors.append(f"{page}: anchor {href} has no target")
    errors += [f"{page}: console: {c}" for c in console]
    print(f"{page}: {dom.tables} tables, {len(dom.images)} images, {len(dom.links)} links, "
          f"{len(console)} console messages; screenshot {shot}")
    return errors


def main(chromium: str, run_dir: str, shots: str) -> int:
    run = pathlib.Path(run_dir)
    out = pathlib.Path(shots)
    out.mkdir(parents=True, exist_ok=True)
    tables = [p for p in sorted((run / "tables").glob("*.md")) if p.name != "report.md"]
    expected = sum(md_tables(p) for p in tables) + md_tables(run / "cost.md")
    figures = sorted(p.name for p in (run / "figures").glob("*.svg"))
    errors = check_page(chromium, run / "index.html", out / "run.png", expected, figures)
    index = run.parent / "index.html"
    if index.exists():
        errors += check_page(chromium, index, out / "index.png", 1, [])
    for e in errors:
        print("FAIL", e)
    print(f"{len(errors)} failures")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
