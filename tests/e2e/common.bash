# Shared by the end-to-end tests: each gets the gpudoctor binary as $1 and the source folder as $2.
# shellcheck shell=bash
set -euo pipefail
# shellcheck disable=SC2034 # used by the tests that source this file
gpudoctor=${1:?usage: test.sh path/to/gpudoctor source-dir}
# shellcheck disable=SC2034
source_dir=${2:?usage: test.sh path/to/gpudoctor source-dir}
# As root, gpudoctor runs only programs that root owns the whole way down (docs/security.md, "Executing as
# root"): a test's fake tools below /tmp, which every user can write, would be skipped. So root's tests work
# in /run, a folder of root's alone (GPUDOCTOR_TEST_TMP names another), and other users' in TMPDIR.
if [[ $(id -u) == 0 ]]; then
  work=$(mktemp -d "${GPUDOCTOR_TEST_TMP:-/run}/gpudoctor-e2e.XXXXXX")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpudoctor-e2e.XXXXXX")
fi
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 125; }
pass() { echo "PASS: $*"; }
# Whether $gpudoctor is the AddressSanitizer build (CI's second run): work that does not depend on the build
# (shellcheck of the same scripts, the package) is done once, in the plain build's run.
sanitizer_build() { grep -q libasan <<<"$(ldd "$gpudoctor" 2>/dev/null)"; }

# The interpreter for the assertions: any python3 with json (the system one is always there on Debian).
py=$(command -v /usr/bin/python3 || command -v python3 || true)
[[ -n $py ]] || skip "no python3 to read JSON with"

# Evaluates a Python expression over the JSON report in $1 (as `r`), prints the result.
jq_py() { "$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# Asserts a Python expression over the report is true.
expect() {
  local file=$1 expr=$2 what=$3
  [[ $(jq_py "$file" "$expr") == True ]] || fail "$what (expression: $expr)"
  pass "$what"
}
# Status of the results of check $2 (all subjects, space separated).
statuses() { jq_py "$1" "' '.join(x['status'] for x in r['results'] if x['id']=='$2')"; }

# stop_service PID NAME: a server a test started (node_exporter, Prometheus) gets SIGTERM, then SIGKILL after
# 10 s; 1 (saying so) when SIGTERM was not enough.
stop_service() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null
  echo "$2 did not stop within 10 s of SIGTERM" >&2
  return 1
}
