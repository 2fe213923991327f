#!/usr/bin/env bash
# gpudoctor diff between two reports of one machine (docs/fleet.md, "Comparing nodes"): the same report twice
# is no change (exit 0); an upgraded driver, a variable set, a result of another status and a result gone are
# each listed (exit 1) in JSON, text and HTML; two host names are refused (exit 2) unless --force; an
# unreadable or missing input is an error that names it (exit 2); a bundle and a snapshot compare as reports.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

h200=$source_dir/tests/machines/nvidia-h200-real/snapshot
"$gpudoctor" check --from "$h200" --format json >"$work/before.json" || fail "check --from the H200 snapshot failed"

"$py" - "$work/before.json" "$work" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
out = sys.argv[2]
after = copy.deepcopy(base)
after["facts"]["drivers"]["nvidia"]["kernel_module_version"]["value"] = "590.10.01"
after["facts"]["environment"]["gpu_variables"]["NCCL_P2P_DISABLE"] = "1"
for x in after["results"]:
    if x["id"] == "driver.nvidia-mismatch":
        x["status"] = "error"
after["results"] = [x for x in after["results"] if x["id"] != "cuda.no-driver"]
json.dump(after, open(f"{out}/after.json", "w"))
other = copy.deepcopy(base)
other["host"]["hostname"] = "another-node"
json.dump(other, open(f"{out}/other.json", "w"))
namesake = copy.deepcopy(base)  # another machine of the same host name: no GPU in common
for g in namesake["facts"]["drivers"]["nvidia"]["smi_gpus"]:
    g["uuid"] = "GPU-99999999-aaaa-bbbb-cccc-dddddddddddd"
json.dump(namesake, open(f"{out}/namesake.json", "w"))
PY

status=0
"$gpudoctor" diff "$work/before.json" "$work/before.json" --format json >"$work/same.json" || status=$?
[[ $status == 0 ]] || fail "the same report twice exited $status, not 0"
expect "$work/same.json" "r['format'] == 'gpudoctor-diff' and not r['changed'] and r['facts'] == [] and r['results'] == []" \
  "the same report twice: nothing changed, exit 0"

status=0
"$gpudoctor" diff "$work/before.json" "$work/after.json" --format json >"$work/d.json" || status=$?
[[ $status == 1 ]] || fail "a changed report exited $status, not 1"
pass "a changed report exits 1"
fact() { echo "[f for f in r['facts'] if f['name'] == '$1'][0]"; }
result() { echo "[x for x in r['results'] if x['id'] == '$1'][0]"; }
expect "$work/d.json" "[$(fact 'NVIDIA kernel module')['before'], $(fact 'NVIDIA kernel module')['after']] == [
  '580.159.04 (open)', '590.10.01 (open)']" "the upgraded driver: before and after"
expect "$work/d.json" "$(fact NCCL_P2P_DISABLE)['before'] is None and $(fact NCCL_P2P_DISABLE)['after'] == '1'" \
  "a variable set since: absent before"
expect "$work/d.json" "$(result driver.nvidia-mismatch)['before'] == 'pass' and $(result driver.nvidia-mismatch)['after'] == 'error'" \
  "a result of another status"
expect "$work/d.json" "$(result cuda.no-driver)['before'] == 'pass' and $(result cuda.no-driver)['after'] is None" \
  "a result gone"
expect "$work/d.json" "len(r['facts']) == 2 and len(r['results']) == 2" "nothing else listed"

"$gpudoctor" diff "$work/before.json" "$work/after.json" --color never >"$work/d.txt" || [[ $? == 1 ]] ||
  fail "diff as text failed"
grep -qF "580.159.04 (open)" "$work/d.txt" && grep -qF "590.10.01 (open)" "$work/d.txt" ||
  fail "the text does not show the driver's two versions: $(cat "$work/d.txt")"
grep -qF "driver.nvidia-mismatch" "$work/d.txt" || fail "the text does not name the changed result"
pass "the text shows the changed fact and result"
"$gpudoctor" diff "$work/before.json" "$work/after.json" --format html -o "$work/d.html" || [[ $? == 1 ]] ||
  fail "diff as HTML failed"
[[ $(head -c 15 "$work/d.html") == '<!DOCTYPE html>' ]] && grep -qF "590.10.01 (open)" "$work/d.html" ||
  fail "the HTML page does not show the new driver"
pass "-o writes the HTML page with the change"

# Another machine: refused, nothing on stdout, unless --force (which says so).
status=0
"$gpudoctor" diff "$work/before.json" "$work/other.json" >"$work/o.out" 2>"$work/o.err" || status=$?
[[ $status == 2 && ! -s $work/o.out ]] || fail "two host names exited $status (not 2) or printed a diff"
grep -qF -- "--force" "$work/o.err" || fail "the refusal does not say how to compare anyway: $(cat "$work/o.err")"
pass "two host names are refused with exit 2, naming --force"
status=0
"$gpudoctor" diff "$work/before.json" "$work/other.json" --force --format json >"$work/f.json" || status=$?
[[ $status == 0 ]] || fail "--force of two identical reports under two names exited $status, not 0"
expect "$work/f.json" "any('another-node\": compared with --force' in n for n in r['notes']) and r['after']['host'] == 'another-node'" \
  "--force compares them and says so"

# Same host name, no NVIDIA GPU UUID in common: two machines of one name, refused unless --force.
status=0
"$gpudoctor" diff "$work/before.json" "$work/namesake.json" >"$work/n.out" 2>"$work/n.err" || status=$?
[[ $status == 2 && ! -s $work/n.out ]] || fail "two machines of one host name exited $status (not 2) or printed a diff"
grep -qF "no NVIDIA GPU in common" "$work/n.err" || fail "the refusal does not say why: $(cat "$work/n.err")"
status=0
"$gpudoctor" diff "$work/before.json" "$work/namesake.json" --force --format json >"$work/n.json" || status=$?
[[ $status == 1 ]] || fail "--force of two machines of one name exited $status, not 1 (a UUID changed)"
expect "$work/n.json" "any('GPU' in n for n in r['notes'])" "two machines of one host name (no GPU UUID in common): refused, --force compares"

# Bad inputs: named, exit 2, no diff printed.
head -c 3000 "$work/before.json" >"$work/broken.json"
echo '{"format": "something else"}' >"$work/alien.json"
for bad in "$work/broken.json" "$work/alien.json" "$work/missing.json"; do
  status=0
  "$gpudoctor" diff "$work/before.json" "$bad" >"$work/b.out" 2>"$work/b.err" || status=$?
  [[ $status == 2 && ! -s $work/b.out ]] || fail "diff with $(basename "$bad") exited $status (not 2) or printed"
  grep -qF "$(basename "$bad")" "$work/b.err" || fail "the error does not name $(basename "$bad"): $(cat "$work/b.err")"
done
pass "a truncated report, a JSON of another format and a missing file: named, exit 2"

# A snapshot folder and a bundle of it with its report: one machine, the same conclusions.
mkdir "$work/bundle"
cp -r "$h200/." "$work/bundle/"
cp "$work/before.json" "$work/bundle/report.json"
tar -czf "$work/bundle.tar.gz" -C "$work/bundle" .
status=0
"$gpudoctor" diff "$h200" "$work/bundle.tar.gz" --format json >"$work/s.json" 2>"$work/s.err" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "diff of a snapshot and a bundle exited $status: $(cat "$work/s.err")"
expect "$work/s.json" "r['results'] == [] and r['before']['host'] == r['after']['host'] == 'vm'" \
  "a snapshot and its bundle: one machine, no result changed"

# An empty value (`-o "$UNSET"`, `diff "$UNSET" b`) is a usage error, not stdout or "no such file".
for args in "$work/before.json $work/after.json -o ''" "'' $work/after.json"; do
  status=0
  eval "\"\$gpudoctor\" diff $args" >"$work/e.out" 2>"$work/e.err" || status=$?
  [[ $status == 2 && ! -s $work/e.out ]] || fail "diff with an empty value ($args) exited $status or printed"
  grep -qF "cannot be empty" "$work/e.err" || fail "diff with an empty value does not say so: $(cat "$work/e.err")"
done
pass "an empty -o or input is refused as a usage error (exit 2), nothing printed"
