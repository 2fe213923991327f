// The libFuzzer driver of every target: one executable per entry of a table (fuzz/parser_targets.hpp: the
// parsers; fuzz/snapshot_targets.hpp: the snapshot reader and the unpacker), the header, the table and the
// entry chosen at build time (GPUDOCTOR_FUZZ_HEADER, GPUDOCTOR_FUZZ_TABLE, GPUDOCTOR_FUZZ_TARGET). An
// exception escaping a reader (a broken invariant throws one), a sanitizer report or a timeout is a crash.
#include GPUDOCTOR_FUZZ_HEADER

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#if !defined(GPUDOCTOR_FUZZ_TARGET) || !defined(GPUDOCTOR_FUZZ_TABLE)
#error "define GPUDOCTOR_FUZZ_HEADER, GPUDOCTOR_FUZZ_TABLE and GPUDOCTOR_FUZZ_TARGET (fuzz/CMakeLists.txt)"
#endif

namespace {

const auto* selected = static_cast<decltype(&GPUDOCTOR_FUZZ_TABLE[0])>(nullptr);

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& t : GPUDOCTOR_FUZZ_TABLE)
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
