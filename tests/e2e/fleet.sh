#!/usr/bin/env bash
# gpudoctor fleet over reports, snapshot folders and bundles (docs/fleet.md, "Comparing nodes"): a fleet of
# five nodes made from the real H200 report, each odd one out in one way, must be named where it differs;
# the node with an error is named under its check; exit statuses; a folder walked (a JSON file that is no
# report skipped); an unreadable input; a snapshot without report.json judged now; a bundle's report read,
# or judged again with --rejudge; one machine given twice named as a duplicate.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

h200=$source_dir/tests/machines/nvidia-h200-real/snapshot
"$gpudoctor" check --from "$h200" --format json >"$work/h200.json" || fail "check --from the H200 snapshot failed"

"$py" - "$work/h200.json" "$work/fleet" <<'PY'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out)
for i in range(1, 6):
    r = copy.deepcopy(base)
    name = f"node0{i}"
    r["host"]["hostname"] = name
    r["facts"]["drivers"]["nvidia"]["smi_gpus"][0]["uuid"] = f"GPU-0000000{i}-aaaa-bbbb-cccc-dddddddddddd"
    if i == 3:
        r["facts"]["drivers"]["nvidia"]["kernel_module_version"]["value"] = "570.86.15"
    if i == 4:
        r["facts"]["environment"]["gpu_variables"]["NCCL_DEBUG"] = "INFO"
    if i == 5:
        for x in r["results"]:
            if x["id"] == "driver.nvidia-mismatch":
                x["status"] = "error"
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(r, f)
with open(f"{out}/inventory.json", "w") as f:
    json.dump({"not": "a gpudoctor report"}, f)
PY

status=0
"$gpudoctor" fleet "$work/fleet" --format json >"$work/f.json" 2>"$work/f.err" || status=$?
[[ $status == 1 ]] || fail "fleet exited $status, not 1 (node05 has an error): $(cat "$work/f.err")"
pass "fleet exits 1 when a node has an error"
expect "$work/f.json" "r['format'] == 'gpudoctor-fleet' and r['summary']['nodes'] == 5" \
  "five nodes from a folder of reports"
grep -q "1 JSON files in the folders are no gpudoctor reports (skipped)" "$work/f.err" ||
  fail "the JSON file that is no report was not said to be skipped: $(cat "$work/f.err")"
pass "a JSON file that is no report, found in a folder, is skipped and counted"
row() { echo "[p for p in r['properties'] if p['name'] == '$1'][0]"; }
expect "$work/f.json" "$(row 'NVIDIA kernel module')['values'] == [
  {'value': '580.159.04 (open)', 'count': 4, 'majority': True},
  {'value': '570.86.15 (open)', 'count': 1, 'nodes': ['node03']}]" "the odd driver is named: node03"
expect "$work/f.json" "$(row NCCL_DEBUG)['values'] == [
  {'value': None, 'count': 4, 'absent': True, 'majority': True},
  {'value': 'INFO', 'count': 1, 'nodes': ['node04']}]" "a variable set on one node only: node04"
expect "$work/f.json" "not $(row OS)['drifts'] and $(row 'CUDA toolkits')['values'][0]['count'] == 5" \
  "what every node agrees on does not drift"
expect "$work/f.json" "[c['errors'] for c in r['checks'] if c['id'] == 'driver.nvidia-mismatch'][0] == [
  {'node': 'node05', 'subjects': ['']}]" "the node with an error is named under its check"
expect "$work/f.json" "r['checks'][0]['id'] == 'driver.nvidia-mismatch' and r['duplicates'] == []" \
  "checks with error nodes come first; no duplicate"

"$gpudoctor" fleet "$work/fleet" --color never >"$work/f.txt" 2>/dev/null || true
grep -qF "570.86.15 (open) on 1 node: node03" "$work/f.txt" || fail "the text does not name node03: $(cat "$work/f.txt")"
grep -qF "error on 1 of 5 nodes: node05" "$work/f.txt" || fail "the text does not name node05 under its check"
pass "the text names the odd ones out and the failing node"

# --strict: drift alone fails the fleet; without it, a fleet with no error passes.
rm "$work/fleet/node05.json"
status=0
"$gpudoctor" fleet "$work/fleet" >/dev/null 2>&1 || status=$?
[[ $status == 0 ]] || fail "a fleet with drift and no error exited $status, not 0"
status=0
"$gpudoctor" fleet "$work/fleet" --strict >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "with --strict, a fleet with drift exited $status, not 1"
pass "drift exits 0, and 1 with --strict"

# -o: the page is written to the file, nothing to stdout.
"$gpudoctor" fleet "$work/fleet" --format html -o "$work/out/fleet.html" >"$work/stdout" 2>/dev/null ||
  fail "fleet -o failed"
[[ ! -s $work/stdout ]] || fail "fleet -o printed to stdout"
[[ $(head -c 15 "$work/out/fleet.html") == '<!DOCTYPE html>' ]] || fail "fleet -o did not write the page"
pass "-o writes the output to the file"
status=0
"$gpudoctor" fleet "$work/fleet" -o "" >"$work/stdout" 2>"$work/err" || status=$?
[[ $status == 2 && ! -s $work/stdout ]] && grep -qF "cannot be empty" "$work/err" ||
  fail "fleet -o '' exited $status (not 2) or printed: $(cat "$work/err")"
pass "an empty -o is a usage error, not stdout"

# An unreadable input: the others are compared, it is named, exit 2.
head -c 3000 "$work/fleet/node01.json" >"$work/broken.json"
status=0
"$gpudoctor" fleet "$work/fleet" "$work/broken.json" --format json >"$work/b.json" 2>/dev/null || status=$?
[[ $status == 2 ]] || fail "an unreadable report exited $status, not 2"
expect "$work/b.json" "r['summary']['nodes'] == 4 and r['unreadable'][0]['input'].endswith('broken.json')" \
  "an unreadable input is named, the other nodes still compared, exit 2"
status=0
"$gpudoctor" fleet "$work/nothing-here" >/dev/null 2>&1 || status=$?
[[ $status == 2 ]] || fail "fleet of a missing path exited $status, not 2"

# Snapshots and bundles: a snapshot folder without report.json is judged now; a bundle's report.json is
# read, unless --rejudge; the same machine twice is a duplicate.
cp -r "$h200" "$work/snap"
mkdir "$work/bundle"
cp -r "$h200/." "$work/bundle/"
cp "$work/h200.json" "$work/bundle/report.json"
tar -czf "$work/bundle.tar.gz" -C "$work/bundle" .
"$gpudoctor" fleet "$work/snap" "$work/bundle.tar.gz" --format json >"$work/s.json" 2>"$work/s.err" ||
  [[ $? == 1 ]] || fail "fleet of a snapshot and a bundle failed: $(cat "$work/s.err")"
expect "$work/s.json" "[n['origin'] for n in r['nodes']] == ['judged now (no report.json)', 'the bundle\\'s report']" \
  "a snapshot without report.json is judged now; a bundle's report.json is read"
expect "$work/s.json" "r['duplicates'] == [{'host': 'vm', 'kind': 'same machine', 'nodes': ['vm (snap)', 'vm (bundle.tar.gz)']}]" \
  "one machine given twice is named as a duplicate (same GPU UUIDs)"
expect "$work/s.json" "$(row pseudonyms)['values'] == [{'value': 'none', 'count': 2}]" \
  "the pseudonyms' key of a bundle that is not obfuscated: none"
"$gpudoctor" fleet "$work/bundle.tar.gz" --rejudge --format json >"$work/r.json" 2>/dev/null || [[ $? == 1 ]] ||
  fail "fleet --rejudge failed"
expect "$work/r.json" "r['nodes'][0]['origin'] == 'judged now'" "--rejudge judges a bundle now"
