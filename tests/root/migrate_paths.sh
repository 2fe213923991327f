#!/usr/bin/env bash
# The paths a migration takes besides the plain one (issue 11, items 1-4), each in a copy of the ROCm 6
# workstation (or the CUDA 12 server) of tests/root/lib.bash, each plan also made --from a bundle of its root:
#   Secure Boot on (a fake mokutil in the root says so): NVIDIA's repository with DKMS and the DKMS key enrolled
#     as a MOK (key, mokutil --import, a stop before the reboot saying what to do at the MOK screen, the module
#     checked after the reboot); AMD with the kernel's in-tree amdgpu (no amdgpu-dkms, nothing to sign);
#   a container (/.dockerenv): no headers, DKMS, driver or reboot; the host owns the driver; the container path;
#   the incoming card (--gpu a name or a PCI id): the versions and the module flavour chosen for it, a
#     power-off to swap the card while the old one is in; without --gpu the plan says what it assumed;
#   GPUs of both vendors: the stack of the GPU that stays is not purged unless --remove-stack-of-present-gpu.
source "$(dirname "$0")/lib.bash"
root_setup

mirror_args=(--mirror file:///srv/mirror --python /home/sam/venv/bin/python3)

# fake_gpu ROOT BDF VENDOR DEVICE [REVISION]: a PCI display controller in the root's sysfs, as the collector
# reads it.
fake_gpu() {
  local dir=$1/sys/bus/pci/devices/$2
  mkdir -p "$dir"
  printf '0x%s\n' "$3" >"$dir/vendor"
  printf '0x%s\n' "$4" >"$dir/device"
  printf '0x030000\n' >"$dir/class"
  if [[ -n ${5:-} ]]; then printf '0x%s\n' "$5" >"$dir/revision"; fi
}
# old_card_machine DIR: the ROCm 6 workstation with its mirror and its card (an RX 7900 XTX) on the bus.
old_card_machine() {
  new_machine rocm6 "$1"
  add_local_mirror "$1"
  fake_gpu "$1" 0000:03:00.0 1002 744c c8
}
# The step ids of a script, in order, one a line.
steps_of() { in_root "$1" bash "$2" --list | awk '{print $2}'; }
# The plan's notes and the script text for one migrate call: emit into ROOT/tmp/gd/NAME.sh.
emit() {
  local root=$1 name=$2
  shift 2
  "$gpudoctor" migrate "$@" --root "$root" --emit "$root/tmp/gd/$name.sh" 2>"$work/$name.err" ||
    fail "migrate $* --root: $(cat "$work/$name.err")"
}
# Whether the script's header says TEXT (the notes wrap: joined into one line first).
says() { grep -qF -- "$2" <<<"$(sed -n '/^# /p' "$1" | sed 's/^# *- */\n/; s/^# *//' | tr '\n' ' ')"; }

# ==== Secure Boot ===================================================================================================
S=$roots/secure-boot
old_card_machine "$S"
cat >"$S/usr/bin/mokutil" <<'SH'
#!/bin/sh
echo "mokutil $*" >>/var/log/fake-mokutil.log
case $1 in
--sb-state) echo "SecureBoot enabled" ;;
--test-key) if [ -e /var/lib/fake-mok-enrolled ]; then echo "$2 is already enrolled"; exit 1; fi
  echo "$2 is not enrolled"; exit 0 ;;
--import) [ -s "$2" ] || { echo "cannot read $2" >&2; exit 1; }; echo "$2" >/var/lib/fake-mok-pending ;;
esac
SH
# Debian's dkms makes its signing key with openssl; the minimal root has none: a fake that writes the files.
cat >"$S/usr/local/bin/openssl" <<'SH'
#!/bin/sh
echo "openssl $*" >>/var/log/fake-openssl.log
while [ $# -gt 0 ]; do
  case $1 in -keyout) echo key >"$2"; shift ;; -out) echo cert >"$2"; shift ;; esac
  shift
done
SH
chmod 0755 "$S/usr/bin/mokutil" "$S/usr/local/bin/openssl"
emit "$S" sb --to nvidia --gpu "RTX 3090" "${mirror_args[@]}"
sb=$S/tmp/gd/sb.sh
shellcheck "$sb" || fail "the Secure Boot script does not pass shellcheck"
says "$sb" "Secure Boot is on" || fail "the plan does not say Secure Boot is on: $(grep '^#' "$sb" | sed -n 1,40p)"
says "$sb" "Machine Owner Key" || fail "the plan does not say which way it takes under Secure Boot"
mapfile -t ids < <(steps_of "$S" /tmp/gd/sb.sh)
order=" ${ids[*]} "
for id in enroll-mok.key install-nvidia.driver enroll-mok.import reboot.swap-card enroll-mok.loaded; do
  [[ $order == *" $id "* ]] || fail "no step $id under Secure Boot: $order"
done
[[ $order =~ enroll-mok\.key.*install-nvidia\.driver.*enroll-mok\.import.*reboot\.swap-card.*enroll-mok\.loaded ]] ||
  fail "the MOK steps are out of order: $order"
[[ $order == *" enroll-mok.reboot "* ]] && fail "a second restart for the MOK screen although the card swap is one: $order"
pass "Secure Boot: the plan says NVIDIA's repository + DKMS + MOK, with key, import, the stop at the power-off for the card, a check after it"
# mokutil --import asks for its one-time password on a terminal: without one (this test's runs) and without
# a password hash given up front, the prepare stage stops before anything is made or removed.
if in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.key >"$work/mok-key0.out" 2>&1; then
  fail "the key step went on without a terminal or --mok-hash-file"
fi
grep -q -- '--mok-hash-file' "$work/mok-key0.out" || fail "the refusal does not name --mok-hash-file: $(tail -3 "$work/mok-key0.out")"
[[ ! -e $S/var/lib/dkms/mok.pub ]] || fail "the refused key step made a key"
printf '$6$x$hash\n' >"$S/root/mok.hash" && chmod 0644 "$S/root/mok.hash"
chmod 0666 "$S/root/mok.hash"
if in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.key --mok-hash-file /root/mok.hash >"$work/mok-key1.out" 2>&1; then
  fail "a password hash file anyone may write was taken"
fi
chmod 0600 "$S/root/mok.hash"
pass "Secure Boot: without a terminal or a password hash file the prepare stage stops before anything changes; a hash file others may write is refused"
in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.key --mok-hash-file /root/mok.hash >"$work/mok-key.out" 2>&1 ||
  fail "the key step failed: $(tail "$work/mok-key.out")"
[[ -s $S/var/lib/dkms/mok.pub && -s $S/var/lib/dkms/mok.key ]] || fail "no DKMS signing key at dkms's place"
in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.import --mok-hash-file /root/mok.hash >"$work/mok-import.out" 2>&1 ||
  fail "the import step failed: $(tail "$work/mok-import.out")"
grep -qx 'mokutil --import /var/lib/dkms/mok.pub --hash-file /root/mok.hash' "$S/var/log/fake-mokutil.log" ||
  fail "mokutil --import was not run on the key with the hash file: $(cat "$S/var/log/fake-mokutil.log")"
status=0
in_root "$S" bash /tmp/gd/sb.sh --step reboot.swap-card --no-reboot >"$work/mok-swap.out" 2>&1 || status=$?
[[ $status == 100 ]] || fail "the swap stop did not stop (status $status): $(tail "$work/mok-swap.out")"
grep -q 'Enroll MOK' "$work/mok-swap.out" || fail "the swap stop does not say what to do at the MOK screen: $(cat "$work/mok-swap.out")"
status=0
in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.loaded >"$work/mok-loaded.out" 2>&1 || status=$?
[[ $status == 1 ]] && grep -q 'not loaded' "$work/mok-loaded.out" || fail "the check after the reboot passed without the module (status $status): $(tail "$work/mok-loaded.out")"
mkdir -p "$S/sys/module/nvidia" && touch "$S/var/lib/fake-mok-enrolled"
in_root "$S" bash /tmp/gd/sb.sh --step enroll-mok.loaded >"$work/mok-loaded2.out" 2>&1 || fail "the check after the reboot failed with the module loaded: $(tail "$work/mok-loaded2.out")"
pass "Secure Boot: the key made where dkms signs with it, mokutil --import run on it, the reboot stop names the MOK screen, the check after it needs the module loaded"
rm -rf "$S/sys/module" "$S/var/lib/fake-mok-enrolled" "$S/var/lib/dkms/mok."*
same_plan_from_snapshot "$S" --to nvidia --gpu "RTX 3090" "${mirror_args[@]}"
pass "Secure Boot: the plan --from a bundle of the root (mokutil's answer recorded) is the live one"
"$gpudoctor" fix enroll-mok --root "$S" --emit "$S/tmp/gd/mok.sh" 2>"$work/mokfix.err" || fail "fix enroll-mok: $(cat "$work/mokfix.err")"
[[ $(steps_of "$S" /tmp/gd/mok.sh | tr '\n' ' ') == "enroll-mok.key enroll-mok.import enroll-mok.reboot enroll-mok.loaded " ]] ||
  fail "fix enroll-mok is not the recipe's four steps: $(steps_of "$S" /tmp/gd/mok.sh | tr '\n' ' ')"
status=0
in_root "$S" bash /tmp/gd/mok.sh --step enroll-mok.reboot --no-reboot >"$work/mok-reboot.out" 2>&1 || status=$?
[[ $status == 100 ]] || fail "the MOK stop did not stop for the reboot (status $status): $(tail "$work/mok-reboot.out")"
grep -q 'Enroll MOK' "$work/mok-reboot.out" || fail "the stop does not say what to do at the MOK screen: $(cat "$work/mok-reboot.out")"
pass "fix enroll-mok is a recipe: key, import, the stop at the reboot saying what to do at the MOK screen, the check after it"
rm -rf "$S"

A=$roots/secure-boot-amd
new_machine cuda12 "$A"
add_local_mirror "$A"
printf '#!/bin/sh\necho "SecureBoot enabled"\n' >"$A/usr/bin/mokutil" && chmod 0755 "$A/usr/bin/mokutil"
emit "$A" sbamd --to amd "${mirror_args[@]}"
mapfile -t ids < <(steps_of "$A" /tmp/gd/sbamd.sh)
order=" ${ids[*]} "
for id in install-rocm.driver install-rocm.headers enroll-mok.import; do
  [[ $order == *" $id "* ]] && fail "Secure Boot on, the AMD plan still has $id: $order"
done
[[ $order == *" install-rocm.rocm "* ]] || fail "the AMD plan under Secure Boot lost ROCm itself: $order"
says "$A/tmp/gd/sbamd.sh" "in-tree amdgpu" || fail "the AMD plan does not say it uses the kernel's amdgpu"
same_plan_from_snapshot "$A" --to amd "${mirror_args[@]}"
pass "Secure Boot, to AMD: no amdgpu-dkms and no headers (ROCm's --no-dkms path), nothing to sign; the plan says so"
emit "$A" rx --to amd --gpu "RX 7900 XTX" "${mirror_args[@]}"
says "$A/tmp/gd/rx.sh" "supports gfx1100" || fail "the ROCm release is not chosen for the incoming RX 7900 XTX: $(grep -A2 '^#   - ROCm' "$A/tmp/gd/rx.sh")"
pass "to AMD with --gpu \"RX 7900 XTX\": the ROCm release is chosen for its gfx1100"
rm -rf "$A"

# ==== a container ====================================================================================================
C=$roots/container
new_machine rocm6 "$C"
add_local_mirror "$C"
: >"$C/.dockerenv"
emit "$C" ct --to nvidia "${mirror_args[@]}"
ct=$C/tmp/gd/ct.sh
shellcheck "$ct" || fail "the container script does not pass shellcheck"
mapfile -t ids < <(steps_of "$C" /tmp/gd/ct.sh)
order=" ${ids[*]} "
[[ $order == *" torch-reinstall.reinstall "* ]] || fail "the container plan does not swap the wheels: $order"
for bad in install-nvidia. reboot. enroll-mok. purge-rocm.dkms blacklist-nouveau.; do
  [[ $order == *" $bad"* ]] && fail "the container plan has $bad: $order"
done
says "$ct" "the host owns the driver" || fail "the container plan does not say the host owns the driver"
says "$ct" "--gpus all" || fail "the container plan does not name --gpus all"
says "$ct" "nvidia.com/gpu=all" || fail "the container plan does not name CDI"
says "$ct" "nvidia/cuda:13.0.x-runtime" || fail "the container plan does not name the base image of the CUDA it chose"
status=0
"$gpudoctor" fix install-nvidia --root "$C" --emit "$C/tmp/gd/inst.sh" >"$work/ct-fix.out" 2>&1 || status=$?
[[ $status == 2 ]] && grep -q 'container' "$work/ct-fix.out" || fail "fix install-nvidia in a container was not refused (status $status): $(cat "$work/ct-fix.out")"
same_plan_from_snapshot "$C" --to nvidia "${mirror_args[@]}"
in_root "$C" bash /tmp/gd/ct.sh --step torch-reinstall.reinstall >"$work/ct-torch.out" 2>&1 || fail "the wheel swap in the container failed: $(tail "$work/ct-torch.out")"
[[ $(in_root "$C" /home/sam/venv/bin/python -c 'import torch; print(torch.__version__)') == 2.9.0+cu130 ]] || fail "the container's venv has no cu130 torch"
pass "container: no headers, DKMS, driver or reboot; the host owns the driver, base image, --gpus all and CDI named; the wheels swapped inside; fix install-nvidia refused"
rm -rf "$C"

# ==== the incoming card ==============================================================================================
I=$roots/incoming
old_card_machine "$I"
emit "$I" rtx3090 --to nvidia --gpu "RTX 3090" "${mirror_args[@]}"
f=$I/tmp/gd/rtx3090.sh
says "$f" "RTX 3090" || fail "the plan does not name the incoming RTX 3090"
grep -q "^  gd_install_packages nvidia-open-580 --$" "$f" || fail "the RTX 3090 does not get nvidia-open-580: $(grep gd_install_packages "$f")"
mapfile -t ids < <(steps_of "$I" /tmp/gd/rtx3090.sh)
order=" ${ids[*]} "
[[ $order == *" reboot.swap-card "* && $order != *" reboot.reboot "* ]] || fail "no power-off to swap the card: $order"
status=0
in_root "$I" bash /tmp/gd/rtx3090.sh --step reboot.swap-card --no-reboot >"$work/swap.out" 2>&1 || status=$?
[[ $status == 100 ]] && grep -q 'Power the machine off' "$work/swap.out" || fail "the swap step did not stop to power off (status $status): $(cat "$work/swap.out")"
same_plan_from_snapshot "$I" --to nvidia --gpu "RTX 3090" "${mirror_args[@]}"
pass "incoming RTX 3090: CUDA 13.0, driver 580 with open modules, a power-off to swap it in while the RX 7900 XTX is in"

emit "$I" gtx1080 --to nvidia --gpu "GTX 1080" "${mirror_args[@]}"
f=$I/tmp/gd/gtx1080.sh
grep -q "^  gd_install_packages cuda-drivers-580 --$" "$f" || fail "the GTX 1080 does not get the proprietary 580: $(grep gd_install_packages "$f")"
grep -q "^  gd_install_packages cuda-toolkit-12-" "$f" || fail "the GTX 1080 (sm_61) does not get CUDA 12"
says "$f" "the first of NVIDIA's long-term support" || fail "the plan does not say why it took branch 580 over CUDA 12's minimum"
pass "incoming GTX 1080 (Pascal): CUDA 12, the proprietary modules, R580 (long-term support) rather than the short-lived minimum branch"
emit "$I" rtx5090 --to nvidia --gpu 10de:2b85 "${mirror_args[@]}"
grep -q "^  gd_install_packages nvidia-open-580 --$" "$I/tmp/gd/rtx5090.sh" || fail "the RTX 5090 (by PCI id) does not get the open modules"
says "$I/tmp/gd/rtx5090.sh" "RTX 5090 (Blackwell) needs them" || fail "the plan does not say Blackwell needs the open modules"
pass "incoming 10de:2b85 (RTX 5090, Blackwell): the open modules, which it needs"
emit "$I" old --to nvidia --gpu "RTX 3090" --cuda 12.4 --driver 550 "${mirror_args[@]}"
says "$I/tmp/gd/old.sh" "before R560 NVIDIA's default was the proprietary modules" ||
  fail "the note on defaults is not true for R550: $(grep -A1 'kernel modules' "$I/tmp/gd/old.sh" | sed -n 1,4p)"
pass "with --driver 550 the plan does not call the open modules the default"
emit "$I" assumed --to nvidia "${mirror_args[@]}"
says "$I/tmp/gd/assumed.sh" "--gpu did not name the incoming card" || fail "without --gpu the plan does not say what it assumed"
pass "without --gpu the plan says what it assumed"
status=0
"$gpudoctor" migrate --to nvidia --gpu "RTX 9999" --root "$I" --emit "$I/tmp/gd/bad.sh" >"$work/bad.out" 2>&1 || status=$?
[[ $status == 2 ]] && grep -q 'RTX 9999' "$work/bad.out" && grep -q 'names no' "$work/bad.out" || fail "an unknown --gpu was not refused clearly (status $status): $(cat "$work/bad.out")"
status=0
"$gpudoctor" migrate --to nvidia --gpu "RX 7900 XTX" --root "$I" --emit "$I/tmp/gd/bad.sh" >"$work/bad2.out" 2>&1 || status=$?
[[ $status == 2 ]] && grep -q 'AMD' "$work/bad2.out" || fail "an AMD --gpu for --to nvidia was not refused (status $status): $(cat "$work/bad2.out")"
pass "an unknown --gpu, or one of the other vendor, is refused with the reason"
rm -rf "$I"

# ==== GPUs of both vendors ===========================================================================================
B=$roots/both
old_card_machine "$B"
fake_gpu "$B" 0000:04:00.0 10de 2204
status=0
"$gpudoctor" migrate --to nvidia --root "$B" "${mirror_args[@]}" --emit "$B/tmp/gd/both.sh" >"$work/both.out" 2>&1 || status=$?
[[ $status == 2 && ! -e $B/tmp/gd/both.sh ]] || fail "a migration that purges the stack of a GPU that stays was not refused (status $status)"
for want in 'RX 7900 XTX' 'fix install-nvidia' '--remove-stack-of-present-gpu'; do
  grep -qF -- "$want" "$work/both.out" || fail "the refusal does not say '$want': $(cat "$work/both.out")"
done
emit "$B" both --to nvidia --remove-stack-of-present-gpu "${mirror_args[@]}"
grep -q '^  gd_purge_packages ' "$B/tmp/gd/both.sh" || fail "--remove-stack-of-present-gpu did not purge ROCm"
[[ " $(steps_of "$B" /tmp/gd/both.sh | tr '\n' ' ')" == *" reboot.reboot "* ]] || fail "both cards in: the plan should reboot, not swap"
same_plan_from_snapshot "$B" --to nvidia --remove-stack-of-present-gpu "${mirror_args[@]}"
pass "both vendors' GPUs: the ROCm stack of the AMD GPU that stays is not purged without --remove-stack-of-present-gpu; the refusal points at fix install-nvidia"
rm -rf "$B"
