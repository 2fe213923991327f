#!/usr/bin/env bash
# gpudoctor bundle records the live run; check --from the bundle gives the same results; secrets never
# reach the archive.
source "$(dirname "$0")/common.bash"
secret="hf_e2e$RANDOM$RANDOM"
export HF_TOKEN=$secret
export HTTPS_PROXY="http://proxyuser:pr0xy$RANDOM@proxy.invalid:3128"
proxy_password=${HTTPS_PROXY#*:*:}
proxy_password=${proxy_password%@*}
export HSA_OVERRIDE_GFX_VERSION=10.3.0   # a GPU-related variable: kept as is
"$gpudoctor" check --format json >"$work/live.json" || true
"$gpudoctor" bundle -o "$work/bundle.tar.gz" >/dev/null 2>"$work/bundle.err" || fail "bundle failed: $(cat "$work/bundle.err")"
[[ -s $work/bundle.tar.gz ]] || fail "no bundle written"
pass "bundle written ($(stat -c %s "$work/bundle.tar.gz") bytes)"
"$gpudoctor" check --from "$work/bundle.tar.gz" --format json >"$work/replay.json" || true

same=$("$py" - "$work/live.json" "$work/replay.json" <<'PY'
import json, sys
live, replay = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(x['id'], x['subject'], x['status'], x['message'], x['evidence'], x['fixes']) for x in r['results']]
if key(live) != key(replay):
    for a, b in zip(key(live), key(replay)):
        if a != b: print("live:  ", a, "\nreplay:", b)
    print(False)
else:
    print(live['facts']['gpus'] == replay['facts']['gpus'] and live['facts']['toolkits'] == replay['facts']['toolkits'])
PY
)
[[ $(tail -n1 <<<"$same") == True ]] || fail "the bundle's results differ from the live run: $same"
pass "check --from the bundle reproduces the live results"
expect "$work/replay.json" "r['source']['kind']=='snapshot'" "the replayed report says it came from a snapshot"

mkdir "$work/unpacked"
tar -xzf "$work/bundle.tar.gz" -C "$work/unpacked"
if grep -rqa -- "$secret" "$work/unpacked" || grep -q -- "$secret" <<<"$(tar -tzf "$work/bundle.tar.gz")"; then
  fail "HF_TOKEN's value is in the bundle"
fi
pass "HF_TOKEN's value is not in the bundle"
if grep -rqa -- "$proxy_password" "$work/unpacked"; then fail "the proxy password is in the bundle"; fi
pass "credentials in URLs are not in the bundle"
expect "$work/unpacked/manifest.json" "'env:HF_TOKEN' in r['redacted'] and r['format']=='gpudoctor-snapshot'" \
  "manifest.json lists the redaction"
expect "$work/unpacked/env.json" "r['HSA_OVERRIDE_GFX_VERSION']=='10.3.0' and r['HF_TOKEN']=='<redacted>'" \
  "GPU variables are kept, secrets replaced"
for f in report.json report.txt report.html commands.json identity.json; do
  [[ -e $work/unpacked/$f ]] || fail "the bundle has no $f"
done
[[ $(head -c 15 "$work/unpacked/report.html") == '<!DOCTYPE html>' ]] || fail "the bundle's report.html is no page"
pass "the bundle holds the reports (JSON, text, HTML page), commands and identity"

# --obfuscate: the hostname appears nowhere.
host=$(hostname)
"$gpudoctor" bundle --obfuscate -o "$work/obf.tar.gz" >/dev/null 2>&1 || fail "bundle --obfuscate failed"
mkdir "$work/obf"
tar -xzf "$work/obf.tar.gz" -C "$work/obf"
if [[ ${#host} -ge 4 ]] && grep -rqa -- "$host" "$work/obf"/{identity.json,env.json,report.json,report.html}; then
  fail "the hostname $host is in the obfuscated bundle"
fi
pass "--obfuscate hides the hostname"
