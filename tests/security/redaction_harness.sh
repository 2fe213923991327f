#!/usr/bin/env bash
# The redaction harness (issue 24, docs/security.md "Redaction and obfuscation"): one secret for every row of
# checks/knowledge/secrets.yaml is planted, in the environment and in the home's shell profile: a name rule's
# example with an unshaped value, and a value of each shape under a name that says nothing (NOTIFY_<n>).
# `gpudoctor bundle` then runs live, with and without --obfuscate, as root and, when useradd is there, as two
# other accounts (a home under /home and one elsewhere); no planted value may be anywhere in the archive,
# member names included, and with --obfuscate no name of those accounts either (every bundle's /etc/passwd
# lists them).
source "$(dirname "$0")/../e2e/common.bash"
"$py" -c 'import yaml' 2>/dev/null || skip "python3-yaml is missing"
chmod 755 "$work"

# planted.env: NAME=value lines; values.txt: every planted value, one per line.
"$py" - "$source_dir/checks/knowledge/secrets.yaml" "$work/planted.env" "$work/values.txt" "$RANDOM" <<'PY'
import sys, yaml
rules, env_path, values_path, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = yaml.safe_load(open(rules))
mix = "aB3dE5gH7jK9mN2pQ4sT6vW8yZ"
def body(n, salt):
    return "".join(mix[(i * 7 + salt) % 26] for i in range(n))
lines, values = [], []
for i, row in enumerate(doc["secret_names"]):
    value = "planted%d%s" % (seed, body(12, i))
    lines.append("%s=%s" % (row["example"], value))
    values.append(value)
for i, row in enumerate(doc["secret_shapes"]):
    head = "T0A1B2C3D/B4E5F6G7H/" if row["alphabet"] == "url_path" else ""
    value = row["prefix"] + head + body(row["min"] + 8, seed + i)
    lines.append("NOTIFY_%d=%s" % (i, value))
    values.append(value)
open(env_path, "w").write("\n".join(lines) + "\n")
open(values_path, "w").write("\n".join(values) + "\n")
PY
planted=$(wc -l <"$work/values.txt")
mapfile -t planted_env <"$work/planted.env"

# plant_home HOME OWNER: the same secrets, exported from HOME/.bashrc.
plant_home() {
  mkdir -p "$1"
  sed 's/^\([^=]*\)=\(.*\)$/export \1="\2"/' "$work/planted.env" >"$1/.bashrc"
  chown -R "$2" "$1"
}

# audit LABEL ARCHIVE [NAMES]: no planted value in the contents or the member names; with NAMES (a file of
# account names, for an --obfuscate run), none of those names either.
audit() {
  local label=$1 archive=$2 names=${3:-} out=$work/unpacked-$1
  [[ -s $archive ]] || fail "$label: no archive written"
  mkdir -p "$out"
  tar -xzf "$archive" -C "$out"
  tar -tzf "$archive" >"$out.names"
  local found
  found=$(grep -rhoaFf "$work/values.txt" "$out" "$out.names" | sort -u || true)
  [[ -z $found ]] || fail "$label: $(wc -l <<<"$found") of $planted planted secrets are in the bundle: $(head -c 600 <<<"$found")"
  pass "$label: none of the $planted planted secrets is in the bundle"
  [[ -n $names && -s $names ]] || return 0
  found=$(grep -rhoaFf "$names" "$out" "$out.names" | sort -u || true)
  [[ -z $found ]] || fail "$label: account names are in the obfuscated bundle: $(head -c 300 <<<"$found")"
  pass "$label: none of the $(wc -l <"$names") other accounts' names is in the bundle"
}

run_bundle() { # LABEL COMMAND...: the bundle run, which must succeed
  local label=$1
  shift
  local status=0
  "$@" >/dev/null 2>"$work/$label.err" || status=$?
  [[ $status == 0 ]] || fail "$label: bundle exit $status: $(head -c 400 "$work/$label.err")"
}

# Two other accounts, one with its home under /home and one elsewhere, made first so that every bundle's
# /etc/passwd names them; each account and its home are removed when the test ends.
accounts=()
cleanup() {
  for user in "${accounts[@]}"; do
    pkill -KILL -u "$user" 2>/dev/null || true
    userdel -r "$user" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
: >"$work/account-names"
if [[ $(id -u) == 0 ]] && command -v useradd >/dev/null && command -v setpriv >/dev/null; then
  mkdir -p "$work/homes"
  for where in home elsewhere; do
    user="gdt-redact-$where-$$"
    user=${user:0:31}
    if [[ $where == home ]]; then
      useradd --no-user-group --gid nogroup --create-home --shell /bin/sh "$user" || fail "useradd $user failed"
    else
      useradd --no-user-group --gid nogroup --home-dir "$work/homes/$user" --create-home --shell /bin/sh \
        "$user" || fail "useradd $user failed"
    fi
    accounts+=("$user")
    echo "$user" >>"$work/account-names"
  done
else
  echo "NOTE: not root or no useradd/setpriv: the other accounts' runs are left out"
fi

# As root: the environment (root's own home is /root on this machine, which a test does not write).
for obfuscate in "" --obfuscate; do
  label=root${obfuscate:+-obfuscated}
  run_bundle "$label" env -i PATH="$PATH" HOME="$work" USER=root "${planted_env[@]}" \
    "$gpudoctor" bundle ${obfuscate:+"$obfuscate"} -o "$work/$label.tar.gz"
  audit "$label" "$work/$label.tar.gz" ${obfuscate:+"$work/account-names"}
done

for user in "${accounts[@]}"; do
  where=${user#gdt-redact-}
  where=${where%%-*}
  home=$(getent passwd "$user" | cut -d: -f6)
  [[ $where != home || $home == /home/* ]] || fail "useradd put the home at $home, not under /home"
  plant_home "$home" "$user"
  out=$work/out-$where
  mkdir "$out"
  chown "$user" "$out"
  for obfuscate in "" --obfuscate; do
    label=user-$where${obfuscate:+-obfuscated}
    run_bundle "$label" setpriv --reuid "$(id -u "$user")" --regid "$(id -g "$user")" --init-groups \
      --inh-caps=-all -- env -i PATH="$PATH" HOME="$home" USER="$user" TMPDIR="$out" "${planted_env[@]}" \
      "$gpudoctor" bundle ${obfuscate:+"$obfuscate"} -o "$out/$label.tar.gz"
    # The profile must be in the bundle for its absence of secrets to mean anything (a pseudonymised home's
    # name differs: any .bashrc below fs/ outside /etc and /root).
    grep -q '^fs/.*/\.bashrc$' <(tar -tzf "$out/$label.tar.gz" | grep -v '^fs/root/') ||
      fail "$label: the account's .bashrc is not in the bundle"
    audit "$label" "$out/$label.tar.gz" ${obfuscate:+"$work/account-names"}
  done
done
