// env.nccl-unknown, env.nccl-invalid, env.nccl-p2p-disabled, env.nccl-ifname-missing, env.nccl-risky
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

void add_conf(Facts& f, const std::string& path, const std::string& role,
              std::vector<std::pair<std::string, std::string>> settings) {
  NcclConfFile file;
  file.path = path;
  file.role = role;
  int line = 1;
  for (auto& [name, value] : settings)
    file.settings.push_back({name, value, line++});
  f.env.nccl_conf.push_back(std::move(file));
}

Facts with_interfaces(Facts f, std::vector<std::string> interfaces, std::vector<std::string> ib = {}) {
  f.network.interfaces = std::move(interfaces);
  f.network.interfaces_source = "/sys/class/net";
  f.network.ib_devices = std::move(ib);
  f.network.ib_source = "/sys/class/infiniband";
  return f;
}

} // namespace

// ---- env.nccl-unknown -----------------------------------------------------------------------------------

TEST_CASE("check: env.nccl-unknown suggests the closest name for a typo") {
  Facts f = nvidia_machine(8);
  set_env(f, "NCCL_IB_DISABEL", "1");
  auto r = single(run_check("env.nccl-unknown", f));
  expect_fired(r, Status::warn, "NCCL_IB_DISABEL",
               {"NCCL_IB_DISABEL", "no effect", "Did you mean NCCL_IB_DISABLE?"}, {});
  CHECK(r.evidence.front() == "env NCCL_IB_DISABEL=1");
}

TEST_CASE("check: env.nccl-unknown says removed knobs have no effect") {
  Facts f = nvidia_machine(2);
  set_env(f, "NCCL_LL_THRESHOLD", "0");
  auto r = single(run_check("env.nccl-unknown", f));
  expect_fired(r, Status::warn, "NCCL_LL_THRESHOLD", {"removed in NCCL 2.5", "no effect"}, {});
}

TEST_CASE("check: env.nccl-unknown passes known, RCCL, family, foreign and deprecated names") {
  Facts f = nvidia_machine(2);
  for (const char* name : {"NCCL_DEBUG", "NCCL_SHM_USE_CUDA_MEMCPY", "RCCL_MSCCL_ENABLE", "NCCL_GIN_ENABLE",
                           "NCCL_VERSION", "NCCL_ASYNC_ERROR_HANDLING", "NCCL_MAX_NCHANNELS", "NCCL_COMM_ID"})
    set_env(f, name, "1");
  auto results = run_check("env.nccl-unknown", f);
  CHECK(results.size() == 8);
  for (const auto& r : results) {
    INFO(describe(r));
    CHECK(r.status == Status::pass);
  }
  CHECK(contains(for_subject(results, "NCCL_VERSION")->message, "not NCCL's"));
  CHECK(contains(for_subject(results, "NCCL_ASYNC_ERROR_HANDLING")->message,
                 "TORCH_NCCL_ASYNC_ERROR_HANDLING"));
  CHECK(contains(for_subject(results, "NCCL_MAX_NCHANNELS")->message, "NCCL_MAX_CTAS replaces it"));
  CHECK(contains(for_subject(results, "NCCL_SHM_USE_CUDA_MEMCPY")->message, "RCCL"));
}

TEST_CASE("check: env.nccl-unknown: NCCL_MIN_NCHANNELS is deprecated for NCCL, not for RCCL") {
  Facts amd = amd_machine({90400, 90400});
  set_env(amd, "NCCL_MIN_NCHANNELS", "32");
  auto r = single(run_check("env.nccl-unknown", amd));
  expect_quiet(r, Status::pass, "NCCL_MIN_NCHANNELS");
  CHECK_FALSE(contains(r.message, "deprecated"));
  CHECK(contains(r.message, "RCCL reads it"));
  Facts nv = nvidia_machine(2);
  set_env(nv, "NCCL_MIN_NCHANNELS", "32");
  auto n = single(run_check("env.nccl-unknown", nv));
  CHECK(contains(n.message, "deprecated since NCCL 2.17"));
}

TEST_CASE("check: env.nccl-unknown edge cases") {
  SUBCASE("nothing set") {
    auto r = single(run_check("env.nccl-unknown", nvidia_machine()));
    expect_quiet(r, Status::pass);
  }
  SUBCASE("an unknown RCCL_ name is hedged") {
    Facts f = amd_machine({90010, 90010});
    set_env(f, "RCCL_SOMETHING_NEW", "1");
    auto r = single(run_check("env.nccl-unknown", f));
    expect_fired(r, Status::warn, "RCCL_SOMETHING_NEW", {"a newer RCCL may read it"}, {});
  }
  SUBCASE("a name far from every known one gets no suggestion") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_MAKE_IT_FAST", "1");
    auto r = single(run_check("env.nccl-unknown", f));
    expect_fired(r, Status::warn, "NCCL_MAKE_IT_FAST", {"not a variable NCCL or RCCL reads"}, {});
    CHECK_FALSE(contains(r.message, "Did you mean"));
  }
  SUBCASE("a file line with blanks around the name") {
    Facts f = nvidia_machine();
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_DEBUG ", " WARN"}});
    auto r = single(run_check("env.nccl-unknown", f));
    expect_fired(r, Status::warn, "NCCL_DEBUG ", {"blanks", "/etc/nccl.conf line 1", "NCCL_DEBUG=WARN"}, {});
    CHECK(r.evidence.front() == "file /etc/nccl.conf:1: NCCL_DEBUG = WARN");
  }
  SUBCASE("a typo in ~/.nccl.conf names the file") {
    Facts f = nvidia_machine();
    add_conf(f, "/home/alice/.nccl.conf", "user", {{"NCCL_SOCKET_IFNAM", "eth0"}});
    auto r = single(run_check("env.nccl-unknown", f));
    expect_fired(r, Status::warn, "NCCL_SOCKET_IFNAM",
                 {"/home/alice/.nccl.conf line 1", "NCCL_SOCKET_IFNAME"}, {});
  }
}

// ---- env.nccl-invalid -----------------------------------------------------------------------------------

TEST_CASE("check: env.nccl-invalid rejects values outside the domain") {
  struct Case {
    const char *name, *value, *says;
  };
  for (auto c : {
           Case{"NCCL_DEBUG", "verbose", "not one of VERSION, WARN, INFO, TRACE, ABORT"},
           Case{"NCCL_P2P_LEVEL", "banana", "NCCL ignores it"},
           Case{"NCCL_P2P_LEVEL", "nvl", "case matters"},
           Case{"NCCL_IB_TIMEOUT", "abc", "NCCL reads it as 0"},
           Case{"NCCL_ALGO", "Rings", "did you mean Ring?"},
           Case{"NCCL_ALGO", "Ring;Tree", "needs a \"<function>:\" prefix"},
           Case{"NCCL_ALGO", "allreduce:Ring;bcast:Tree", "not a collective"},
           Case{"NCCL_PROTO", "^LL256", "not one of LL, LL128, Simple"},
           Case{"NCCL_BUFFSIZE", "4M", "reads only its start, 4"},
           Case{"NCCL_P2P_DISABLE", "true", "which is \"off\""},
           Case{"NCCL_IB_DISABLE", "2", "expects 0 or 1"},
           Case{"NCCL_IB_RETRY_CNT", "9", "above the largest valid value, 7"},
           Case{"NCCL_IB_GID_INDEX", "-2", "below the smallest valid value, -1"},
           Case{"NCCL_NTHREADS", "100", "not one of 64, 128, 256, 512"},
           Case{"NCCL_IB_TIMEOUT", "022", "octal number 18"},
           Case{"NCCL_SOCKET_FAMILY", "af_inet", "case matters"},
           Case{"NCCL_SOCKET_IFNAME", "eth0, eth1", "has a blank"},
           Case{"NCCL_IB_HCA", "mlx5_0:x", "where a number belongs"},
           Case{"NCCL_BUFFSIZE", "99999999999999999999", "out of range"},
       }) {
    CAPTURE(c.name);
    CAPTURE(c.value);
    Facts f = nvidia_machine(2);
    set_env(f, c.name, c.value);
    auto r = single(run_check("env.nccl-invalid", f));
    expect_fired(r, Status::error, c.name, {std::string(c.name) + "=" + c.value, c.says}, {});
  }
}

TEST_CASE("check: env.nccl-invalid accepts what NCCL accepts") {
  struct Case {
    const char *name, *value;
  };
  for (auto c :
       {Case{"NCCL_DEBUG", "info"}, Case{"NCCL_DEBUG", "WARN"}, Case{"NCCL_P2P_LEVEL", "NVL"},
        Case{"NCCL_P2P_LEVEL", "3"}, Case{"NCCL_IB_TIMEOUT", "22"}, Case{"NCCL_IB_TIMEOUT", "0x16"},
        Case{"NCCL_ALGO", "ring,tree"}, Case{"NCCL_ALGO", "^NVLS"},
        Case{"NCCL_ALGO", "ring;allreduce:^tree;broadcast:ring"}, Case{"NCCL_PROTO", "LL,LL128,Simple"},
        Case{"NCCL_SOCKET_IFNAME", "^docker,lo"}, Case{"NCCL_SOCKET_IFNAME", "=eth0:1234"},
        Case{"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"}, Case{"NCCL_IB_GID_INDEX", "-1"},
        Case{"NCCL_NTHREADS", "256"}, Case{"NCCL_TOPO_FILE", "/etc/topo.xml"},
        Case{"NCCL_DEBUG_SUBSYS", "^INIT,COLL"}, Case{"NCCL_IB_TIMEOUT", "0"}}) {
    CAPTURE(c.name);
    CAPTURE(c.value);
    Facts f = nvidia_machine(2);
    set_env(f, c.name, c.value);
    auto r = single(run_check("env.nccl-invalid", f));
    expect_quiet(r, Status::pass, c.name);
  }
}

TEST_CASE("check: env.nccl-invalid edge cases") {
  SUBCASE("an uncertain domain warns instead") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_DEBUG_SUBSYS", "INIT,FOO");
    auto r = single(run_check("env.nccl-invalid", f));
    expect_fired(r, Status::warn, "NCCL_DEBUG_SUBSYS", {"\"FOO\"", "may be incomplete"}, {});
  }
  SUBCASE("a carriage return from a file with Windows line ends") {
    Facts f = nvidia_machine();
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_DEBUG", "WARN\r"}});
    auto r = single(run_check("env.nccl-invalid", f));
    expect_fired(r, Status::error, "NCCL_DEBUG", {"WARN\\r", "carriage return", "/etc/nccl.conf line 1"}, {});
  }
  SUBCASE("empty: NCCL uses its default") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_IB_TIMEOUT", "");
    auto r = single(run_check("env.nccl-invalid", f));
    expect_quiet(r, Status::pass, "NCCL_IB_TIMEOUT");
    CHECK(contains(r.message, "empty"));
  }
  SUBCASE("unknown and removed names are left to env.nccl-unknown") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_IB_DISABEL", "yes");
    set_env(f, "NCCL_TREE_THRESHOLD", "x");
    auto r = single(run_check("env.nccl-invalid", f));
    expect_quiet(r, Status::pass);
  }
  SUBCASE("the environment wins over the files, the first file over later ones") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_DEBUG", "WARN");
    add_conf(f, "/home/alice/.nccl.conf", "user", {{"NCCL_DEBUG", "loud"}, {"NCCL_ALGO", "Ring"}});
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_ALGO", "Rings"}, {"NCCL_PROTO", "Fast"}});
    auto results = run_check("env.nccl-invalid", f);
    REQUIRE(results.size() == 3);
    CHECK(for_subject(results, "NCCL_DEBUG")->status == Status::pass);
    CHECK(for_subject(results, "NCCL_ALGO")->status == Status::pass);
    CHECK(for_subject(results, "NCCL_ALGO")->evidence.front() ==
          "file /home/alice/.nccl.conf:2: NCCL_ALGO=Ring");
    auto proto = for_subject(results, "NCCL_PROTO");
    expect_fired(*proto, Status::error, "NCCL_PROTO", {"/etc/nccl.conf line 2", "\"Fast\""}, {});
  }
}

namespace {

// A control character of a snapshot's value shown raw in a message (printable() spells it \t, \xNN).
bool has_raw_control(const std::string& s) {
  return std::ranges::any_of(s, [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

} // namespace

TEST_CASE("check: env.nccl-invalid and env.nccl-unknown show a value's control characters escaped") {
  struct Case {
    const char *check, *name, *value, *says;
  };
  for (auto c : {
           Case{"env.nccl-invalid", "NCCL_IB_TIMEOUT", "\t022", "\"\\t022\" starts with 0"},
           Case{"env.nccl-invalid", "NCCL_IB_DISABLE", "\t2", "not \\t2"},
           Case{"env.nccl-invalid", "NCCL_SOCKET_IFNAME", "eth0\t", "entry \"eth0\\t\" has a blank"},
           Case{"env.nccl-invalid", "NCCL_IB_HCA", "mlx5_0:\x01", "has \"\\x01\" where a number belongs"},
           Case{"env.nccl-invalid", "NCCL_ALGO", "\x01:Ring", "\"\\x01\" is not a collective"},
           Case{"env.nccl-invalid", "NCCL_ALGO", "Ring;\x02", "(\"\\x02\" has none)"},
           Case{"env.nccl-invalid", "NCCL_DEBUG_SUBSYS", "\x03:INIT", "\"\\x03:INIT\" has a ':'"},
           Case{"env.nccl-unknown", "NCCL_\x01X", "1", "NCCL_\\x01X is not a variable"},
           Case{"env.nccl-p2p-disabled", "NCCL_P2P_DISABLE", "1\x01", "NCCL_P2P_DISABLE=1\\x01 ("},
           Case{"env.nccl-ifname-missing", "NCCL_SOCKET_IFNAME", "nope\x01",
                "NCCL_SOCKET_IFNAME=nope\\x01 ("},
           Case{"env.nccl-ifname-missing", "NCCL_SOCKET_IFNAME", "^eth0,\x01",
                "NCCL_SOCKET_IFNAME=^eth0,\\x01 ("},
           Case{"env.nccl-ifname-missing", "NCCL_SOCKET_IFNAME", "eth\x01,eth",
                "NCCL_SOCKET_IFNAME=eth\\x01,eth selects"},
       }) {
    CAPTURE(c.name);
    Facts f = with_interfaces(nvidia_machine(2), {"lo", "eth0"});
    set_env(f, c.name, c.value);
    auto r = single(run_check(c.check, f));
    INFO(describe(r));
    CHECK(contains(r.message, c.says));
    CHECK_FALSE(has_raw_control(r.message));
  }
  SUBCASE("a name with blanks in a file") {
    Facts f = nvidia_machine(2);
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_DEBUG\x01 ", "WARN\x02"}});
    auto r = single(run_check("env.nccl-unknown", f));
    INFO(describe(r));
    CHECK(contains(r.message, "Write it as NCCL_DEBUG\\x01=WARN\\x02."));
    CHECK_FALSE(has_raw_control(r.message));
  }
}

// ---- env.nccl-p2p-disabled ------------------------------------------------------------------------------

TEST_CASE("check: env.nccl-p2p-disabled fires on a multi-GPU machine") {
  SUBCASE("NCCL_P2P_DISABLE=1 on 8 NVIDIA GPUs") {
    Facts f = nvidia_machine(8);
    set_env(f, "NCCL_P2P_DISABLE", "1");
    auto r = single(run_check("env.nccl-p2p-disabled", f));
    expect_fired(r, Status::warn, "NCCL_P2P_DISABLE", {"NCCL_P2P_DISABLE=1", "NVLink", "8 GPUs", "ACS"},
                 {"env-nccl-defaults"});
    CHECK(r.evidence.size() == 9);
  }
  SUBCASE("NCCL_P2P_LEVEL=LOC from /etc/nccl.conf on 2 AMD GPUs") {
    Facts f = amd_machine({90010, 90010});
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_P2P_LEVEL", "LOC"}});
    auto r = single(run_check("env.nccl-p2p-disabled", f));
    expect_fired(r, Status::warn, "NCCL_P2P_LEVEL", {"XGMI", "/etc/nccl.conf line 1"}, {"env-nccl-defaults"});
  }
  SUBCASE("the legacy level 0 is LOC") {
    Facts f = nvidia_machine(2);
    set_env(f, "NCCL_P2P_LEVEL", "0");
    auto r = single(run_check("env.nccl-p2p-disabled", f));
    CHECK(r.status == Status::warn);
  }
}

TEST_CASE("check: env.nccl-p2p-disabled stays quiet otherwise") {
  SUBCASE("one GPU") {
    Facts f = nvidia_machine(1);
    set_env(f, "NCCL_P2P_DISABLE", "1");
    auto r = single(run_check("env.nccl-p2p-disabled", f));
    expect_quiet(r, Status::pass, "NCCL_P2P_DISABLE");
  }
  SUBCASE("not set, or set to 0, or a level that allows P2P") {
    for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"", ""}, {"NCCL_P2P_DISABLE", "0"}, {"NCCL_P2P_LEVEL", "NVL"}, {"NCCL_P2P_DISABLE", "true"}}) {
      CAPTURE(name);
      Facts f = nvidia_machine(4);
      if (!name.empty()) set_env(f, name, value);
      auto r = single(run_check("env.nccl-p2p-disabled", f));
      expect_quiet(r, Status::pass);
    }
  }
  SUBCASE("NCCL_P2P_DISABLE=0 makes NCCL read NCCL_P2P_LEVEL") {
    Facts f = nvidia_machine(2);
    set_env(f, "NCCL_P2P_DISABLE", "0");
    set_env(f, "NCCL_P2P_LEVEL", "LOC");
    auto r = single(run_check("env.nccl-p2p-disabled", f));
    CHECK(r.subject == "NCCL_P2P_LEVEL");
    CHECK(r.status == Status::warn);
  }
}

// ---- env.nccl-ifname-missing ----------------------------------------------------------------------------

TEST_CASE("check: env.nccl-ifname-missing when no interface matches") {
  Facts f = with_interfaces(nvidia_machine(8), {"eth0", "ib0", "lo"});
  SUBCASE("a name from another machine") {
    set_env(f, "NCCL_SOCKET_IFNAME", "eth9");
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_fired(r, Status::error, "NCCL_SOCKET_IFNAME",
                 {"eth9", "matches no network interface", "eth0, ib0, lo", "Did you mean eth0?"}, {});
    CHECK(r.evidence[1] == "/sys/class/net: eth0 ib0 lo");
  }
  SUBCASE("= makes a prefix exact") {
    set_env(f, "NCCL_SOCKET_IFNAME", "=eth");
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_fired(r, Status::error, "NCCL_SOCKET_IFNAME", {"matches no network interface"}, {});
  }
  SUBCASE("^ excluding everything") {
    set_env(f, "NCCL_SOCKET_IFNAME", "^eth,ib,lo");
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_fired(r, Status::error, "NCCL_SOCKET_IFNAME", {"excludes every network interface"}, {});
  }
  SUBCASE("^ leaving only the loopback") {
    set_env(f, "NCCL_SOCKET_IFNAME", "^eth,ib");
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_fired(r, Status::warn, "NCCL_SOCKET_IFNAME", {"only the loopback"}, {});
  }
}

TEST_CASE("check: env.nccl-ifname-missing passes what matches") {
  for (const char* value : {"eth", "eth0", "=ib0", "ib0:5000", "eth9,ib", "^docker,lo", "^=eth1"}) {
    CAPTURE(value);
    Facts f = with_interfaces(nvidia_machine(8), {"docker0", "eth0", "ib0", "lo"});
    set_env(f, "NCCL_SOCKET_IFNAME", value);
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_quiet(r, Status::pass, "NCCL_SOCKET_IFNAME");
    CHECK(contains(r.message, "selects"));
  }
  SUBCASE("not set") {
    auto r = single(run_check("env.nccl-ifname-missing", with_interfaces(nvidia_machine(), {"eth0"})));
    expect_quiet(r, Status::pass);
  }
  SUBCASE("interfaces not read: skip") {
    Facts f = nvidia_machine();
    set_env(f, "NCCL_SOCKET_IFNAME", "eth9");
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_quiet(r, Status::skip, "NCCL_SOCKET_IFNAME");
  }
  SUBCASE("a value from /etc/nccl.conf counts too") {
    Facts f = with_interfaces(nvidia_machine(), {"eth0", "lo"});
    add_conf(f, "/etc/nccl.conf", "system", {{"NCCL_SOCKET_IFNAME", "ens"}});
    auto r = single(run_check("env.nccl-ifname-missing", f));
    expect_fired(r, Status::error, "NCCL_SOCKET_IFNAME", {"/etc/nccl.conf line 1"}, {});
  }
}

// ---- env.nccl-risky -------------------------------------------------------------------------------------

TEST_CASE("check: env.nccl-risky fires on the settings knowledge.md lists") {
  struct Case {
    const char *name, *value, *says;
  };
  for (auto c :
       {Case{"NCCL_SHM_DISABLE", "1", "shared memory"}, Case{"NCCL_NET_GDR_LEVEL", "LOC", "GPUDirect RDMA"},
        Case{"NCCL_NET_GDR_LEVEL", "0", "GPUDirect RDMA"}, Case{"NCCL_ALGO", "Ring", "no fallback to Ring"},
        Case{"NCCL_PROTO", "LL128", "corrupt data"}, Case{"NCCL_DEBUG", "TRACE", "TRACE logs every call"},
        Case{"NCCL_DEBUG", "info", "log volume"}, Case{"NCCL_MAX_NCHANNELS", "2", "few channels"},
        Case{"NCCL_BUFFSIZE", "1048576", "4 MiB"}, Case{"NCCL_IB_TIMEOUT", "10", "IBV_WC_RETRY_EXC_ERR"},
        Case{"NCCL_SOCKET_IFNAME", "lo", "loopback"}, Case{"NCCL_LAUNCH_MODE", "GROUP", "deprecated"},
        Case{"NCCL_MIN_NCHANNELS", "32", "SMs"}, Case{"NCCL_NVLS_ENABLE", "0", "NVLink SHARP"}}) {
    CAPTURE(c.name);
    CAPTURE(c.value);
    Facts f = nvidia_machine(8);
    set_env(f, c.name, c.value);
    auto r = single(run_check("env.nccl-risky", f));
    expect_fired(r, Status::warn, c.name, {std::string(c.name) + "=" + c.value, c.says, "Better:"}, {});
  }
}

TEST_CASE("check: env.nccl-risky and the machine") {
  SUBCASE("NCCL_IB_DISABLE=1 with an InfiniBand device") {
    Facts f = with_interfaces(nvidia_machine(8), {"eth0", "ib0"}, {"mlx5_0", "mlx5_1"});
    set_env(f, "NCCL_IB_DISABLE", "1");
    auto r = single(run_check("env.nccl-risky", f));
    expect_fired(r, Status::warn, "NCCL_IB_DISABLE", {"TCP sockets"}, {});
    CHECK(r.evidence.back() == "/sys/class/infiniband: mlx5_0 mlx5_1");
  }
  SUBCASE("NCCL_IB_DISABLE=1 without one") {
    Facts f = with_interfaces(nvidia_machine(8), {"eth0"});
    set_env(f, "NCCL_IB_DISABLE", "1");
    auto r = single(run_check("env.nccl-risky", f));
    expect_quiet(r, Status::pass, "NCCL_IB_DISABLE");
  }
  SUBCASE("NVIDIA-only settings on an AMD machine") {
    Facts f = amd_machine({90010, 90010});
    set_env(f, "NCCL_MIN_NCHANNELS", "32"); // RCCL's README suggests it for MI300 with fewer than 8 GPUs
    auto r = single(run_check("env.nccl-risky", f));
    expect_quiet(r, Status::pass, "NCCL_MIN_NCHANNELS");
  }
  SUBCASE("NVLS off on a single GPU") {
    Facts f = nvidia_machine(1);
    set_env(f, "NCCL_NVLS_ENABLE", "0");
    auto r = single(run_check("env.nccl-risky", f));
    expect_quiet(r, Status::pass, "NCCL_NVLS_ENABLE");
  }
  SUBCASE("harmless values") {
    Facts f = nvidia_machine(8);
    for (auto [n, v] : std::vector<std::pair<const char*, const char*>>{{"NCCL_DEBUG", "WARN"},
                                                                        {"NCCL_SHM_DISABLE", "0"},
                                                                        {"NCCL_BUFFSIZE", "8388608"},
                                                                        {"NCCL_IB_TIMEOUT", "22"},
                                                                        {"NCCL_NET_GDR_LEVEL", "PHB"},
                                                                        {"NCCL_SOCKET_IFNAME", "=eth0"},
                                                                        {"NCCL_MAX_NCHANNELS", "abc"}})
      set_env(f, n, v);
    auto r = single(run_check("env.nccl-risky", f));
    expect_quiet(r, Status::pass);
  }
  SUBCASE("from ~/.nccl.conf") {
    Facts f = nvidia_machine(8);
    add_conf(f, "/home/alice/.nccl.conf", "user", {{"NCCL_SHM_DISABLE", "1"}});
    auto r = single(run_check("env.nccl-risky", f));
    expect_fired(r, Status::warn, "NCCL_SHM_DISABLE", {"/home/alice/.nccl.conf line 1"}, {});
    CHECK(r.evidence.front() == "file /home/alice/.nccl.conf:1: NCCL_SHM_DISABLE=1");
  }
}

// ---- env.nccl-socket-default ------------------------------------------------------------------------------

namespace {

NetInterface iface(const std::string& name, std::vector<std::pair<std::string, std::string>> addresses,
                   bool device = false) {
  NetInterface n;
  n.name = name;
  n.type = name == "lo" ? 772 : 1;
  n.flags = 0x1003;
  n.device = device;
  for (auto& [address, scope] : addresses)
    n.addresses.push_back({name, address.find(':') == std::string::npos ? 4 : 6, address, 24, scope});
  return n;
}

Facts with_details(std::vector<NetInterface> details) {
  Facts f = nvidia_machine(1);
  std::vector<std::string> names;
  for (const auto& n : details)
    names.push_back(n.name);
  f = with_interfaces(std::move(f), names);
  f.network.details = std::move(details);
  f.network.addresses_read = true;
  return f;
}

} // namespace

TEST_CASE("check: env.nccl-socket-default, NCCL's own choice beside a hardware interface") {
  NetInterface lo = iface("lo", {{"127.0.0.1", "host"}}),
               eno1 = iface("eno1", {{"172.18.40.41", "global"}}, true);
  NetInterface veth = iface("veth25f2e72", {{"fe80::380d:bfff:fe5b:54d2", "link"}});
  veth.peer_link = true;
  SUBCASE("a docker veth in the default's tier beside eno1: warn, export the hardware one") {
    auto r = single(run_check("env.nccl-socket-default", with_details({lo, eno1, veth})));
    expect_fired(r, Status::warn, "", {"veth25f2e72 is a veth", "eno1"}, {});
    REQUIRE(r.action);
    CHECK(r.action->text == "export NCCL_SOCKET_IFNAME==eno1");
  }
  SUBCASE("a hardware interface with only a link-local address is no better") {
    NetInterface eth1 = iface("eth1", {{"fe80::1", "link"}}, true);
    auto r = single(run_check("env.nccl-socket-default", with_details({lo, eno1, eth1})));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "eth1 has only a link-local or host address"));
  }
  SUBCASE("an ib interface wins the first tier: the veth is never taken") {
    NetInterface ib0 = iface("ib0", {{"10.10.0.5", "global"}}, true);
    CHECK(single(run_check("env.nccl-socket-default", with_details({lo, eno1, veth, ib0}))).status ==
          Status::pass);
  }
  SUBCASE("docker0, lo and virbr0 come after eno1; a down veth is not taken") {
    NetInterface docker0 = iface("docker0", {{"172.17.0.1", "global"}}),
                 virbr0 = iface("virbr0", {{"192.168.122.1", "global"}});
    docker0.bridge = virbr0.bridge = true;
    NetInterface down = veth;
    down.flags = 0x1002;
    CHECK(single(run_check("env.nccl-socket-default", with_details({lo, eno1, docker0, virbr0, down})))
              .status == Status::pass);
  }
  SUBCASE("inside a container every interface is virtual: its eth0 is the way out") {
    NetInterface eth0 = iface("eth0", {{"172.17.0.2", "global"}});
    eth0.peer_link = true;
    CHECK(single(run_check("env.nccl-socket-default", with_details({lo, eth0}))).status == Status::pass);
  }
  SUBCASE("NCCL_SOCKET_IFNAME or NCCL_COMM_ID set, or no addresses read: skip") {
    Facts f = with_details({lo, eno1, veth});
    f.env.all["NCCL_SOCKET_IFNAME"] = "=eno1";
    CHECK(single(run_check("env.nccl-socket-default", f)).status == Status::skip);
    Facts g = with_details({lo, eno1, veth});
    g.network.addresses_read = false;
    CHECK(single(run_check("env.nccl-socket-default", g)).status == Status::skip);
  }
}
