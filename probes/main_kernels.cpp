// gpudoctor-probe-<backend>-kernels: the probes that launch kernels (kernels.cu).
#include "probes.h"

int main(int argc, char** argv) {
  static const probe::Entry table[] = {{"kernel", probe::run_kernel},
                                       {"memory-bandwidth", probe::run_memory_bandwidth}};
  return probe::dispatch(argc, argv, table, 2);
}
