#!/usr/bin/env bash
# gpudoctor check on this very machine, judged against what independent commands say about it.
source "$(dirname "$0")/common.bash"
report=$work/report.json
status=0
"$gpudoctor" check --format json >"$report" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
expect "$report" "r['format']=='gpudoctor-report' and r['version']==1" "the report is format 1"

# GPUs on the PCI bus, counted straight from sysfs (class 03xx or 1200, vendor 10de or 1002).
gpus=0
for dev in /sys/bus/pci/devices/*; do
  [[ -r $dev/class && -r $dev/vendor ]] || continue
  class=$(<"$dev/class") vendor=$(<"$dev/vendor")
  [[ $vendor == 0x10de || $vendor == 0x1002 ]] || continue
  [[ $class == 0x03* || $class == 0x1200* ]] && gpus=$((gpus + 1))
done
expect "$report" "len(r['facts']['gpus'])==$gpus" "gpudoctor sees the $gpus GPUs sysfs lists"
if ((gpus == 0)); then
  [[ $(statuses "$report" gpu.none) == info ]] || fail "gpu.none is not info on a machine without GPU"
  pass "gpu.none says there is no GPU"
  expect "$report" "r['summary']['error']==0" "no error on a machine without GPU"
  [[ $status == 0 ]] || fail "exit status $status with no error result"
fi

# A CUDA toolkit: the version nvcc itself prints must be the one reported.
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  release=$(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  expect "$report" "any(c['version'] and c['version']['value'].startswith('$release') for c in r['facts']['toolkits']['cuda'])" \
    "the CUDA $release toolkit is reported"
  if [[ ! -e /proc/driver/nvidia/version ]]; then
    want=$([[ $gpus == 0 ]] && echo info || echo error)
    [[ $(statuses "$report" cuda.no-driver) == "$want" ]] || fail "cuda.no-driver is not $want"
    pass "cuda.no-driver is $want: a toolkit without a driver"
  fi
fi

# ROCm from Debian's packages, without the kernel side.
if [[ $(dpkg-query -W -f='${Status}' hipcc 2>/dev/null) == *'install ok installed'* ]]; then
  hip=$(dpkg-query -W -f='${Version}' hipcc | sed 's/^[0-9]*://; s/-.*//')
  expect "$report" "any(x['distribution_package'] and x['version']['value']=='$hip' for x in r['facts']['toolkits']['rocm'])" \
    "ROCm $hip from the distribution's packages is reported"
  if [[ ! -e /dev/kfd ]]; then
    expect "$report" "not r['facts']['drivers']['amd']['kfd_device']" "no /dev/kfd is reported"
  fi
  amd_gpus=$({ grep -l 0x1002 /sys/bus/pci/devices/*/vendor 2>/dev/null || true; } | wc -l)
  if [[ ! -e /dev/kfd ]] && ((amd_gpus == 0)); then
    # Without /dev/kfd and an AMD GPU, rocminfo could only say there is none: it is not run.
    expect "$report" "not any(t['key']=='rocminfo' for t in r['facts']['tools'])" \
      "rocminfo is not run where there is neither /dev/kfd nor an AMD GPU"
  elif command -v rocminfo >/dev/null && ! rocminfo >/dev/null 2>&1; then
    expect "$report" "any(x['id']=='tool.failed' and x['subject']=='rocminfo' and x['status']=='info' for x in r['results'])" \
      "rocminfo's failure is an info result, not an error"
  fi
fi

# The kernel log: read with dmesg where this user may (root here), else from the journal, else skipped with the
# reason; never copied into the report.
if dmesg >/dev/null 2>&1; then
  expect "$report" "r['facts']['health']['kernel_log']['read'] and r['facts']['health']['kernel_log']['reader']=='dmesg'" \
    "the kernel log is read with dmesg"
  expect "$report" "r['facts']['health']['kernel_log']['messages'] > 0" "its messages are counted"
  expect "$report" "all('first_line' not in e and 'last_line' not in e for e in r['facts']['health']['kernel_log']['events'])" \
    "the log's lines are not in the report's facts (only counted events)"
fi

# PyTorch of the system python3, asked of torch itself (slow, so only here).
if [[ -x /usr/bin/python3 ]] && torch=$(/usr/bin/python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.version.hip)' 2>/dev/null); then
  read -r tver tcuda thip <<<"$torch"
  expect "$report" "any(e['torch'] and e['torch']['version']=='$tver' for e in r['facts']['python']['interpreters'])" \
    "PyTorch $tver of /usr/bin/python3 is reported"
  if [[ $tcuda == None && $thip == None ]]; then
    expect "$report" "any(e['torch'] and e['torch']['version']=='$tver' and e['torch']['cuda'] is None and e['torch']['hip'] is None for e in r['facts']['python']['interpreters'])" \
      "it is reported CPU-only, as torch.version says"
  fi
fi
# The python3 first on PATH is reported, whatever it is.
if command -v python3 >/dev/null; then
  expect "$report" "any(e['role']=='PATH' for e in r['facts']['python']['interpreters'])" "the python3 on PATH is reported"
fi

# The text report says the same in words, and nothing is an error on this machine without GPUs.
text=$("$gpudoctor" check --color never) || true
grep -q '^Machine' <<<"$text" || fail "the text report has no Machine section"
if ((gpus == 0)); then
  grep -q 'No problems found' <<<"$text" || fail "the text report reports problems on a machine without GPU"
fi
pass "text report"
