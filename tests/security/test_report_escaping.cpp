// Every output is safe for its reader (docs/security.md, "Outputs"): the text report of hand-made facts and
// results whose strings hold terminal escape sequences, controls and bytes that are not UTF-8.
#include "report/report.hpp"
#include "security/inert_text.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using security::first_offence;

TEST_SUITE("security") {

  TEST_CASE("text report: snapshot strings reach the terminal escaped, gpudoctor's own colours stay") {
    std::string evil = "\x1b[2J\x1b[5;31m\x1b]52;c;ZXZpbA==\x07\r\xc2\x9b"
                       "31m\xe2\x80\xae\xff\x08\nfake: line";
    Report report;
    report.source_kind = "snapshot";
    report.source_path = "/tmp/bundle" + evil;
    Facts& f = report.facts;
    f.hostname = "host" + evil;
    f.os.pretty_name = {"Ubuntu" + evil, "file /etc/os-release"};
    f.os.kernel_release = {"6.8.0" + evil, "file /proc/sys/kernel/osrelease"};
    f.os.in_container = true;
    f.os.container_evidence = "docker" + evil;
    Gpu gpu;
    gpu.bdf = "0000:01:00.0" + evil;
    gpu.vendor = Vendor::nvidia;
    gpu.pci_ids_name = "GeForce" + evil;
    gpu.driver = {"nvidia" + evil, "link"};
    f.gpus.push_back(gpu);
    f.nvidia.kernel_module_version = {"570.1" + evil, "file"};
    f.nvidia.smi_driver_version = {"570.1" + evil, "cmd"};
    f.amd.rocminfo_failure = {"ROCk" + evil, "cmd"};
    f.toolkits.cuda.push_back({"/usr/local/cuda" + evil, {"12.4" + evil, "file"}});
    f.toolkits.nvcc_path = {"/usr/bin/nvcc" + evil, "env PATH"};
    f.toolkits.rocm.push_back({"/opt/rocm" + evil, {"6.2" + evil, "file"}, false, {}});
    for (auto status : {Status::error, Status::warn, Status::info, Status::pass, Status::skip})
      report.results.push_back(
          {"env.hostile", status, "gpu0" + evil, "Title" + evil, "message" + evil, {"evidence" + evil}, {}});
    // What to do, as a step and as a command (a catalogue's text is not quoted: the renderer escapes it).
    report.results[0].action = Action::step("step" + evil);
    report.results[1].action = Action{Action::Kind::command, "command" + evil};

    Catalogue cat;
    for (bool color : {false, true}) {
      for (bool verbose : {false, true}) {
        CAPTURE(color);
        CAPTURE(verbose);
        std::string out = render_text(report, cat, {verbose, color});
        REQUIRE(out.find("message") != std::string::npos);
        // Take gpudoctor's own colours out (report_text.cpp's SGR codes); then nothing may remain.
        std::string plain;
        for (std::size_t i = 0; i < out.size(); ++i) {
          bool own = false;
          for (const char* code : {"0", "1", "2", "32", "36", "1;31", "1;32", "1;33"}) {
            std::string seq = std::string("\x1b[") + code + "m";
            if (color && out.compare(i, seq.size(), seq) == 0) {
              i += seq.size() - 1;
              own = true;
              break;
            }
          }
          if (!own) plain += out[i];
        }
        CHECK(first_offence(plain, "\n") == "");
        CHECK(plain.find("\nfake: line") == std::string::npos); // a value cannot start a line of its own
        CHECK(plain.find("\\x1b[2J") != std::string::npos);     // and what it held is still there to see
        CHECK(plain.find("→ step\\x1b[2J") != std::string::npos);
        CHECK(plain.find("→ run: command\\x1b[2J") != std::string::npos);
      }
    }
  }

} // TEST_SUITE
