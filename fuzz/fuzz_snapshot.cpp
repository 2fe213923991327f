// libFuzzer driver for the snapshot reader and the unpacker: one executable per entry of
// fuzz/snapshot_targets.hpp, chosen at build time by GPUDOCTOR_FUZZ_TARGET. An exception escaping a reader (a
// broken invariant throws one), a sanitizer report or a timeout is a crash.
#include "snapshot_targets.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#ifndef GPUDOCTOR_FUZZ_TARGET
#error "define GPUDOCTOR_FUZZ_TARGET to the name of a table entry"
#endif

namespace {

const gpudoctor::fuzz::SnapshotTarget* selected = nullptr;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& t : gpudoctor::fuzz::k_snapshot_targets)
    if (std::strcmp(t.name, GPUDOCTOR_FUZZ_TARGET) == 0) selected = &t;
  if (!selected) {
    std::fprintf(stderr, "no fuzz target named %s\n", GPUDOCTOR_FUZZ_TARGET);
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  selected->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
