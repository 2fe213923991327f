#!/usr/bin/env bash
# Every error path of every subcommand that a user can reach without a GPU, a network or effects of root on
# this machine, run from one table: each row's exit status, its stderr (ONE line, "gpudoctor: ...", whatever
# it quotes escaped) and its empty stdout are checked by one loop. Paths and values given on the command line
# or read from a snapshot, a report or a record hold an ESC and a newline (and CR, BEL, TAB, DEL, U+202E):
# they must show escaped (\x1b, \n) on that one line, never reach the terminal raw.
#
# Three shapes, one table (adding an error path is one line):
#   row           NAME STATUS WHO REGEX ARGS...          stderr is "gpudoctor: REGEX\n", nothing else
#   usage         NAME REGEX ARGS...                     CLI11's usage error (exit 2): its line, escaped, then
#                                                        "Run with --help for more information."
#   with_commands NAME STATUS WHO N REGEX CMD ARGS...    "gpudoctor: REGEX\n", then N lines "    CMD\n": the
#                                                        commands that recover (util/diagnostics.hpp, Failure)
# REGEX and CMD are extended regexes that the whole line must match. WHO: any (as whoever runs the test),
# root (only as root: the rows act on records below a --root DIR in $work), user (not as root: as nobody when
# the test runs as root, with no sudo on PATH). A row whose failure prints on stdout on purpose (the plan
# before the question it could not ask) names the whole stdout's regex in stdout_re[NAME]. Nothing is written
# outside $work: outputs that cannot be written are below a regular file ($work/file/...), never a missing
# folder (gpudoctor makes missing folders) nor a device node; --apply runs only with --root into $work and
# never with --yes.
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"

machines=$source_dir/tests/machines
nvidia=$machines/nvidia-rtx3090-healthy/snapshot
amd=$machines/amd-mi210-healthy/snapshot
[[ -f $nvidia/manifest.json && -f $amd/manifest.json ]] || skip "the test machines are not in $machines"
cd "$work"

# The value of a path or an argument with what must never reach a terminal raw, and how gpudoctor shows it.
raw=$'a\e[31mb\nc'
shown='a\x1b[31mb\nc'
raw2=$'d\re\af\tg\x7fh\xe2\x80\xaei'
shown2='d\re\x07f\tg\x7fh\u202ei'

# $1 as an extended regex that matches exactly it.
lit() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
    \\ | . | '*' | '^' | '$' | + | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|') out+="\\$c" ;;
    *) out+=$c ;;
    esac
  done
  printf '%s' "$out"
}
W=$(lit "$work")    # $work in a regex
S=$(lit "$shown")   # the escaped value in a regex
S2=$(lit "$shown2") # the second one

# ---- The inputs: snapshots, archives, reports, knowledge folders, key files and roots with records. ----
echo "a regular file" >file
mkdir dir empty empty-root foreign future badjson kb-empty kb-bad keydir home "$raw"
echo '{"format": "something-else", "version": 1}' >foreign/manifest.json
echo '{"format": "gpudoctor-snapshot", "version": 99}' >future/manifest.json
echo '{"format": "gpudoctor-snapshot", "version": 1}' >badjson/manifest.json
echo '{not json' >badjson/env.json
echo garbage >garbage.tar.gz
mkfifo fifo
printf 'unknown\e[31m_table:\n  - a: 1\n' >kb-bad/x.yaml
head -c 64 /dev/urandom >key-shared && chmod 644 key-shared
echo short >key-short && chmod 600 key-short
"$py" - "$work/outside.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    m = tarfile.TarInfo("manifest.json"); d = b'{"format": "gpudoctor-snapshot", "version": 1}'
    m.size = len(d); t.addfile(m, io.BytesIO(d))
    f = tarfile.TarInfo("../a\x1b[31mb\nc"); f.size = 1; t.addfile(f, io.BytesIO(b"x"))
PY
# Reports: the healthy machine's, the same with a host name to escape, a newer format, none at all.
"$gpudoctor" check --from "$nvidia" --format json -o "$work/report.json" || fail "no report of $nvidia"
"$py" - <<'PY'
import json
r = json.load(open("report.json"))
evil = dict(r, host=dict(r["host"], hostname="evil\x1b[31m\nhost"))
json.dump(evil, open("evil-host.json", "w"))
json.dump(dict(r, version=99), open("newer.json", "w"))
json.dump({k: v for k, v in r.items() if k != "version"}, open("no-version.json", "w"))
json.dump({"a": 1}, open("not-a-report.json", "w"))
PY
echo '{"format": "gpudoctor-report"' >truncated.json
echo '{bad' >bad-record.json
# A machine below --root (for bundle and fix): Debian 12, nothing else.
mkdir -p debian/etc
printf 'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' >debian/etc/os-release
# Roots with root's records (docs/fixes.md, "Apply state"), as fix --root and migrate --root keep them.
records() { mkdir -p "$1/var/lib/gpudoctor" && cat >"$1/var/lib/gpudoctor/$2"; }
migration() { # $1: status, $2: done steps; a migration to amd whose script is not there
  printf '{"format": 2, "kind": "migration", "plan": "migrate-to-amd", "target": "amd", "script_id": '
  printf '"migrate-1a2b3c4d", "runs": ["20261201T090000Z-4242"], "status": "%s", %s"steps": ["purge", ' "$1" \
    "$([[ $1 == failed ]] && echo '"failed_step": "purge", ')"
  printf '"install"], "done": [%s], "family": "debian", "needs_root": true}\n' "$2"
}
migration failed "" | records r-failed migration.json
migration 'done' '"purge", "install"' | records r-done migration.json
migration finished '"purge", "install"' | records r-finished migration.json
migration failed "" | records "$raw.root" migration.json
cp -a debian debian-migrating && migration failed "" | records debian-migrating migration.json
# A fix's apply that failed in its first step (the last apply: last-apply.json).
cp -a debian debian-fix-failed
printf '%s\n' '{"format": 2, "kind": "fix", "plan": "purge-rocm", "script_id": "purge-rocm-1a2b3c4d", "runs":
  ["20261201T090000Z-4242"], "status": "failed", "failed_step": "purge", "steps": ["purge", "profiles"], "done":
  [], "family": "debian", "needs_root": true}' | records debian-fix-failed last-apply.json
printf '{\e[31m\n' | records r-bad-migration migration.json
echo '{garbage' | records r-bad-json last-apply.json
printf '%s\n' '{"format": 2, "kind": "fix", "script_id": "x\u001b[31m\ny"}' | records r-bad-record last-apply.json
mkdir -p r-shared/var/lib/gpudoctor && chmod 777 r-shared/var/lib/gpudoctor
# Root only: a folder every user can write, and a link another user owns.
if ((EUID == 0)); then
  mkdir shared nobodys && chmod 777 shared
  ln -s "$work/dir" nobodys/link && chown -h 65534:65534 nobodys/link && chown 65534:65534 nobodys
fi
# A fix with no script (done by hand): the first in the catalogue without a recipe, if there is one.
manual_fix=''
while read -r id; do
  [[ -f $source_dir/fixes/$id.yaml ]] || { manual_fix=$id && break; }
done < <(sed -n 's/^  - id: \([a-z0-9-]*\).*/\1/p' "$source_dir/fixes/catalogue.yaml")

# ---- The table. ----
rows=()
add() { rows+=("$(printf '%q ' "$@")"); }
row() { add line "$1" "$2" "$3" 0 "$4" '' "${@:5}"; }
usage() { add usage "$1" 2 any 0 "$2" '' "${@:3}"; }
with_commands() { add commands "$1" "$2" "$3" "$4" "$5" "$6" "${@:7}"; }
declare -A stdout_re=()

# CLI11's usage errors: its message, then its hint on a second line (src/main.cpp, CLI::ParseError).
# What was not understood, named, with the nearest word that would be (src/util/suggest.hpp). Bare
# `gpudoctor` runs check (tests/e2e/first_minute.sh).
row cli.unknown-subcommand 2 any 'frobnicate is no subcommand \(gpudoctor --help lists them\)' frobnicate
row cli.unknown-subcommand-escaped 2 any "$S is no subcommand \(gpudoctor --help lists them\)" "$raw"
row cli.subcommand-typo 2 any 'chek is no subcommand \(did you mean check\?\) \(gpudoctor --help lists them\)' chek
row cli.subcommand-swap 2 any 'bundel is no subcommand \(did you mean bundle\?\) \(gpudoctor --help lists them\)' bundel --obfuscate
row cli.option-first 2 any '--bogus is no option of gpudoctor: a subcommand comes first \(gpudoctor --help lists them\)' --bogus
row cli.option-first-escaped 2 any "--$S is no option of gpudoctor: a subcommand comes first \(gpudoctor --help lists them\)" "--$raw"
row check.unknown-flag 2 any 'check: --no-such-flag is no option \(gpudoctor check --help lists them\)' check --no-such-flag
row check.unknown-flag-escaped 2 any "check: --$S is no option \(gpudoctor check --help lists them\)" check "--$raw"
row check.option-typo 2 any 'check: --formt is no option \(did you mean --format\?\) \(gpudoctor check --help lists them\)' check --formt json
row check.option-typo-value 2 any 'check: --formt is no option \(did you mean --format\?\) \(gpudoctor check --help lists them\)' check --formt=json
row fix.option-typo 2 any 'fix: --aply is no option \(did you mean --apply\?\) \(gpudoctor fix --help lists them\)' fix purge-rocm --aply
row check.extra-argument 2 any 'check: extra was not expected \(gpudoctor check --help says what it takes\)' check extra
usage check.format-unknown '--format: xml not in \{text,json,html,prometheus,junit,npd\}' check --format xml
usage check.format-escaped "--format: $S not in \{text,json,html,prometheus,junit,npd\}" check --format "$raw"
usage check.timeout-range '--timeout: Value 5 not in range 100 to 600000' check --timeout 5
usage check.timeout-escaped "--timeout: Value $S not in range 100 to 600000" check --timeout "$raw"
usage check.from-empty '--from: cannot be empty' check --from ''
usage check.from-no-value '--from: 1 required PATH missing' check --from
usage check.max-output-length '--max-output-length: Value 10 not in range 40 to 1048576' check --max-output-length 10
usage check.color '--color: purple not in \{auto,always,never\}' check --color purple
usage check.probe-timeout '--probe-timeout: Value 5 not in range 1000 to 600000' check --probe-timeout 5
usage bundle.upload-method '--upload-method: GET not in \{PUT,POST\}' bundle --upload-method GET
usage bundle.upload-timeout '--upload-timeout: Value 5 not in range 1000 to 3600000' bundle --upload-timeout 5
usage bundle.output-empty '--output: cannot be empty' bundle -o ''
usage probe.backend '--backend: metal not in \{cuda,hip\}' probe --backend metal
usage fix.driver-version '--driver: takes a version \(digits and dots, like 12\.8 or 570\.124\.06\), not "abc"' fix --driver abc
usage fix.cuda-escaped "--cuda: takes a version \(digits and dots, like 12\.8 or 570\.124\.06\), not \"$S\"" fix --cuda "$raw"
usage fix.emit-empty '--emit: cannot be empty' fix --emit ''
usage migrate.to-unknown '--to: windows not in \{nvidia,amd\}' migrate --to windows
usage migrate.to-escaped "--to: $S not in \{nvidia,amd\}" migrate --to "$raw"
usage undo.run-without-script '--run requires --script' undo --run 20261201T090000Z-4242
usage undo.state-empty '--state: cannot be empty' undo --state ''
usage fleet.no-paths 'paths is required' fleet
usage fleet.jobs '--jobs: Value 0 not in range 1 to 256' fleet --jobs 0 report.json
row diff.one-input 2 any 'diff: two PATHs \(before and after\), or --last-good / --last with one at most' diff report.json
usage completion.shell 'shell: zsh not in \{bash\}' completion zsh

# check (and what every subcommand that judges a snapshot shares: --from, --knowledge, -o).
row check.only-unknown 2 any 'unknown check id "no\.such-check" \(gpudoctor check --list shows them\)' check --from "$nvidia" --only no.such-check
row check.only-typo 2 any 'unknown check id "driver\.nouvau" \(did you mean driver\.nouveau\?\) \(gpudoctor check --list shows them\)' check --from "$nvidia" --only driver.nouvau
row check.only-escaped 2 any "unknown check id \"$S\" \(gpudoctor check --list shows them\)" check --from "$nvidia" --only "$raw"
row check.from-missing 2 any 'cannot read snapshot /nonexistent/snapshot: No such file or directory' check --from /nonexistent/snapshot
row check.from-no-manifest 2 any "cannot read snapshot $W/empty: $W/empty has no manifest\.json: it is not a gpudoctor snapshot" check --from "$work/empty"
row check.from-foreign 2 any "cannot read snapshot $W/foreign: manifest\.json says format \"something-else\", not \"gpudoctor-snapshot\"" check --from "$work/foreign"
row check.from-newer 2 any "cannot read snapshot $W/future: snapshot format version 99 is newer than this gpudoctor reads \(1\): upgrade gpudoctor" check --from "$work/future"
row check.from-bad-json 2 any "cannot read snapshot $W/badjson: env\.json is not valid JSON: .*" check --from "$work/badjson"
row check.from-garbage 2 any "cannot read snapshot $W/garbage\.tar\.gz: not a readable archive: .*" check --from "$work/garbage.tar.gz"
# node-problem-detector and NHC read stdout: a run that could not judge says why there too, within the length.
stdout_re[check.npd-unreadable]=$'^gpudoctor could not judge this node: cannot read snapshot [^\n]{0,60}\n$'
row check.npd-unreadable 2 any "cannot read snapshot $W/garbage\.tar\.gz: not a readable archive: .*" check --from "$work/garbage.tar.gz" --format npd --max-output-length 120
row check.from-fifo 2 any "cannot read snapshot $W/fifo: not a folder or a regular file \(a bundle\): refused" check --from "$work/fifo"
row check.from-member-outside 2 any "cannot read snapshot $W/outside\.tar\.gz: member \"\.\./$S\" would land outside the folder" check --from "$work/outside.tar.gz"
row check.from-escaped 2 any "cannot read snapshot /nonexistent/$S: No such file or directory" check --from "/nonexistent/$raw"
row check.from-escaped-2 2 any "cannot read snapshot /nonexistent/$S2: No such file or directory" check --from "/nonexistent/$raw2"
row check.from-escaped-folder 2 any "cannot read snapshot $W/$S: $W/$S has no manifest\.json: it is not a gpudoctor snapshot" check --from "$work/$raw"
row check.knowledge-missing 2 any 'knowledge tables: cannot read the folder /nonexistent/kb: No such file or directory' check --from "$nvidia" --knowledge /nonexistent/kb
row check.knowledge-empty 2 any "knowledge tables: no knowledge files \(\*\.yaml\) in $W/kb-empty" check --from "$nvidia" --knowledge "$work/kb-empty"
row check.knowledge-escaped 2 any "knowledge tables: no knowledge files \(\*\.yaml\) in $W/$S" check --from "$nvidia" --knowledge "$work/$raw"
row check.knowledge-bad-table 2 any "knowledge tables: $W/kb-bad/x\.yaml:1: unknown table 'unknown\\\\x1b\[31m_table'" check --from "$nvidia" --knowledge "$work/kb-bad"
row check.output-not-folder 2 any "cannot write $W/file/r\.json: $W/file is not a folder" check --from "$nvidia" -o "$work/file/r.json"
row check.output-is-folder 2 any "$W/dir exists and is not a regular file: not replaced" check --from "$nvidia" -o "$work/dir"
row check.output-escaped 2 any "cannot write $W/file/$S: $W/file is not a folder" check --from "$nvidia" --output "$work/file/$raw"
row check.output-escaped-folder 2 any "$W/$S exists and is not a regular file: not replaced" check --from "$nvidia" -o "$work/$raw"
row check.output-through-others-link 2 root "cannot write $W/nobodys/link/r\.json: $W/nobodys/link is a link that another user can change \(.*\); as root, gpudoctor writes through no such link" check --from "$nvidia" -o "$work/nobodys/link/r.json"

# probe: the same snapshot and knowledge errors (the probes are judged from the snapshot, never run).
row probe.from-missing 2 any 'cannot read snapshot /nonexistent/snapshot: No such file or directory' probe --from /nonexistent/snapshot
row probe.from-escaped 2 any "cannot read snapshot /nonexistent/$S: No such file or directory" probe --from "/nonexistent/$raw"
row probe.knowledge-empty 2 any "knowledge tables: no knowledge files \(\*\.yaml\) in $W/kb-empty" probe --from "$nvidia" --knowledge "$work/kb-empty"

# explain
row explain.unknown 2 any 'no check or fix "no\.such-check" \(gpudoctor explain lists them\)' explain no.such-check
row explain.typo 2 any 'no check or fix "perm\.kdf" \(did you mean perm\.kfd\?\) \(gpudoctor explain lists them\)' explain perm.kdf
row explain.escaped 2 any "no check or fix \"$S\" \(gpudoctor explain lists them\)" explain "$raw"
row explain.escaped-2 2 any "no check or fix \"$S2\" \(gpudoctor explain lists them\)" explain "$raw2"

# bundle: of the machine below --root (nothing of this one is read); every refusal comes before recording.
row bundle.output-not-folder 2 any "cannot write $W/file/b\.tar\.gz: $W/file is not a folder" bundle --root "$work/debian" -o "$work/file/b.tar.gz"
row bundle.output-is-folder 2 any "$W/dir exists and is not a regular file: not replaced" bundle --root "$work/debian" -o "$work/dir"
row bundle.output-escaped 2 any "cannot write $W/file/$S: $W/file is not a folder" bundle --root "$work/debian" -o "$work/file/$raw"
row bundle.output-escaped-folder 2 any "$W/$S exists and is not a regular file: not replaced" bundle --root "$work/debian" --output "$work/$raw"
row bundle.upload-http 2 any '--upload needs an https:// URL: a bundle is not sent unencrypted' bundle --root "$work/debian" --upload http://example.invalid/b -o "$work/b.tar.gz"
row bundle.upload-escaped 2 any '--upload needs an https:// URL \(the value given is not repeated: it may hold a credential\)' bundle --root "$work/debian" --upload "$raw" -o "$work/b.tar.gz"
row bundle.ca-file-escaped 2 any "--ca-file /nonexistent/$S: no such file" bundle --root "$work/debian" --upload https://example.invalid/b --ca-file "/nonexistent/$raw" -o "$work/b.tar.gz"
row bundle.key-not-folder 2 any "the key file: cannot write $W/file/key: $W/file is not a folder" bundle --root "$work/debian" --obfuscate-key "$work/file/key" -o "$work/b.tar.gz"
row bundle.key-is-folder 2 any "the key file $W/keydir is not a regular file" bundle --root "$work/debian" --obfuscate-key "$work/keydir" -o "$work/b.tar.gz"
row bundle.key-escaped-folder 2 any "the key file $W/$S is not a regular file" bundle --root "$work/debian" --obfuscate-key "$work/$raw" -o "$work/b.tar.gz"
row bundle.key-shared 2 any "the key file $W/key-shared may be read or written by others \(mode 0644\): chmod 600 it" bundle --root "$work/debian" --obfuscate-key "$work/key-shared" -o "$work/b.tar.gz"
row bundle.key-short 2 any "the key file $W/key-short holds 6 bytes, not [0-9]+ to [0-9]+" bundle --root "$work/debian" --obfuscate-key "$work/key-short" -o "$work/b.tar.gz"
row bundle.key-in-shared-folder 2 root "the key file $W/shared/key is in a folder another user can change \($W/shared is writable by others\): they could put their own key there; as root, keep it in root's folders" bundle --root "$work/debian" --obfuscate-key "$work/shared/key" -o "$work/b.tar.gz"
row bundle.knowledge-empty 2 any "knowledge tables: no knowledge files \(\*\.yaml\) in $W/kb-empty" bundle --root "$work/debian" --knowledge "$work/kb-empty" -o "$work/b.tar.gz"

# fix: plans from a snapshot (or the files below --root); --apply only below --root, never with --yes.
row fix.unknown 2 any 'no fix no\.such-fix \(gpudoctor fix lists the ones for this machine\)' fix --from "$nvidia" no.such-fix
row fix.typo 2 any 'no fix purge-rcom \(did you mean purge-rocm\?\) \(gpudoctor fix lists the ones for this machine\)' fix --from "$nvidia" purge-rcom
row fix.unknown-escaped 2 any "no fix $S \(gpudoctor fix lists the ones for this machine\)" fix --from "$nvidia" "$raw"
[[ -z $manual_fix ]] || row fix.manual 2 any "$manual_fix has no script: it is done by hand\. .*" fix --from "$nvidia" "$manual_fix"
row fix.from-missing 2 any 'cannot read snapshot /nonexistent/snapshot: No such file or directory' fix --from /nonexistent/snapshot
row fix.from-escaped 2 any "cannot read snapshot /nonexistent/$S: No such file or directory" fix --from "/nonexistent/$raw" install-nvidia
row fix.knowledge-empty 2 any "knowledge tables: no knowledge files \(\*\.yaml\) in $W/kb-empty" fix --from "$nvidia" --knowledge "$work/kb-empty"
row fix.driver-too-old 2 any 'cannot make install-nvidia here: driver 1 cannot run CUDA .*' fix --from "$nvidia" install-nvidia --driver 1
row fix.cuda-unknown 2 any 'cannot make install-nvidia here: CUDA 99\.9 is not in the knowledge tables' fix --from "$nvidia" install-nvidia --cuda 99.9
row fix.rocm-unknown 2 any 'cannot make install-rocm here: gpudoctor has no repositories for ROCm 1\.0 .*' fix --from "$nvidia" install-rocm --rocm 1.0
row fix.gpu-escaped 2 any "cannot make install-nvidia here: --gpu \"$S\" names no GPU gpudoctor knows .*" fix --from "$nvidia" install-nvidia --gpu "$raw"
row fix.os-unknown 2 any 'cannot make reboot here: the OS is unknown \(no /etc/os-release was read\)' fix --root "$work/empty-root" reboot
row fix.apply-from 2 any '--apply runs on this machine; a plan made --from a snapshot is only printed' fix --from "$nvidia" install-nvidia --apply
row fix.emit-not-folder 2 any "--emit: cannot write $W/file/fix\.sh: $W/file is not a folder" fix --from "$nvidia" install-nvidia --emit "$work/file/fix.sh"
row fix.emit-is-folder 2 any "--emit: $W/dir exists and is not a regular file: not replaced" fix --from "$nvidia" install-nvidia --emit "$work/dir"
row fix.emit-escaped 2 any "--emit: cannot write $W/file/$S: $W/file is not a folder" fix --from "$nvidia" install-nvidia --emit "$work/file/$raw"
row fix.apply-not-confirmed 2 root 'nothing was run \(not a terminal: pass --yes\)' fix reboot --apply --root "$work/debian"
stdout_re[fix.apply-not-confirmed]='^Reboot \(Debian GNU/Linux 12 \(bookworm\), debian family\)'$'\n''.*Reboot the machine'$'\n+$'
with_commands fix.apply-during-migration 2 root 2 "a migration to amd is unfinished on this machine \(migrate-1a2b3c4d: .*\), and fix install-nvidia installs or removes packages, .*" "gpudoctor (migrate --resume|undo) --root $W/debian-migrating" fix install-nvidia --apply --root "$work/debian-migrating"
with_commands fix.apply-other-fix-unfinished 2 root 2 'fix purge-rocm is unfinished on this machine \(purge-rocm-1a2b3c4d: step purge failed, 0 of 2 steps done\), and fix install-nvidia would replace its record, which undo and a rerun go on from\. .*' "gpudoctor (fix purge-rocm --apply|undo) --root $W/debian-fix-failed" fix install-nvidia --apply --root "$work/debian-fix-failed"
with_commands migrate.apply-during-fix 2 root 2 'fix purge-rocm is unfinished on this machine \(.*\), and migrate --to amd would replace its record, .*' "gpudoctor (fix purge-rocm --apply|undo) --root $W/debian-fix-failed" migrate --to amd --apply --root "$work/debian-fix-failed"
with_commands fix.apply-no-sudo 2 user 1 'fix reboot needs root and sudo is not installed; as root, run:' "/.*gpudoctor fix reboot --apply --root $W/debian" fix reboot --apply --root "$work/debian"

# migrate: plans from a snapshot; --resume and --finish of the records below --root.
row migrate.no-target 2 any 'migrate needs --to nvidia\|amd \(or --resume, --finish\)' migrate
row migrate.no-target-from 2 any 'migrate needs --to nvidia\|amd \(or --resume, --finish\)' migrate --from "$nvidia"
row migrate.from-missing 2 any 'cannot read snapshot /nonexistent/snapshot: No such file or directory' migrate --to amd --from /nonexistent/snapshot
row migrate.from-escaped 2 any "cannot read snapshot /nonexistent/$S: No such file or directory" migrate --to amd --from "/nonexistent/$raw"
row migrate.from-member-outside 2 any "cannot read snapshot $W/outside\.tar\.gz: member \"\.\./$S\" would land outside the folder" migrate --to amd --from "$work/outside.tar.gz"
row migrate.apply-from 2 any '--apply runs on this machine; a plan made --from a snapshot is only printed' migrate --to amd --from "$nvidia" --apply
row migrate.emit-not-folder 2 any "--emit: cannot write $W/file/m\.sh: $W/file is not a folder" migrate --to amd --from "$nvidia" --emit "$work/file/m.sh"
row migrate.emit-escaped 2 any "--emit: cannot write $W/file/$S: $W/file is not a folder" migrate --to amd --from "$nvidia" --emit "$work/file/$raw"
row migrate.rocm-unknown 2 any 'cannot plan the move to amd: gpudoctor has no repositories for ROCm 1\.0 .*' migrate --to amd --from "$nvidia" --rocm 1.0
row migrate.gpu-escaped 2 any "cannot plan the move to nvidia: --gpu \"$S\" names no GPU gpudoctor knows .*" migrate --to nvidia --from "$nvidia" --gpu "$raw"
row migrate.resume-nothing 2 root 'no migration to resume on this machine \(/var/lib/gpudoctor/migration\.json is not there\)' migrate --resume --root "$work/empty-root"
row migrate.finish-nothing 2 root 'no migration to finish on this machine \(/var/lib/gpudoctor/migration\.json is not there\)' migrate --finish --root "$work/empty-root"
row migrate.resume-finished 2 root 'no migration to resume on this machine \(/var/lib/gpudoctor/migration\.json: migrate-1a2b3c4d was finished\)' migrate --resume --root "$work/r-finished"
row migrate.resume-bad-record 2 root '/var/lib/gpudoctor/migration\.json is not JSON: .*\. Root acts only on its own records: .*' migrate --resume --root "$work/r-bad-migration"
row migrate.finish-bad-record 2 root '/var/lib/gpudoctor/migration\.json is not JSON: .*\. Root acts only on its own records: .*' migrate --finish --root "$work/r-bad-migration"
row migrate.apply-bad-record 2 root '/var/lib/gpudoctor/migration\.json is not JSON: .*\. Root acts only on its own records: .*' migrate --to amd --apply --root "$work/r-bad-migration"
row migrate.finish-records-shared 2 root '/var/lib/gpudoctor/migration\.json is not root.s own record: .* writable by others\. Root acts only on its own records: .*' migrate --finish --root "$work/r-shared"
row migrate.finish-not-confirmed 2 root 'nothing was freed \(not a terminal: pass --yes\)' migrate --finish --root "$work/r-done"
row migrate.resume-not-confirmed 2 root 'nothing was run \(not a terminal: pass --yes\)' migrate --resume --root "$work/r-failed"
stdout_re[migrate.resume-not-confirmed]=$'^Resuming migrate-1a2b3c4d \\(.*\\)\\.\nSteps left of migrate-1a2b3c4d: purge, install\n$'
row migrate.apply-again-not-confirmed 2 root 'nothing was run \(not a terminal: pass --yes\)' migrate --to amd --apply --root "$work/r-failed"
stdout_re[migrate.apply-again-not-confirmed]=$'^A migration to amd is unfinished on this machine .*: this continues it, with the plan it was made with\\.\nSteps left of migrate-1a2b3c4d: purge, install\n$'
with_commands migrate.records-shared 2 root 1 "root keeps its records only in folders no other user can change, and .* is writable by others\. .*" 'chown .*' migrate --resume --root "$work/r-shared"
with_commands migrate.finish-unfinished 2 root 2 'the migration to amd is not done \(migrate-1a2b3c4d: .*\): --finish frees its undo cache only once every step ran\. .*' "gpudoctor (migrate --resume|undo) --root $W/r-failed" migrate --finish --root "$work/r-failed"
with_commands migrate.finish-unfinished-escaped 2 root 2 'the migration to amd is not done .*' "gpudoctor (migrate --resume|undo) --root \\\$'$W/a\\\\x1b\[31mb\\\\x0ac\.root'" migrate --finish --root "$work/$raw.root"
with_commands migrate.apply-other-unfinished 2 root 2 'a migration to amd is unfinished on this machine \(.*\)\. A machine has one migration at a time: .*' "gpudoctor (migrate --resume|undo) --root $W/r-failed" migrate --to nvidia --apply --root "$work/r-failed"
with_commands migrate.apply-other-not-finished 2 root 2 'the migration to amd \(migrate-1a2b3c4d\) is done but not finished: .*' "gpudoctor (migrate --finish|undo) --root $W/r-done" migrate --to nvidia --apply --root "$work/r-done"
# --yes: the migration's script is not below the root, so nothing can run.
with_commands migrate.resume-script-gone 2 root 1 'the script of the migration \(/var/lib/gpudoctor/scripts/migrate-1a2b3c4d\.sh\) is gone: it cannot go on\. .*' "gpudoctor undo --root $W/r-failed" migrate --resume --yes --root "$work/r-failed"
stdout_re[migrate.resume-script-gone]=${stdout_re[migrate.resume-not-confirmed]}
# --events json (docs/fixes.md, "Events"): the same failure, its events and its end as JSON lines on stdout.
with_commands migrate.resume-script-gone-events 2 root 1 'the script of the migration \(/var/lib/gpudoctor/scripts/migrate-1a2b3c4d\.sh\) is gone: it cannot go on\. .*' "gpudoctor undo --root $W/r-failed" migrate --resume --yes --events json --root "$work/r-failed"
stdout_re[migrate.resume-script-gone-events]=$'^\\{"event":"resuming","script_id":"migrate-1a2b3c4d","progress":"[^"]*"\\}\n\\{"event":"steps-left","script_id":"migrate-1a2b3c4d","steps":\\["purge","install"\\]\\}\n\\{"event":"end","exit":2,"message":"the script of the migration [^\n]*","commands":\\["gpudoctor undo --root [^"]*"\\]\\}\n$'
row migrate.events-json-needs-yes 2 root '--events json asks nothing: give --yes with it' migrate --resume --events json --root "$work/r-failed"
row fix.events-json-needs-yes 2 any '--events json asks nothing: give --yes with it' fix install-nvidia --apply --events json --root "$work/debian"
row undo.events-json-needs-yes 2 any '--events json asks nothing: give --yes with it' undo --events json --root "$work/empty-root"
usage undo.events-unknown '--events: xml not in \{text,json\}' undo --events xml
row migrate.finish-from-as-user 2 user "the migration is root's: run gpudoctor as root" migrate --finish --from "$nvidia"
with_commands migrate.resume-no-sudo 2 user 1 'the migration needs root and sudo is not installed; as root, run:' "/.*gpudoctor migrate --resume --root $W/r-failed" migrate --resume --root "$work/r-failed"
with_commands migrate.finish-no-sudo-escaped 2 user 1 'finishing the migration needs root and sudo is not installed; as root, run:' "/.*gpudoctor migrate --finish --root \\\$'$W/a\\\\x1b\[31mb\\\\x0ac\.root'" migrate --finish --root "$work/$raw.root"

# undo: of the records below --root (as root), of a user's own (as a user).
row undo.bad-script 2 root '--script bad/id is no script id' undo --root "$work/empty-root" --script bad/id
row undo.bad-script-escaped 2 root "--script $S is no script id" undo --root "$work/empty-root" --script "$raw"
row undo.bad-run 2 root '--run bad id is no run id' undo --root "$work/empty-root" --script fix-1a2b3c4d --run 'bad id'
row undo.bad-run-escaped 2 root "--run $S is no run id" undo --root "$work/empty-root" --script fix-1a2b3c4d --run "$raw"
row undo.nothing 2 root 'no apply to undo on this machine \(/var/lib/gpudoctor/last-apply\.json is not there\)' undo --yes --root "$work/empty-root"
row undo.state-missing-escaped 2 root "no apply to undo: /nonexistent/$S is not there" undo --root "$work/empty-root" --state "/nonexistent/$raw"
row undo.bad-json-record 2 root '/var/lib/gpudoctor/last-apply\.json is not JSON: .*' undo --yes --root "$work/r-bad-json"
row undo.bad-record-escaped 2 root "/var/lib/gpudoctor/last-apply\.json is no record of an apply: script id x\\\\x1b\[31m\\\\ny is no id" undo --yes --root "$work/r-bad-record"
row undo.bad-migration-record 2 root '/var/lib/gpudoctor/migration\.json is not JSON: .*' undo --yes --root "$work/r-bad-migration"
row undo.records-shared 2 root '/var/lib/gpudoctor/migration\.json is not root.s own record: .* writable by others' undo --root "$work/r-shared" --script fix-1a2b3c4d
with_commands undo.finished 2 root 1 'the migration migrate-1a2b3c4d was finished \(migrate --finish\): its undo cache is freed, .*' "gpudoctor migrate --to nvidia --apply --root $W/r-finished" undo --yes --root "$work/r-finished"
with_commands undo.state-of-another 2 root 1 "$S is not root's own record: not an absolute path\. Root undoes only from its own records .*" "gpudoctor undo --root $W/empty-root" undo --root "$work/empty-root" --state "$raw"
row undo.state-not-a-record 2 user "$W/bad-record\.json is no record of an apply: .*" undo --state "$work/bad-record.json"
with_commands undo.none-of-yours 2 user 1 "no apply of yours to undo \($W/home/\.local/state/gpudoctor/last-apply\.json is not there\)\. .*" 'sudo gpudoctor undo' undo
with_commands undo.state-missing-user 2 user 1 "no apply of yours to undo \(/nonexistent/$S is not there\)\. .*" 'sudo gpudoctor undo' undo --state "/nonexistent/$raw"
with_commands undo.root-no-sudo 2 user 1 'undoing an apply that ran as root needs root and sudo is not installed; as root, run:' "/.*gpudoctor undo --root $W/empty-root" undo --root "$work/empty-root"
with_commands undo.script-no-sudo 2 user 1 'undoing an apply that ran as root needs root and sudo is not installed; as root, run:' '/.*gpudoctor undo --script fix-1a2b3c4d --yes' undo --script fix-1a2b3c4d --yes

# fleet: no readable report is one line that names the input and why.
row fleet.missing-input 2 any "(.*: )?/nonexistent/report\.json: no such file or folder.*" fleet /nonexistent/report.json
row fleet.escaped-input 2 any "(.*: )?/nonexistent/$S: no such file or folder.*" fleet "/nonexistent/$raw"
row fleet.not-a-report 2 any "(.*: )?$W/not-a-report\.json: not a gpudoctor report.*" fleet "$work/not-a-report.json"
row fleet.member-outside 2 any "(.*: )?$W/outside\.tar\.gz: .*member \"\.\./$S\" would land outside the folder.*" fleet "$work/outside.tar.gz"
row fleet.empty-folder 2 any 'no report to compare \(give reports, snapshots, bundles or folders of them\)' fleet "$work/empty"
row fleet.output-not-folder 2 any "cannot write $W/file/f\.txt: $W/file is not a folder" fleet "$work/report.json" -o "$work/file/f.txt"
row fleet.output-escaped 2 any "cannot write $W/file/$S: $W/file is not a folder" fleet "$work/report.json" --output "$work/file/$raw"

# diff
row diff.before-missing 2 any '/nonexistent/before: no such file or folder' diff /nonexistent/before "$nvidia"
row diff.after-missing 2 any '/nonexistent/after: no such file or folder' diff "$nvidia" /nonexistent/after
row diff.before-escaped 2 any "/nonexistent/$S: no such file or folder" diff "/nonexistent/$raw" "$nvidia"
row diff.after-escaped 2 any "/nonexistent/$S: no such file or folder" diff "$nvidia" "/nonexistent/$raw"
row diff.no-manifest 2 any "$W/empty: a folder without manifest\.json is no snapshot" diff "$work/empty" "$nvidia"
row diff.not-a-report 2 any "$W/not-a-report\.json: not a gpudoctor report" diff "$work/not-a-report.json" "$work/report.json"
row diff.truncated-report 2 any "$W/truncated\.json: .*" diff "$work/report.json" "$work/truncated.json"
row diff.newer-report 2 any "$W/newer\.json: report format 99 \(this gpudoctor reads format 1\)" diff "$work/newer.json" "$work/report.json"
row diff.no-version 2 any "$W/no-version\.json: a gpudoctor report without a format version" diff "$work/no-version.json" "$work/report.json"
row diff.garbage-archive 2 any "$W/garbage\.tar\.gz: .*not a readable archive: .*" diff "$work/garbage.tar.gz" "$nvidia"
row diff.member-outside 2 any "$W/outside\.tar\.gz: .*member \"\.\./$S\" would land outside the folder" diff "$nvidia" "$work/outside.tar.gz"
# The node's history (docs/fleet.md, "History").
row diff.last-both 2 any 'diff: --last-good or --last, not both' diff --last-good --last
row diff.last-two-paths 2 any 'diff --last-good: one PATH at most \(the later side; without one, this machine now\)' diff --last-good a b
row diff.last-no-history 2 any "diff --last: no history in $W/$S/none: .*" diff --last --history-dir "$work/$raw/none"
row diff.last-none-good 2 any "diff --last-good: $W/empty holds no report without an error written by this or an older gpudoctor" diff --last-good --history-dir "$work/empty"
row history.not-a-folder 2 any "$W/file is not a folder" history --history-dir "$work/file"
row history.user 2 user "gpudoctor history needs root: the history is root's .*--history-dir" history
row check.history-user 2 user "check --history needs root: the history is root's .*--history-dir" check --history
row check.history-from 2 any "--history keeps this machine's reports: with --from, name a folder for the snapshot's \(--history-dir DIR\)" check --from "$nvidia" --history
row check.history-only 2 any "--history keeps whole reports: --only would leave results out" check --from "$nvidia" --history-dir "$work/hist" --only gpu.none
row check.history-not-folder 2 any "cannot keep the report: $W/file is not a folder" check --from "$nvidia" --history-dir "$work/file"
row diff.two-machines 2 any "$(lit "$nvidia") and $(lit "$amd") are not one machine: .* \(--force compares them anyway\)" diff "$nvidia" "$amd"
row diff.two-machines-escaped 2 any "$W/report\.json and $W/evil-host\.json are not one machine: host \"gpu-vm01\" and host \"evil\\\\x1b\[31m\\\\nhost\" \(--force compares them anyway\)" diff "$work/report.json" "$work/evil-host.json"
row diff.output-not-folder 2 any "cannot write $W/file/d\.txt: $W/file is not a folder" diff "$work/report.json" "$work/report.json" -o "$work/file/d.txt"
row diff.output-escaped 2 any "cannot write $W/file/$S: $W/file is not a folder" diff "$work/report.json" "$work/report.json" --output "$work/file/$raw"

# ---- How rows run: as whom, with which environment (HOME below $work: no user's state is read). ----
mkdir -p nobin
run_env=(env -u XDG_STATE_HOME -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u VIRTUAL_ENV -u CONDA_PREFIX "HOME=$work/home")
as_user=()
if ((EUID == 0)); then
  chmod 755 "$work" && chmod -R go+rX "$work/debian" "$work/bad-record.json"
  if command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$gpudoctor" -a -r "$nvidia/manifest.json" 2>/dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
fi

# ---- The loop. ----
failed=() skipped=()
for r in "${rows[@]}"; do
  eval "set -- $r"
  kind=$1 name=$2 want=$3 who=$4 lines=$5 re=$6 cmd_re=$7
  shift 7
  runner=("${run_env[@]}")
  case $who in
  root) ((EUID == 0)) || { skipped+=("$name") && continue; } ;;
  user)
    if ((EUID == 0)); then ((${#as_user[@]})) || { skipped+=("$name") && continue; }; fi
    runner=("${as_user[@]}" "${run_env[@]}" "PATH=$work/nobin") # no sudo to hand the command to
    ;;
  esac
  status=0
  timeout 60 "${runner[@]}" "$gpudoctor" "$@" </dev/null >"$work/out" 2>"$work/err" || status=$?
  why=()
  [[ $status == "$want" ]] || why+=("exit status $status, not $want")
  err=$(
    cat "$work/err"
    echo .
  )
  err=${err%.}
  LC_ALL=C tr -d '\000-\011\013-\037\177' <"$work/err" >"$work/err.printable"
  cmp -s "$work/err" "$work/err.printable" || why+=("stderr holds a raw control byte")
  [[ $err == *$'\n' ]] || why+=("stderr does not end in a newline")
  mapfile -t got <"$work/err"
  case $kind in
  line) shape=("^gpudoctor: ($re)\$") ;;
  usage) shape=("^(gpudoctor: )?($re)\$" '^Run with --help for more information\.$') ;;
  commands)
    shape=("^gpudoctor: ($re)\$")
    for ((i = 0; i < lines; i++)); do shape+=("^    ($cmd_re)\$"); done
    ;;
  esac
  ((${#got[@]} == ${#shape[@]})) || why+=("stderr is ${#got[@]} lines, not ${#shape[@]}")
  for i in "${!shape[@]}"; do
    [[ ${got[i]-} =~ ${shape[i]} ]] || why+=("stderr line $((i + 1)) does not match ${shape[i]}")
  done
  if [[ -n ${stdout_re[$name]-} ]]; then
    out=$(
      cat "$work/out"
      echo .
    )
    [[ ${out%.} =~ ${stdout_re[$name]} ]] || why+=("stdout does not match ${stdout_re[$name]}")
  else
    [[ ! -s $work/out ]] || why+=("stdout is not empty")
  fi
  if ((${#why[@]})); then
    failed+=("$name")
    {
      echo "FAIL: $name: gpudoctor$(printf ' %q' "$@")"
      printf '  %s\n' "${why[@]}"
      echo "  stderr (cat -A):" && cat -A "$work/err" | sed 's/^/    /'
      [[ ! -s $work/out ]] || { echo "  stdout (cat -A, the start):" && head -n 8 "$work/out" | cat -A | sed 's/^/    /'; }
    } >&2
  else
    pass "$name: exit $want, $(head -n 1 "$work/err" | cut -c 1-140)"
  fi
done

((${#skipped[@]} == 0)) || echo "SKIPPED (as $(id -un), $( ((EUID == 0)) && echo "without setpriv as nobody" || echo "not root")): ${skipped[*]}"
[[ -n $manual_fix ]] || echo "NOTE: every fix in fixes/catalogue.yaml has a recipe: 'fix ID' of a manual fix is not reachable"
((${#failed[@]} == 0)) || fail "${#failed[@]} of ${#rows[@]} error paths: ${failed[*]}"
pass "${#rows[@]} error paths (${#skipped[@]} skipped): one escaped line each, nothing else printed"
