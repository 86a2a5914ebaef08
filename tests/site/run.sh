#!/usr/bin/env bash
# The results site checked in headless Chromium (Debian's `chromium`): a quick Fig. 3 run of
# paper 000 (tables and figures), its page and the index of the runs beside it
# (tests/site/check_site.py), then the same check on two damaged copies, which must fail: a
# figure deleted, and a table dropped from the page. Screenshots go to target/site-screenshots/.
#   CAUSEWAY   the binary (default target/debug/causeway, what `make test` builds)
#   CHROMIUM   the browser (default: chromium on the PATH)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=${CAUSEWAY:-target/debug/causeway}
chromium=${CHROMIUM:-$(command -v chromium || true)}
[[ -x $bin ]] || { echo "test-site: no causeway binary at $bin (make test builds it)" >&2; exit 2; }
[[ -n $chromium ]] || { echo "test-site: no chromium (apt-get install chromium)" >&2; exit 2; }
shots=$root/target/site-screenshots
tmp=$(mktemp -d "${TMPDIR:-/tmp}/causeway-site.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" run experiments/wood2006/fig3_k_recovery.yaml --profile quick --local-workers 2 --out "$tmp/runs/fig3"
"$bin" site "$tmp/runs"
python3 tests/site/check_site.py "$chromium" "$tmp/runs/fig3" "$shots"

# Must fail: a figure gone.
cp -r "$tmp/runs/fig3" "$tmp/nofig"
rm "$(ls "$tmp"/nofig/figures/*.svg | head -1)"
if python3 tests/site/check_site.py "$chromium" "$tmp/nofig" "$tmp/shots" > "$tmp/nofig.log"; then
    echo "test-site: a deleted figure went unnoticed" >&2; cat "$tmp/nofig.log" >&2; exit 1
fi
grep FAIL "$tmp/nofig.log"
# Must fail: a table missing from the page (dropped from report.md, the page rewritten).
cp -r "$tmp/runs/fig3" "$tmp/notable"
python3 - "$tmp/notable/tables/report.md" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
sep = next(i for i, l in enumerate(lines) if l.startswith("|---"))
start = sep - 1
end = next(i for i in range(sep, len(lines)) if not lines[i].startswith("|"))
open(p, "w").write("\n".join(lines[:start] + lines[end:]))
PY
"$bin" site "$tmp/notable"
if python3 tests/site/check_site.py "$chromium" "$tmp/notable" "$tmp/shots" > "$tmp/notable.log"; then
    echo "test-site: a missing table went unnoticed" >&2; cat "$tmp/notable.log" >&2; exit 1
fi
grep FAIL "$tmp/notable.log"
echo "test-site: ok (screenshots in $shots)"
