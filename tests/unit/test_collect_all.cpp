// The whole collection: a collector that throws is named in Facts::collector_errors and the run goes on.
#include "check_fixtures.hpp"
#include "collect/collectors.hpp"
#include "system/machine_paths.hpp"
#include "testutil.hpp"

#include <stdexcept>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// A machine whose NVIDIA driver file makes the reader throw, as a parser bug or std::bad_alloc would.
class ThrowingNvidiaFile : public MemView {
public:
  std::optional<std::string> read_file(const std::string& path) override {
    if (path == paths::nvidia_driver_version) throw std::runtime_error("boom in the driver file");
    return MemView::read_file(path);
  }
};

} // namespace

TEST_CASE("collect: a collector that throws is named, and the other collectors and the checks still run") {
  ThrowingNvidiaFile v;
  v.files["/etc/os-release"] = "ID=ubuntu\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n";
  v.files[paths::kernel_release] = "6.8.0-49-generic\n";
  v.env["HSA_OVERRIDE_GFX_VERSION"] = "9.4.2";

  Report report = judged_by(v);
  const Facts& f = report.facts;
  REQUIRE(f.collector_errors.size() == 1);
  CHECK(f.collector_errors[0] == "nvidia: boom in the driver file");
  // What the other collectors found is kept...
  CHECK(f.os.kernel_release.value == std::optional<std::string>("6.8.0-49-generic"));
  CHECK(f.env.all.count("HSA_OVERRIDE_GFX_VERSION") == 1);
  // ...and judged.
  CHECK(report.results.size() > 20);
  // The report says what could not be collected.
  std::string text = render_text(report, loaded_data().cat, TextOptions{});
  CHECK(text.find("nvidia: boom in the driver file") != std::string::npos);
}
