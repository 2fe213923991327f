#!/usr/bin/env bash
# The HTML pages of check, fleet and diff in headless Chromium (Debian's package `chromium`; skips without it):
# each page loads with no console message (a blocked script, style or load would be one: the pages have no
# script and their Content-Security-Policy lets nothing load), its text is in the DOM Chromium built, a
# screenshot is taken, is no blank picture and (where tesseract is installed) reads the expected words, and the
# page prints to PDF from its first heading to its footer. Screenshots and PDFs are kept as test artefacts in
# $GPUDOCTOR_TEST_ARTIFACTS (default: test-artifacts/html_pages next to the binary).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || skip "no chromium (apt-get install chromium; install.sh --test installs it where packaged)"
artifacts=${GPUDOCTOR_TEST_ARTIFACTS:-$(dirname "$(realpath "$gpudoctor")")/test-artifacts/html_pages}
mkdir -p "$artifacts"

# A browser of its own for each run: a fresh profile in $work, no sandbox (root has none), nothing fetched
# in the background. The pages are files; nothing listens.
chrome() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --disable-domain-reliability --hide-scrollbars --enable-logging=stderr --log-level=0 "$@"
}

# Pages: a machine's report with its probes (the topology picture), a fleet with an odd one out and a failing
# node, a diff with an upgraded driver; a multi-GPU machine with a failing GPU, and the fleet of every machine
# fixture (each node linked to its own page).
h200=$source_dir/tests/machines/nvidia-h200-real/snapshot
"$gpudoctor" check --from "$h200" --format html >"$work/check.html" || fail "check --format html failed"
"$gpudoctor" check --from "$h200" --format json >"$work/h200.json" || fail "check --format json failed"
"$py" - "$work/h200.json" "$work" <<'PY'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(f"{out}/fleet")
for i in range(1, 6):
    r = copy.deepcopy(base)
    r["host"]["hostname"] = f"node0{i}"
    r["facts"]["drivers"]["nvidia"]["smi_gpus"][0]["uuid"] = f"GPU-0000000{i}-aaaa-bbbb-cccc-dddddddddddd"
    if i == 3:
        r["facts"]["drivers"]["nvidia"]["kernel_module_version"]["value"] = "570.86.15"
    if i == 5:
        for x in r["results"]:
            if x["id"] == "driver.nvidia-mismatch":
                x["status"] = "error"
    json.dump(r, open(f"{out}/fleet/node0{i}.json", "w"))
after = copy.deepcopy(base)
after["facts"]["drivers"]["nvidia"]["kernel_module_version"]["value"] = "590.10.01"
json.dump(after, open(f"{out}/after.json", "w"))
PY
"$gpudoctor" fleet "$work/fleet" --format html -o "$work/fleet.html" 2>/dev/null || [[ $? == 1 ]] ||
  fail "fleet --format html failed"
"$gpudoctor" diff "$work/h200.json" "$work/after.json" --format html -o "$work/diff.html" || [[ $? == 1 ]] ||
  fail "diff --format html failed"

# A multi-GPU machine with a failing GPU: the HGX H200 board (Fabric Manager's version differs from the
# driver's) whose GPU 0000:3a:00.0 fell off the bus this boot.
hgx=$work/hgx
cp -r "$source_dir/tests/machines/nvidia-hgx-h200-fabric-manager-mismatch/snapshot" "$hgx"
echo "[ 4100.000000] NVRM: Xid (PCI:0000:3a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
  >>"$hgx/cmd/2-dmesg.out"
"$gpudoctor" check --from "$hgx" --format html -o "$work/check-hgx.html" || [[ $? == 1 ]] ||
  fail "check --format html of the HGX copy failed"

# The fleet of every machine fixture, each report beside its own page (the fleet page links them).
mkdir -p "$work/all"
for snap in "$source_dir"/tests/machines/*/snapshot; do
  name=$(basename "$(dirname "$snap")")
  "$gpudoctor" check --from "$snap" --format json -o "$work/all/$name.json" 2>/dev/null || [[ $? == 1 ]] ||
    fail "check --from $name failed"
  "$gpudoctor" check --from "$snap" --format html -o "$work/all/$name.html" 2>/dev/null || [[ $? == 1 ]] ||
    fail "check --from $name --format html failed"
done
fixtures=$(find "$work/all" -name '*.json' | wc -l)
((fixtures > 40)) || fail "only $fixtures machine fixtures were judged"
"$gpudoctor" fleet "$work/all" --format html -o "$work/fleet-all.html" 2>/dev/null || [[ $? == 1 ]] ||
  fail "fleet --format html of every fixture failed"

# Every link of a page leads to an element of the page (#id) or to a file beside it (a node's own page).
links_resolve() {
  "$py" - "$1" <<'PY' || fail "$(basename "$1"): a link leads nowhere"
import html.parser, os, sys, urllib.parse
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a":
            self.links.append(a.get("href") or "")
path = sys.argv[1]
page = Page()
page.feed(open(path, encoding="utf-8").read())
ids = set(page.ids)
bad = [i for i in ids if page.ids.count(i) > 1]
inside = outside = 0
for link in page.links:
    if link.startswith("#"):
        inside += 1
        if link[1:] not in ids:
            bad.append(link)
    else:
        outside += 1
        target = os.path.join(os.path.dirname(path), urllib.parse.unquote(link))
        if urllib.parse.urlsplit(link).scheme or not os.path.isfile(target):
            bad.append(link)
if bad or not page.links:
    sys.exit(f"{len(bad)} of {len(page.links)} links lead nowhere or ids repeat: {bad[:5]}")
print(f"{inside} links inside the page, {outside} to pages beside it")
PY
}

# Not blank: a screenshot of a page with text has many colours; an empty one has one or two.
colours() {
  "$py" - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
print(len(set(zlib.decompress(idat))))
PY
}

# page NAME TEXT-IN-THE-DOM WORDS-IN-THE-SCREENSHOT
page() {
  local name=$1 text=$2 words=$3 url="file://$work/$1.html"
  chrome --dump-dom "$url" >"$work/$name.dom" 2>"$work/$name.log" || fail "$name: chromium failed: $(tail -3 "$work/$name.log")"
  if grep -F ':CONSOLE' "$work/$name.log"; then fail "$name: the page logged to the console while loading"; fi
  grep -qF "$text" "$work/$name.dom" || fail "$name: '$text' is not in the page Chromium loaded"
  pass "$name: loads without a console message; '$text' is in its DOM"

  chrome --window-size=1280,1400 --screenshot="$artifacts/$name.png" "$url" >/dev/null 2>&1 ||
    fail "$name: the screenshot failed"
  local n
  n=$(colours "$artifacts/$name.png") || fail "$name: the screenshot is not a PNG"
  ((n > 20)) || fail "$name: the screenshot is blank ($n byte values)"
  if command -v tesseract >/dev/null; then
    tesseract "$artifacts/$name.png" "$work/$name.ocr" >/dev/null 2>&1 || fail "$name: tesseract failed"
    grep -qiF "$words" <<<"$(tr -s ' \n' ' ' <"$work/$name.ocr.txt")" ||
      fail "$name: the screenshot does not read '$words': $(head -c 400 "$work/$name.ocr.txt")"
    pass "$name: screenshot $artifacts/$name.png reads '$words'"
  else
    pass "$name: screenshot $artifacts/$name.png taken, not blank (no tesseract to read it)"
  fi

  chrome --no-pdf-header-footer --print-to-pdf="$artifacts/$name.pdf" "$url" >/dev/null 2>&1 ||
    fail "$name: printing to PDF failed"
  [[ $(head -c 5 "$artifacts/$name.pdf") == '%PDF-' ]] && grep -q '%%EOF' <<<"$(tail -c 32 "$artifacts/$name.pdf")" ||
    fail "$name: the PDF is not whole"
  if command -v pdftotext >/dev/null; then
    pdftotext "$artifacts/$name.pdf" "$work/$name.txt" || fail "$name: pdftotext cannot read the PDF"
    grep -qF "$text" "$work/$name.txt" && grep -qF "Written by gpudoctor" "$work/$name.txt" ||
      fail "$name: the PDF lacks '$text' or the footer"
    pass "$name: prints to PDF ($(pdfinfo "$artifacts/$name.pdf" | awk '/^Pages:/ {print $2}') pages) with its text and footer"
  else
    pass "$name: prints to a whole PDF (no pdftotext to read it)"
  fi
}

page check "No problems found." "No problems found"
page fleet "570.86.15 (open)" "1 node with errors"
page diff "590.10.01 (open)" "Conclusions that changed"
page check-hgx "GPU has fallen off the bus" "GPU health"
page fleet-all "Who fails what, worst first" "Who fails what"

for name in check check-hgx fleet-all; do
  n=$(links_resolve "$work/$name.html") && pass "$name: every link resolves ($n)"
done
# The check page of the failing GPU: its row of the health grid says error in the kernel-log column, and
# each of the page's counters, check ids and fixes is a link.
"$py" - "$work/check-hgx.html" <<'PY' || fail "check-hgx: the health grid or a link is wrong"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
tiles = re.findall(r'<a class="tile-link" href="#status-(\w+)">', page)
assert tiles == ["error", "warn", "info", "pass", "skip"], tiles
ids = set(re.findall(r'<span class="where mono"><a class="id" href="#explain-([^"]+)">', page))
cards = len(re.findall(r'<div class="result \w+" id="r-\d+">', page))
assert cards and len(re.findall(r'<span class="where mono"><a class="id"', page)) == cards, "a card's id is no link"
assert all(f'id="explain-{i}"' in page for i in ids), ids
fixes = set(re.findall(r'<a class="fix-link" href="#fix-([^"]+)">', page))
assert fixes and all(f'id="fix-{f}"' in page for f in fixes), fixes
rows = re.findall(r'<tr id="gpu-(\d+)">(.*?)</tr>', page)
assert len(rows) == 8, len(rows)
errors = [gpu for gpu, row in rows if 'cell error' in row]
assert len(errors) == 1, errors
print("ok")
PY
pass "check-hgx: one GPU's row of the health grid has an error; every card's id and every fix is a link"
