// gpudoctor-probe-<backend>: the probes that need no device code of their own, so they still run when the
// binary holds no code for the GPU (and a HIP runtime would refuse a binary that does).
#include "probes.h"

int main(int argc, char** argv) {
  static const probe::Entry table[] = {{"devices", probe::run_devices},
                                       {"host-bandwidth", probe::run_host_bandwidth},
                                       {"p2p", probe::run_p2p},
                                       {"alloc", probe::run_alloc}};
  return probe::dispatch(argc, argv, table, 4);
}
