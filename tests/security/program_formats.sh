#!/usr/bin/env bash
# Every output is safe for its reader (docs/security.md, "Outputs"), for the formats other programs read:
# from hostile snapshots (tests/security/hostile_snapshot.py), `--format prometheus` is accepted by promtool
# (Prometheus' own parser and linter), `--format junit` by an XML parser, and `--format npd` is one line of
# at most max_output_length bytes; none holds a control character but the line feed, and the hostile values
# are still there, escaped (the host name in JUnit, a GPU's driver in the metrics).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"

promtool=$(command -v promtool || true)
[[ -n $promtool ]] || skip "promtool is missing (Debian's prometheus package; ./install.sh --test installs it)"

here=$source_dir/tests/security
declare -A bases=([debian]=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot
  [nccl]=$source_dir/tests/machines/nvidia-8gpu-nccl-misconfigured/snapshot)
mapfile -t classes < <("$py" "$here/hostile_snapshot.py" --list-classes)

problems=()
problem() { problems+=("$*"); }
inert() {
  local offence
  offence=$("$py" "$here/inert_check.py" "$1") || problem "${offence:0:600}"
}

runs=0
for base in "${!bases[@]}"; do
  for variant in all "${classes[@]}"; do
    [[ $base == debian || $variant == all ]] || continue
    snap=$work/$base-$variant
    "$py" "$here/hostile_snapshot.py" --classes "$variant" "${bases[$base]}" "$snap" ||
      fail "could not make the hostile snapshot $base/$variant"
    out=$work/out-$base-$variant
    "$gpudoctor" check --from "$snap" --format prometheus >"$out.prom" 2>"$out.prom.err" || true
    "$gpudoctor" check --from "$snap" --format junit --strict >"$out.xml" 2>"$out.xml.err" || true
    "$gpudoctor" check --from "$snap" --format npd >"$out.npd" 2>"$out.npd.err" || true
    runs=$((runs + 1))
    [[ -s $out.prom ]] || problem "$base/$variant: no metrics: $(head -c 300 "$out.prom.err")"
    lint=$("$promtool" check metrics <"$out.prom" 2>&1) || problem "$base/$variant: promtool rejects: ${lint:0:400}"
    [[ -z $lint ]] || problem "$base/$variant: promtool remarks: ${lint:0:400}"
    "$py" -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$out.xml" 2>"$out.xml.bad" ||
      problem "$base/$variant: the JUnit XML does not parse: $(head -c 300 "$out.xml.bad")"
    [[ $(wc -l <"$out.npd") == 1 && $(wc -c <"$out.npd") -le 81 ]] ||
      problem "$base/$variant: the npd message is not one line of at most 80 bytes: $(head -c 300 "$out.npd")"
    for f in "$out".prom* "$out".xml* "$out".npd*; do
      inert "$f"
    done
  done
done

# Escaped, not lost: the hostile host name is in the JUnit report as util/escape's one_line shows it, and a
# hostile driver name in the metrics in that form too, bounded, as a reader of the exposition format reads it.
"$py" - "$work/out-debian-identity.xml" "$work/out-debian-pci.prom" <<'PY' || problem "the hostile values are not there, escaped"
import re, sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
host = suite.get("hostname")
assert host.startswith("sd-vm'\"$(touch CANARY)`touch CANARY`;touch CANARY;|touch CANARY&&touch CANARY\\\\ntouch CANARY\\r\\n"), repr(host)
assert "\\x1b[2J" in host and "\\u202e" in host, repr(host)
text = open(sys.argv[2], encoding="utf-8").read()
# The exposition format's label escapes read back: \\ \" \n.
def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)
drivers = [unescape(v) for v in re.findall(r'gpudoctor_gpu_info\{[^}]*driver="((?:[^"\\]|\\.)*)"', text)]
assert drivers, text[:300]
for d in drivers:
    assert d.startswith("nvidia'\"$(touch CANARY)`touch CANARY`;touch CANARY;|touch CANARY&&touch CANARY\\\\ntouch CANARY\\r\\n"), repr(d)
    assert len(d.encode()) <= 128 and re.search("…#[0-9a-f]{8}$", d), repr(d)
PY

if ((${#problems[@]})); then
  printf '%s\n' "${problems[@]:0:20}" >&2
  fail "${#problems[@]} problems in the program formats of $runs hostile snapshots (the first 20 above)"
fi
pass "prometheus, junit and npd outputs of $runs hostile snapshots: accepted by promtool and an XML parser," \
  "no control character, the hostile values kept escaped"
