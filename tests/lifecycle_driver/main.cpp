// A stand-in for a gpudoctor run, for tests/security/process_after_apply.sh: it starts the lifecycle as main
// does (system/lifecycle), then runs each argument as a tool run (`tool:CMD`, system/process run_process) or
// as an --apply step (`step:CMD`, run_foreground), each through /bin/sh -c, and returns 0, so that what the
// lifecycle does at the end is what the test sees.
#include "system/lifecycle.hpp"
#include "system/process.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

int main(int argc, char** argv) {
  gpudoctor::start_lifecycle();
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    auto colon = arg.find(':');
    std::string kind = arg.substr(0, colon == std::string::npos ? 0 : colon);
    std::string command = colon == std::string::npos ? "" : arg.substr(colon + 1);
    if (kind == "tool") {
      gpudoctor::CommandSpec spec{
          "driver-tool", {"/bin/sh", "-c", command}, std::chrono::milliseconds(10000)};
      auto result = gpudoctor::run_process(spec, env, {});
      std::printf("tool exit %d\n", result.exit_code.value_or(-1));
    } else if (kind == "step") {
      std::printf("step exit %d\n", gpudoctor::run_foreground({"/bin/sh", "-c", command}));
    } else {
      std::fprintf(stderr, "usage: %s tool:CMD|step:CMD ...\n", argv[0]);
      return 2;
    }
  }
  return 0;
}
