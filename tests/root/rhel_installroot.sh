#!/usr/bin/env bash
# `gpudoctor migrate --to nvidia` on Rocky Linux 9 (the RHEL family), proven with dnf itself: Debian's dnf 4
# and rpm install into an RPM root (dnf --installroot) from local repositories of dummy RPMs built from the
# graphs tests/root/graphs/rpm/*.txt (Rocky 9 with CRB disabled, EPEL with DKMS, NVIDIA's rhel9 repository
# with its nvidia-driver module streams 570-open, 570-dkms and 580-open). The root had NVIDIA's 570 driver
# once: its stream 570-open is still enabled. A second root has NVIDIA's proprietary 570 driver installed:
# `fix install-nvidia` switches it to the open 580 as NVIDIA's guide does (dnf module switch-to
# --allowerasing), refuses while a third party's package needs the old kmod, and `gpudoctor undo` (dnf
# --installroot) puts the 570 driver back from the RPMs the download step kept. The rendered script's steps
# run from outside in installroot mode (GD_INSTALLROOT: fixes/lib.bash), dnf isolated from the host's
# configuration, plugins and repositories. Asserted by what rpm and dnf's module state say afterwards; the
# plan --from a snapshot is the live one.
source "$(dirname "$0")/lib.bash"
for tool in dnf rpm rpmbuild createrepo_c modifyrepo_c; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install dnf rpm createrepo-c)"
done
dnf_plugins=$("$host_python" -c 'import dnf.const; print(dnf.const.PLUGINPATH)' 2>/dev/null) || skip "dnf's Python module is missing"
[[ -f $dnf_plugins/versionlock.py ]] || skip "dnf's versionlock plugin is missing (apt-get install dnf-plugins-core)"

# rpm's database in the root where the RHEL family keeps it (Debian's rpm defaults to ~/.rpmdb): rpm and
# dnf read ~/.rpmmacros.
export HOME=$work
printf '%%_dbpath /var/lib/rpm\n' >"$HOME/.rpmmacros"
mirror=$work/rpm-mirror
R=$work/rocky9
"$host_python" "$root_dir/tools/make_rpms.py" "$mirror" "file://$mirror" "$root_dir"/graphs/rpm/*.txt ||
  fail "could not build the RPM repositories"

# dnf sees only this test's configuration and repositories: no host dnf.conf, plugin or .repo file.
printf '[main]\ninstallonly_limit=3\nkeepcache=0\n' >"$work/dnf.conf"
isolation=(--config="$work/dnf.conf" --nogpgcheck)
test_dnf() { dnf -q "${isolation[@]}" --noplugins --setopt=reposdir="$1" --installroot "$R" -y "${@:2}"; }
# A rendered script's id (its journal, cache and undo --script name it).
script_id_of() { sed -n "s/^GD_SCRIPT_ID='\(.*\)'$/\1/p" "$1"; }
mkdir -p "$work/bootstrap.repos.d"
cat >"$work/bootstrap.repos.d/bootstrap.repo" <<EOF
[bootstrap-baseos]
name=bootstrap BaseOS
baseurl=file://$mirror/rocky/9/BaseOS/x86_64/os/
gpgcheck=0
[bootstrap-cuda]
name=bootstrap NVIDIA
baseurl=file://$mirror/compute/cuda/repos/rhel9/x86_64/
gpgcheck=0
[bootstrap-appstream]
name=bootstrap AppStream
baseurl=file://$mirror/rocky/9/AppStream/x86_64/os/
gpgcheck=0
enabled=0
[bootstrap-epel]
name=bootstrap EPEL
baseurl=file://$mirror/epel/9/Everything/x86_64/
gpgcheck=0
enabled=0
EOF
# The kernel the plans are made for (a file here: the roots have no /proc), the one the graph's kernel-devel is for.
kernel=5.14.0-427.13.1.el9_4.x86_64
# new_root DIR STREAM [PACKAGE...]: a Rocky 9 root with the nvidia-driver stream STREAM enabled and PACKAGEs
# (with what they need from AppStream and EPEL) installed.
new_root() {
  local dir=$1 stream=$2
  shift 2
  [[ -n $dir ]] || fail "new_root without a folder"
  R=$dir test_dnf "$work/bootstrap.repos.d" --releasever=9 install rocky-release >"$work/bootstrap.out" 2>&1 ||
    fail "could not install rocky-release into $dir: $(tail -5 "$work/bootstrap.out")"
  R=$dir test_dnf "$work/bootstrap.repos.d" module enable "nvidia-driver:$stream" >>"$work/bootstrap.out" 2>&1 ||
    fail "could not enable the stream $stream: $(tail -5 "$work/bootstrap.out")"
  if (($#)); then
    R=$dir test_dnf "$work/bootstrap.repos.d" --enablerepo='bootstrap-*' install "$@" >>"$work/bootstrap.out" 2>&1 ||
      fail "could not install $* into $dir: $(tail -5 "$work/bootstrap.out")"
  fi
  mkdir -p "$dir/proc/sys/kernel"
  echo "$kernel" >"$dir/proc/sys/kernel/osrelease"
}
new_root "$R" 570-open
# What dnf or rpm would leave on this host if anything escaped the installroot.
host_dnf_state() { ls -la --time-style=full-iso /var/log/dnf.log /var/log/hawkey.log /var/cache/dnf /etc/dnf/modules.d /var/lib/rpm 2>&1 || true; }
host_before=$(host_dnf_state)
rpm_q() { rpm --root "$R" -q --qf '%{NAME} %{EPOCH}:%{VERSION}\n' "$@" 2>/dev/null; }

# ---- the plan ---------------------------------------------------------------------------------------------------
args=(--to nvidia --mirror "file://$mirror")
script=$work/migrate.sh
"$gpudoctor" migrate "${args[@]}" --root "$R" --emit "$script" 2>"$work/emit.err" || fail "migrate --root: $(cat "$work/emit.err")"
shellcheck "$script" || fail "the migration script does not pass shellcheck"
grep -q "^GD_KERNEL=$kernel$" "$script" || fail "the script is not made for the root's kernel: $(grep '^GD_KERNEL' "$script")"
steps=(install-nvidia.epel install-nvidia.rhel-repository install-nvidia.driver-stream prepare.download
  install-nvidia.headers install-nvidia.driver install-nvidia.toolkit)
for id in "${steps[@]}"; do
  grep -q "^#  *[0-9]*\. $id " "$script" || fail "the plan has no step $id: $(grep '^#  *[0-9]*\. ' "$script")"
done
grep -qx '  gd_switch_module_stream nvidia-driver 580-open' "$script" || fail "the plan does not switch to the stream 580-open"
pass "the plan enables CRB and EPEL, adds NVIDIA's repository and switches the driver stream before the download"
same_plan_from_snapshot "$R" "${args[@]}"
pass "the plan made --from a bundle of the root is the live one"

# ---- the steps, in installroot mode -------------------------------------------------------------------------------
# One step of $script on the root $R, dnf isolated as test_dnf is, but with the root's own repositories.
# Of the plugins, only versionlock (the purge removes locks), or those of step_plugins (options of dnf).
step_plugins=(--enableplugin=versionlock)
run_step() {
  GD_INSTALLROOT=$R GD_DNF_OPTS=$(printf '%s\n' "${isolation[@]}" --disableplugin='*' "${step_plugins[@]}" \
    "--setopt=reposdir=$R/etc/yum.repos.d") bash "$script" --any-host --step "$1"
}
run_steps() {
  local id out=$1
  for id in "${steps[@]}"; do
    run_step "$id" >>"$out" 2>&1 || fail "step $id failed: $(tail -15 "$out")"
  done
}
run_steps "$work/run1.out"
grep -q 'dnf switches streams only after a reset' "$work/run1.out" || fail "the stream 570-open was not reset first"
stream=$(sed -n 's/^stream=//p; s/^state=/state /p' "$R/etc/dnf/modules.d/nvidia-driver.module" | tr '\n' ' ')
[[ $stream == '580-open state enabled ' ]] || fail "dnf's module state is not 580-open enabled: $stream"
awk '/^\[crb\]/ { c = 1; next } /^\[/ { c = 0 } c && /^enabled=1$/ { ok = 1 } END { exit !ok }' \
  "$R/etc/yum.repos.d/rocky.repo" || fail "CRB is not enabled: $(cat "$R/etc/yum.repos.d/rocky.repo")"
for want in 'epel-release (none):9' 'dkms (none):3.1.5' 'kmod-nvidia-open-dkms 3:580.95.05' 'nvidia-open 3:580.95.05' \
  'nvidia-driver 3:580.95.05' 'nvidia-driver-cuda 3:580.95.05' 'cuda-toolkit-13-0 (none):13.0.2' \
  'kernel-devel (none):5.14.0'; do
  got=$(rpm_q "${want%% *}")
  [[ $got == "$want" ]] || fail "${want%% *} is not ${want#* } (rpm says: ${got:-not installed})"
done
grep -q '^570\.' <<<"$(rpm --root "$R" -qa --qf '%{VERSION}\n')" && fail "a 570 package is installed: $(rpm --root "$R" -qa | grep 570)"
compgen -G "$R/var/cache/gpudoctor/*/debs/nvidia-open-580.95.05-*.rpm" >/dev/null ||
  fail "the download step did not download nvidia-open into the script's cache"
pass "CRB enabled, EPEL's DKMS, the stream switched 570-open -> 580-open (reset first), driver 580 and CUDA 13.0 installed by dnf"

before=$(rpm --root "$R" -qa | sort)
run_steps "$work/run2.out"
[[ $(rpm --root "$R" -qa | sort) == "$before" ]] || fail "a second run changed the installed packages"
grep -q 'the module stream nvidia-driver:580-open is enabled already' "$work/run2.out" || fail "the second run did not see the stream"
grep -q 'repository crb is enabled already' "$work/run2.out" || fail "the second run did not see CRB enabled"
pass "a second run changes nothing"
# A root that has NVIDIA's own .repo file of the same address: it is reused, not defined a second time.
sed 's/^\[cuda-gpudoctor\]$/[cuda-rhel9-x86_64]/' "$R/etc/yum.repos.d/cuda-gpudoctor.repo" >"$R/etc/yum.repos.d/cuda-rhel9.repo"
rm "$R/etc/yum.repos.d/cuda-gpudoctor.repo"
steps=(install-nvidia.rhel-repository)
run_steps "$work/reuse.out"
grep -q 'reusing the repository of /etc/yum.repos.d/cuda-rhel9.repo' "$work/reuse.out" || fail "NVIDIA's .repo was not reused: $(cat "$work/reuse.out")"
[[ ! -e $R/etc/yum.repos.d/cuda-gpudoctor.repo ]] || fail "a second .repo file of NVIDIA's repository was written"
pass "a .repo file of the same address (NVIDIA's cuda-rhel9.repo) is reused, not defined twice"
# ---- the purge: rpm's database read through rpm --root, the module reset, the version locks -----------------------
# The admin locked the driver's version with dnf's versionlock plugin, as NVIDIA's guide suggests: the real
# plugin writes the root's list (its configuration pointed there: by itself it names this host's list).
lock_conf=$work/lock-plugin
mkdir -p "$lock_conf" "$R/etc/dnf/plugins"
touch "$R/etc/dnf/plugins/versionlock.list" # as the plugin's package installs it
printf '[main]\nenabled = 1\nlocklist = %s/etc/dnf/plugins/versionlock.list\n' "$R" >"$lock_conf/versionlock.conf"
dnf -q "${isolation[@]}" --disableplugin='*' --enableplugin=versionlock --setopt=pluginconfpath="$lock_conf" \
  --setopt=reposdir="$R/etc/yum.repos.d" --installroot "$R" versionlock add nvidia-driver kmod-nvidia-open-dkms \
  >"$work/lock.out" 2>&1 || fail "dnf versionlock add failed: $(tail -3 "$work/lock.out")"
locks_of() { grep -v '^#' "$1" 2>/dev/null | grep . | sort || true; }
locks=$(locks_of "$R/etc/dnf/plugins/versionlock.list")
[[ $(wc -l <<<"$locks") == 2 ]] || fail "the root's lock list does not hold the two locks: $locks"
host_locks=$(locks_of /etc/dnf/plugins/versionlock.list)
purge=$work/purge-nvidia.sh
"$gpudoctor" fix purge-nvidia --root "$R" --emit "$purge" 2>"$work/purge.err" || fail "fix purge-nvidia --root: $(cat "$work/purge.err")"
nvidia_packages=$(rpm --root "$R" -qa --qf '%{NAME}\n' | grep -E '^(nvidia-|kmod-nvidia|cuda-|libcublas)' | sort | tr '\n' ' ')
purge_list=$(sed -n 's/^  gd_purge_packages \(.*\) --.*/\1/p' "$purge" | tr ' ' '\n' | sort | tr '\n' ' ')
[[ $purge_list == "$nvidia_packages" ]] || fail "the purge list is not NVIDIA's installed packages: '$purge_list' vs '$nvidia_packages'"
same_plan_from_snapshot "$R" --to amd --mirror "file://$mirror"
pass "the purge list is every NVIDIA package rpm has (${nvidia_packages% }), not dkms or the kernel's; migrate --to amd --from a bundle of the root is the live plan"
[[ $(sed -n 's/^  gd_remove_versionlocks //p' "$purge" | tr ' ' '\n' | tr -d "'" | sort) == "$locks" ]] ||
  fail "the purge does not remove the root's locks ($locks): $(grep -n 'versionlock' "$purge")"
# The steps that act through dnf and rpm (installroot mode refuses those that act on files, users and
# processes: they would act on this host); the download keeps the outgoing RPMs for undo.
steps=(purge-nvidia.versionlocks prepare.download purge-nvidia.packages purge-nvidia.driver-module)
script=$purge
run_steps "$work/purge.out"
left=$(rpm --root "$R" -qa --qf '%{NAME}\n' | grep -E '^(nvidia-|kmod-nvidia|cuda-|libcublas)' || true)
[[ -z $left ]] || fail "NVIDIA's packages are still installed: $left"
for p in dkms kernel-devel epel-release rocky-release; do rpm --root "$R" -q "$p" >/dev/null || fail "the purge took $p"; done
grep -q '^state=$' "$R/etc/dnf/modules.d/nvidia-driver.module" || fail "the nvidia-driver module is not reset: $(cat "$R/etc/dnf/modules.d/nvidia-driver.module")"
[[ -z $(locks_of "$R/etc/dnf/plugins/versionlock.list") ]] || fail "the root still has locks: $(locks_of "$R/etc/dnf/plugins/versionlock.list")"
[[ $(locks_of /etc/dnf/plugins/versionlock.list) == "$host_locks" ]] || fail "the purge changed this host's version locks"
pass "dnf removed NVIDIA's packages (not dkms, the kernel's or EPEL's) and their version locks (the root's list, not this host's), and reset the nvidia-driver module"

# undo of the purge (dnf --installroot): the packages back, and their locks in the root's list, not this host's.
purge_id=$(script_id_of "$purge")
# undo's dnf reads the root's dnf.conf: of this host's plugins, only versionlock (another, the completion
# cache's, writes this host's /var/cache/dnf whatever the installroot).
mkdir -p "$work/dnf-plugins"
ln -s "$dnf_plugins/versionlock.py" "$work/dnf-plugins/versionlock.py"
printf '[main]\ngpgcheck=0\ninstallonly_limit=3\npluginpath=%s\n' "$work/dnf-plugins" >"$R/etc/dnf/dnf.conf"
"$gpudoctor" undo --root "$R" --script "$purge_id" --yes >"$work/undo-purge.out" 2>&1 ||
  fail "undo --script $purge_id failed: $(tail -15 "$work/undo-purge.out")"
[[ $(locks_of "$R/etc/dnf/plugins/versionlock.list") == "$locks" ]] ||
  fail "undo did not lock again in the root's list: $(locks_of "$R/etc/dnf/plugins/versionlock.list"); $(tail -5 "$work/undo-purge.out")"
[[ $(locks_of /etc/dnf/plugins/versionlock.list) == "$host_locks" ]] || fail "undo changed this host's version locks"
for p in nvidia-driver kmod-nvidia-open-dkms; do rpm --root "$R" -q "$p" >/dev/null || fail "undo did not put $p back"; done
pass "undo of the purge puts NVIDIA's packages back and locks them again, in the root's list"

# ---- NVIDIA's proprietary 570 driver switched to the open 580 as NVIDIA's guide does, and undone -------------
# A root with NVIDIA's 570 driver of the proprietary flavour (stream 570-dkms, cuda-drivers,
# kmod-nvidia-latest-dkms): the open 580's kmod conflicts with it, and a plain `dnf install nvidia-open` fails.
# proprietary_root DIR: such a root at DIR.
proprietary_root() {
  new_root "$1" 570-dkms cuda-drivers
  # undo's dnf runs with --installroot, which reads the root's own dnf.conf: none of this host's.
  mkdir -p "$1/etc/dnf"
  printf '[main]\ngpgcheck=0\ninstallonly_limit=3\nplugins=0\n' >"$1/etc/dnf/dnf.conf"
  # NVIDIA's .repo file, which the 570 driver was installed from (NVIDIA's name for it; the plan reuses it).
  printf '[cuda-rhel9-x86_64]\nname=cuda-rhel9-x86_64\nbaseurl=file://%s/compute/cuda/repos/rhel9/x86_64/\nenabled=1\ngpgcheck=0\n' \
    "$mirror" >"$1/etc/yum.repos.d/cuda-rhel9.repo"
}
# emit_install_nvidia SCRIPT: fix install-nvidia's script for the root $R, at SCRIPT.
emit_install_nvidia() {
  "$gpudoctor" fix install-nvidia --root "$R" --mirror "file://$mirror" --emit "$1" 2>"$work/emit-install.err" ||
    fail "fix install-nvidia --root: $(cat "$work/emit-install.err")"
}
# The steps before the switch: EPEL and CRB, NVIDIA's repository, the stream, the download, the headers.
switch_prepare=(install-nvidia.epel install-nvidia.rhel-repository install-nvidia.driver-stream prepare.download
  install-nvidia.headers)
R=$work/rocky9-proprietary
proprietary_root "$R"
packages_of() { rpm --root "$R" -qa --qf '%{NAME} %{EPOCH}:%{VERSION}\n' | sort; }
old_packages=$(packages_of)
# The repository files (CRB disabled in rocky.repo, NVIDIA's cuda-rhel9.repo): the plan enables CRB and adds
# EPEL; undo must give back these files as they were.
repos_of() { (cd "$R/etc/yum.repos.d" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
old_repos=$(repos_of)
script=$work/install-nvidia.sh
emit_install_nvidia "$script"
shellcheck "$script" || fail "the install script does not pass shellcheck"
body=$(grep '^  gd_switch_driver ' "$script") || fail "the driver step does not switch: $(grep -n 'nvidia-open' "$script")"
for name in kmod-nvidia-latest-dkms cuda-drivers nvidia-driver; do
  [[ " ${body#* -- nvidia-open -- } " == *" $name "* ]] || fail "the switch may not remove NVIDIA's $name: $body"
done
[[ " ${body#* -- nvidia-open -- } " != *" dkms "* ]] || fail "the switch may remove dkms: $body"
notes=$(sed -n '/^# Notes:/,/^#$/p' "$script" | tr -d '#\n' | tr -s ' ')
[[ $notes == *'(dnf module switch-to nvidia-driver:580-open --allowerasing)'* ]] || fail "the plan does not say how it switches: $notes"
pass "the plan switches NVIDIA's installed 570 driver with dnf module switch-to, naming what it may remove"
script_id=$(script_id_of "$script")
steps=("${switch_prepare[@]}")
run_steps "$work/switch-prepare.out"
outgoing=$(find "$R/var/cache/gpudoctor/$script_id/outgoing" -name '*-570.172.08-*.rpm' | wc -l)
((outgoing == 8)) || fail "the download step kept $outgoing RPMs of the 570 driver for undo, not 8: $(tail -5 "$work/switch-prepare.out")"
[[ $(repos_of) != "$old_repos" ]] && rpm --root "$R" -q epel-release >/dev/null ||
  fail "the prepare steps did not enable CRB and add EPEL (nothing for undo to put back)"
pass "the download step keeps the RPMs of NVIDIA's installed 570 driver (8), though its stream is no longer enabled"

# Someone else's package that needs the old kmod, installed after the plan was made: the switch would erase it.
test_dnf "$work/bootstrap.repos.d" --repofrompath="acme,file://$mirror/acme/el9/x86_64" install acme-gpu-agent \
  >"$work/acme.out" 2>&1 || fail "could not install acme-gpu-agent: $(tail -3 "$work/acme.out")"
before=$(packages_of)
if run_step install-nvidia.driver >"$work/guard.out" 2>&1; then
  fail "the switch went on though it would erase acme-gpu-agent: $(tail -5 "$work/guard.out")"
fi
grep -q "would remove or change acme-gpu-agent, which the plan does not name" "$work/guard.out" ||
  fail "the refusal does not name acme-gpu-agent: $(tail -5 "$work/guard.out")"
[[ $(packages_of) == "$before" ]] || fail "the refused switch changed packages: $(diff <(echo "$before") <(packages_of))"
pass "a switch that would erase a package the plan does not name stops before any change, naming it"
test_dnf "$work/bootstrap.repos.d" remove acme-gpu-agent >>"$work/acme.out" 2>&1 || fail "could not remove acme-gpu-agent"

steps=(install-nvidia.driver)
run_steps "$work/switch.out"
grep -q "switching it as NVIDIA's guide does, dnf module switch-to nvidia-driver:580-open --allowerasing" "$work/switch.out" ||
  fail "the step did not say how it switches: $(tail -5 "$work/switch.out")"
for want in 'kmod-nvidia-open-dkms 3:580.95.05' 'nvidia-open 3:580.95.05' 'nvidia-driver 3:580.95.05' \
  'nvidia-persistenced 3:580.95.05' 'dkms (none):3.1.5'; do
  got=$(rpm_q "${want%% *}")
  [[ $got == "$want" ]] || fail "${want%% *} is not ${want#* } (rpm says: ${got:-not installed})"
done
for gone in kmod-nvidia-latest-dkms cuda-drivers; do
  ! rpm --root "$R" -q "$gone" >/dev/null || fail "$gone is still installed after the switch"
done
grep -q $'\tpurge-package\tkmod-nvidia-latest-dkms\t570.172.08-1.el9' "$R/var/log/gpudoctor/$script_id.journal" ||
  fail "the journal does not hold the erased kmod's version"
pass "dnf module switch-to --allowerasing put the open 580 driver in place of the proprietary 570 (journaled)"

"$gpudoctor" undo --root "$R" --script "$script_id" --yes >"$work/undo.out" 2>&1 ||
  fail "undo --script $script_id failed: $(tail -15 "$work/undo.out")"
[[ $(packages_of) == "$old_packages" ]] ||
  fail "undo did not put the packages back as they were: $(diff <(echo "$old_packages") <(packages_of)); $(tail -8 "$work/undo.out")"
stream=$(sed -n 's/^stream=//p; s/^state=/state /p' "$R/etc/dnf/modules.d/nvidia-driver.module" | tr '\n' ' ')
[[ $stream == '570-dkms state enabled ' ]] || fail "undo did not enable the stream 570-dkms again: $stream"
[[ -s $R/etc/yum.repos.d/cuda-rhel9.repo && ! -e $R/etc/yum.repos.d/cuda-gpudoctor.repo ]] ||
  fail "undo did not leave NVIDIA's .repo file as it was: $(ls "$R/etc/yum.repos.d")"
[[ $(repos_of) == "$old_repos" ]] || fail "undo did not put the repository files back: $(diff <(echo "$old_repos") <(repos_of))"
pass "undo (dnf --installroot) puts the 570 driver back from the kept RPMs at its versions, with its stream 570-dkms, CRB disabled and EPEL gone"

# ---- the switch killed inside rpm's transaction, then undone ---------------------------------------------------
# A test plugin (tools/dnf_kill_plugin.py) SIGKILLs dnf and the step once rpm has installed the transaction's
# first package. rpm's sqlite database (RHEL 9's, and Debian's rpm here) commits a transaction whole: the
# database still has the 570 packages, but the files rpm had written are the 580 ones (rpm -V says so).
R=$work/rocky9-killed
proprietary_root "$R"
old_packages=$(packages_of)
old_repos=$(repos_of)
script=$work/install-nvidia-killed.sh
emit_install_nvidia "$script"
script_id=$(script_id_of "$script")
steps=("${switch_prepare[@]}")
run_steps "$work/killed-prepare.out"
prepared=$(packages_of)
mkdir -p "$work/kill-plugins"
cp "$root_dir/tools/dnf_kill_plugin.py" "$work/kill-plugins/gdkill.py"
step_plugins=(--enableplugin=gdkill "--setopt=pluginpath=$work/kill-plugins")
run_step install-nvidia.driver >"$work/killed.out" 2>&1 && killed=0 || killed=$?
step_plugins=(--enableplugin=versionlock)
((killed == 137)) || fail "the switch was not killed (exit $killed): $(tail -5 "$work/killed.out")"
mapfile -t nvidia_names < <(rpm --root "$R" -qa --qf '%{NAME}\n' | grep -E '^(nvidia-|kmod-nvidia|cuda-drivers)' | sort)
torn=$(rpm --root "$R" -V "${nvidia_names[@]}" 2>&1 | grep -c '^..5' || true)
((torn >= 1)) && [[ $(packages_of) == "$prepared" ]] ||
  fail "the kill did not cut the transaction ($torn files differ from rpm's database; $(diff <(echo "$prepared") <(packages_of) | tr '\n' ' '))"
"$gpudoctor" undo --root "$R" --script "$script_id" --yes >"$work/undo-killed.out" 2>&1 ||
  fail "undo after the kill failed: $(tail -15 "$work/undo-killed.out")"
[[ $(packages_of) == "$old_packages" ]] ||
  fail "undo after the kill did not put the packages back: $(diff <(echo "$old_packages") <(packages_of)); $(tail -8 "$work/undo-killed.out")"
verify=$(rpm --root "$R" -V "${nvidia_names[@]}" 2>&1) || fail "after undo rpm -V finds files other than the 570 packages': $verify"
[[ $(repos_of) == "$old_repos" ]] || fail "undo after the kill did not put the repository files back"
stream=$(sed -n 's/^stream=//p; s/^state=/state /p' "$R/etc/dnf/modules.d/nvidia-driver.module" | tr '\n' ' ')
[[ $stream == '570-dkms state enabled ' ]] || fail "undo after the kill did not enable the stream 570-dkms again: $stream"
pass "killed inside rpm's transaction ($torn files of the 580 driver under the 570 packages' entries): undo reinstalls the 570 driver (rpm -V content), its stream and the repository files"

[[ $(host_dnf_state) == "$host_before" ]] || fail "dnf or rpm changed this host: $(diff <(echo "$host_before") <(host_dnf_state))"
pass "nothing of dnf's or rpm's state on this host changed (logs, cache, module state, rpm database)"
