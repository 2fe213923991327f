// The formats for programs (report/program_formats.hpp) on hand-made reports: the bounds that the fixture
// machines of tests/e2e/program_formats.sh never reach (long labels, many subjects, many problems).
#include "report/program_formats.hpp"
#include "report/text_bounds.hpp"

#include <regex>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;

namespace {

Result result(std::string id, Status status, std::string subject = {}, std::string title = "Title") {
  return {std::move(id), status, std::move(subject), std::move(title), "message", {}, {}};
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

} // namespace

TEST_CASE("bounded text: cut on a character boundary, marked, and two long values stay two") {
  std::string a = std::string(100, 'a') + "é" + std::string(100, 'x');
  std::string b = std::string(100, 'a') + "é" + std::string(100, 'y');
  for (std::size_t max : {16, 40, 101, 102, 103, 128}) {
    CAPTURE(max);
    std::string ba = bounded(a, max), bb = bounded(b, max);
    CHECK(ba.size() <= max);
    CHECK(valid_utf8(ba));
    CHECK(ba != bb);
    CHECK(ba.find("…#") != std::string::npos);
  }
  CHECK(bounded("short", 16) == "short");
  CHECK(utf8_prefix("aé", 2) == "a");
  CHECK(utf8_prefix("aé", 3) == "aé");
}

TEST_CASE(
    "prometheus: one series per id and subject with the worst status; subjects bounded in number and size") {
  Report report;
  report.results.push_back(result("gpu.same", Status::pass, "gpu0"));
  report.results.push_back(result("gpu.same", Status::error, "gpu0"));
  report.results.push_back(result("gpu.same", Status::warn, "gpu0"));
  for (std::size_t i = 0; i < k_subjects_per_check + 8; ++i)
    report.results.push_back(result("env.many", i == k_subjects_per_check + 3 ? Status::warn : Status::pass,
                                    fmt::format("VAR_{:03}", i)));
  report.results.push_back(result("env.long", Status::info, std::string(1000, 'v')));
  std::string out = render_prometheus(report);

  auto same = lines_starting(out, "gpudoctor_check_result{id=\"gpu.same\"");
  REQUIRE(same.size() == 1);
  CHECK(same[0] == "gpudoctor_check_result{id=\"gpu.same\",subject=\"gpu0\"} 4");

  auto many = lines_starting(out, "gpudoctor_check_result{id=\"env.many\"");
  CHECK(many.size() == k_subjects_per_check + 1);
  auto others = lines_starting(out, "gpudoctor_check_result{id=\"env.many\",subject=\"(others)\"}");
  REQUIRE(others.size() == 1);
  CHECK(others[0].ends_with(" 3")); // the warning beyond the bound still shows, in the shared series

  auto longer = lines_starting(out, "gpudoctor_check_result{id=\"env.long\"");
  REQUIRE(longer.size() == 1);
  std::smatch m;
  REQUIRE(std::regex_search(longer[0], m, std::regex("subject=\"([^\"]*)\"")));
  CHECK(m[1].length() <= static_cast<long>(k_label_bytes));

  CHECK(lines_starting(out, "gpudoctor_results{").size() == 5);
  CHECK(out.find("status=\"error\"} 1") != std::string::npos);
  CHECK(metric_value(Status::pass) < metric_value(Status::skip));
  CHECK(metric_value(Status::skip) < metric_value(Status::info));
  CHECK(metric_value(Status::info) < metric_value(Status::warn));
  CHECK(metric_value(Status::warn) < metric_value(Status::error));
}

TEST_CASE("prometheus: per-GPU series carry the labels dcgm-exporter writes, a key tells results apart") {
  Report report;
  Facts& f = report.facts;
  // Two NVIDIA GPUs (nvidia-smi lists them in bus order) and two AMD ones whose KFD nodes run against bus
  // order.
  for (int i = 0; i < 4; ++i) {
    Gpu g;
    g.index = i;
    g.bdf = fmt::format("0000:{:02x}:00.0", 0x18 + i);
    g.vendor = i < 2 ? Vendor::nvidia : Vendor::amd;
    g.link_width_current = 8;
    g.link_width_max = 16;
    g.link_speed_max = "32.0 GT/s PCIe";
    if (g.vendor == Vendor::amd) {
      g.kfd = KfdNode{};
      g.kfd->node_id = i == 2 ? 3 : 2; // gpu3's node comes first: amd-smi's (and HIP's) index 0
      g.ras = {{"umc", 1, 7, "ras/umc_err_count"}};
    }
    f.gpus.push_back(g);
  }
  for (int i = 0; i < 2; ++i) {
    NvidiaSmiGpu s;
    s.bus_id = fmt::format("00000000:{:02X}:00.0", 0x18 + i);
    s.bdf = f.gpus[i].bdf;
    s.uuid = fmt::format("GPU-{}", i);
    s.temperature_celsius = 40 + i;
    s.health.aggregate_uncorrectable = 3;
    f.nvidia.smi_gpus.push_back(s);
  }
  BackendProbes b;
  b.backend = "cuda";
  for (int i = 0; i < 2; ++i) {
    ProbeDevice d;
    d.index = i;
    d.pci_bus_id = f.gpus[i].bdf;
    b.devices.push_back(d);
  }
  ProbeBandwidth p2p;
  p2p.device = 0;
  p2p.peer = 1;
  p2p.test = "p2p";
  p2p.best_gbps = 20.5;
  b.p2p.push_back(p2p);
  f.probes.backends.push_back(b);
  Result xid = result("kernel.xid", Status::error, f.gpus[1].subject());
  for (const char* code : {"79", "48"}) {
    xid.key = code;
    report.results.push_back(xid);
  }
  report.results.push_back(result("env.nccl-invalid", Status::warn, "NCCL_ALGO"));
  std::string out = render_prometheus(report);

  const std::string gpu1 = "gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:19:00.0\",bdf=\"0000:19:00.0\"";
  CHECK(lines_starting(
            out, "gpudoctor_check_result{id=\"kernel.xid\",subject=\"gpu1 (0000:19:00.0)\",key=\"48\"," +
                     gpu1 + "} 4")
            .size() == 1);
  CHECK(lines_starting(
            out, "gpudoctor_check_result{id=\"kernel.xid\",subject=\"gpu1 (0000:19:00.0)\",key=\"79\"," +
                     gpu1 + "} 4")
            .size() == 1);
  CHECK(lines_starting(out, "gpudoctor_check_failed{id=\"kernel.xid\"").size() == 2);
  CHECK(
      lines_starting(out, "gpudoctor_check_result{id=\"env.nccl-invalid\",subject=\"NCCL_ALGO\"} 3").size() ==
      1);
  CHECK(
      lines_starting(out, "gpudoctor_check_failed{id=\"env.nccl-invalid\",subject=\"NCCL_ALGO\"} 0").size() ==
      1);
  CHECK(lines_starting(out, "gpudoctor_gpu_info{" + gpu1 + ",vendor=\"nvidia\"").size() == 1);
  // AMD: the KFD nodes' order, no UUID, the bus id in dcgm-exporter's form.
  CHECK(
      lines_starting(
          out,
          "gpudoctor_gpu_info{gpu=\"0\",pci_bus_id=\"00000000:1B:00.0\",bdf=\"0000:1b:00.0\",vendor=\"amd\"")
          .size() == 1);
  CHECK(
      lines_starting(
          out,
          "gpudoctor_gpu_info{gpu=\"1\",pci_bus_id=\"00000000:1A:00.0\",bdf=\"0000:1a:00.0\",vendor=\"amd\"")
          .size() == 1);
  CHECK(lines_starting(out, "gpudoctor_gpu_temperature_celsius{" + gpu1 + "} 41").size() == 1);
  CHECK(lines_starting(out, "gpudoctor_gpu_ecc_errors{" + gpu1 +
                                ",severity=\"uncorrectable\",counter=\"aggregate\"} 3")
            .size() == 1);
  CHECK(lines_starting(out, "gpudoctor_gpu_ras_errors{gpu=\"1\",pci_bus_id=\"00000000:1A:00.0\",bdf=\"0000:"
                            "1a:00.0\",block=\"umc\",severity=\"corrected\"} 7")
            .size() == 1);
  CHECK(lines_starting(out, "gpudoctor_gpu_pcie_link_speed_transfers_per_second{" + gpu1 +
                                ",state=\"max\"} 32000000000")
            .size() == 1);
  CHECK(lines_starting(out, "gpudoctor_gpu_pcie_link_width{" + gpu1 + ",state=\"current\"} 8").size() == 1);
  CHECK(lines_starting(out,
                       "gpudoctor_probe_p2p_bandwidth_bytes_per_second{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id="
                       "\"00000000:18:00.0\",bdf=\"0000:18:00.0\",peer_bdf=\"0000:19:00.0\"} 20500000000")
            .size() == 1);
  // Two PCIe 5.0 x16 links: half of 63 GB/s.
  auto floor = lines_starting(out, "gpudoctor_probe_p2p_bandwidth_floor_bytes_per_second{gpu=\"0\"");
  REQUIRE(floor.size() == 1);
  // Families without a sample are not written (no GPU here retires pages, none reports power).
  CHECK(out.find("gpudoctor_gpu_retired_pages") == std::string::npos);
  CHECK(out.find("gpudoctor_gpu_power_watts") == std::string::npos);
  // The probe unit's textfile: none of the timer's families, so node_exporter reads the two together.
  std::string probes = render_prometheus_probes(report);
  for (const char* family : {"gpudoctor_check_result", "gpudoctor_gpu_info", "gpudoctor_build_info",
                             "gpudoctor_last_run_timestamp_seconds"})
    CHECK_MESSAGE(probes.find(std::string(family) + "{") == std::string::npos, family);
  CHECK(lines_starting(probes, "gpudoctor_probe_result{id=\"kernel.xid\"").size() == 2);
  CHECK(lines_starting(probes, "gpudoctor_probe_p2p_bandwidth_bytes_per_second{").size() == 1);
}

TEST_CASE("npd: exit statuses, the ids first, counted when they do not fit, cut on a character boundary") {
  Report report;
  report.results.push_back(result("env.warned", Status::warn));
  CHECK(render_npd(report, false, 80).exit_status == 0);
  CHECK(render_npd(report, false, 80).message == "no errors; warnings: env.warned");
  CHECK(render_npd(report, true, 80).exit_status == 1);
  CHECK(render_npd(report, true, 80).message.starts_with("env.warned: Title"));

  for (int i = 0; i < 12; ++i)
    report.results.push_back(result(fmt::format("gpu.problem-{:02}", i), Status::error, "gpu0 (0000:01:00.0)",
                                    "Ünïcödé títlé with ümläüts everywhere"));
  for (std::size_t max : {40, 41, 57, 80, 81, 82, 83, 200, 1000}) {
    CAPTURE(max);
    NpdOutput npd = render_npd(report, false, max);
    CHECK(npd.exit_status == 1);
    CHECK(npd.message.size() <= max);
    CHECK(valid_utf8(npd.message));
    CHECK(npd.message.starts_with("gpu.problem-00"));
    CHECK(npd.message.find('\n') == std::string::npos);
    CHECK(npd.message.find("env.warned") == std::string::npos); // not strict: warnings are not problems
    if (max < 200) CHECK(npd.message.find("more)") != std::string::npos);
  }
  CHECK(render_npd(report, false, 1000).message.find("(+") == std::string::npos);
}

TEST_CASE("npd: what to do follows the problem where all of it fits, never cut") {
  Report report;
  report.results.push_back(result("env.nccl-invalid", Status::error, "NCCL_ALGO", "Bad NCCL value"));
  report.results.back().action = Action::command({{"export", "NCCL_ALGO=Ring"}});
  CHECK(render_npd(report, false, 80).message ==
        "env.nccl-invalid: Bad NCCL value [NCCL_ALGO] → export NCCL_ALGO=Ring");
  CHECK(render_npd(report, false, 60).message == "env.nccl-invalid: Bad NCCL value [NCCL_ALGO]");
  report.results.back().fixes = {"env-nccl-defaults"}; // a fix is named before an action
  CHECK(render_npd(report, false, 200).message ==
        "env.nccl-invalid: Bad NCCL value [NCCL_ALGO] → gpudoctor fix env-nccl-defaults");
  report.results.back().fixes.clear();
  report.results.back().action = Action::step("Reseat the card.");
  CHECK(render_npd(report, false, 200).message == "env.nccl-invalid: Bad NCCL value [NCCL_ALGO]");
}

TEST_CASE("npd: a run that could not judge the node says why, on one line that fits") {
  std::string why =
      "cannot read snapshot /srv/bundles/node07-ünïcödé.tar.gz: not a readable archive: truncated\nsecond";
  for (std::size_t max : {40, 80, 200}) {
    CAPTURE(max);
    std::string line = render_npd_failure(why, max);
    CHECK(line.starts_with("gpudoctor could not judge this node"));
    CHECK(line.size() <= max);
    CHECK(valid_utf8(line));
    CHECK(line.find('\n') == std::string::npos);
  }
  CHECK(render_npd_failure(why, 200).find("cannot read snapshot") != std::string::npos);
}
