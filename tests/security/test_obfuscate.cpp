// bundle --obfuscate obfuscates identity completely (issue 9, item 5): user and host names, addresses, GPU
// serials and UUIDs are gone from every byte; pseudonyms are keyed (stable for a site, distinct per host);
// a UUID prefix in CUDA_VISIBLE_DEVICES still names its GPU; a replay judges as the machine did.
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "bundle/address_scan.hpp"
#include "bundle/obfuscate.hpp"
#include "bundle/redact.hpp"
#include "security/redact_fixture.hpp"

#include <filesystem>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;
using namespace gpudoctor::test;
using gpudoctor::test::SnapshotDir;

namespace {

const std::string k_key = "a site's key: 32 bytes or so....";

RedactionLog obfuscate(const SnapshotDir& snap, const std::string& key = k_key) {
  RedactOptions options;
  options.obfuscate = true;
  options.obfuscation_key = key;
  options.key_from_file = !key.empty();
  return redact_snapshot(snap.dir(), options);
}

// "host-3f9a1c2b": a class and 8 hex digits.
bool pseudonym(const std::string& s, const std::string& cls) {
  if (s.size() != cls.size() + 9 || s.compare(0, cls.size() + 1, cls + "-") != 0) return false;
  return s.find_first_not_of("0123456789abcdef", cls.size() + 1) == std::string::npos;
}

void copy_machine(const SnapshotDir& snap, const std::string& machine) {
  fs::remove_all(snap.dir());
  fs::copy(fs::path(GPUDOCTOR_TEST_MACHINES) / machine / "snapshot", snap.dir(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

// A machine whose every file names someone: the user (and the one who ran sudo), the host, addresses,
// GPUs by serial and UUID, AMD GPUs by unique id, in the forms the tools print them.
void write_identities(const SnapshotDir& snap) {
  snap.identity("alice", "/srv/users/alice", "dgx-a100-17");
  snap.env({{"SUDO_USER", "bob"},
            {"LOGNAME", "alice"},
            {"USER", "alice"},
            {"HOME", "/srv/users/alice"},
            {"HOSTNAME", "dgx-a100-17"},
            {"MAIL", "/var/mail/alice"},
            {"SSH_CONNECTION", "10.20.30.40 51234 10.20.30.41 22"},
            {"CUDA_VISIBLE_DEVICES", "GPU-8d3b6c0f,GPU-8d3"},
            {"ROCR_VISIBLE_DEVICES", "GPU-79ccd55167a2124a"}});
  snap.write("fs/etc/hostname", "dgx-a100-17\n");
  snap.write("fs/etc/hosts", "127.0.0.1 localhost\n10.20.30.40 dgx-a100-17.corp.example.com dgx-a100-17\n"
                             "fe80::1a2b:3c4d:5e6f:7081 dgx-a100-17-v6\n::1 ip6-localhost\n");
  snap.write("fs/srv/users/alice/.bashrc",
             "export PATH=/srv/users/alice/bin:$PATH # the maintainers' advice\n");
  snap.write(
      "cmd/0-dmesg.out",
      "2026-12-01T02:41:00+0000 dgx-a100-17 kernel: mlx5_core 0000:17:00.0 eth0: MAC 3c:fd:fe:12:34:56 up\n"
      "2026-12-01T02:41:01+0000 dgx-a100-17 kernel: ib0: hw "
      "80:00:02:08:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:12:34:56\n"
      "2026-12-01T02:41:02+0000 dgx-a100-17 kernel: NVRM: GPU-8d3b6c0f-1c2e-4b8e-9a51-3f1f2e0c9d11 Xid 79\n"
      "2026-12-01T02:41:03+0000 dgx-a100-17 sudo: bob : TTY=pts/0 ; USER=root ; from 2001:db9:17::42\n");
  snap.write("cmd/1-nvidia-smi-xml.out", "<gpu id=\"00000000:17:00.0\"><serial>1324521012345</serial>"
                                         "<uuid>GPU-8d3b6c0f-1c2e-4b8e-9a51-3f1f2e0c9d11</uuid></gpu>\n");
  snap.write("cmd/2-rocm-smi-json.out",
             R"({"card0": {"Unique ID": "0x79ccd55167a2124a", "Serial Number": "PCB052715-0071"}})");
  snap.write("cmd/3-rocminfo.out", "  Uuid:                    GPU-79ccd55167a2124a\n");
  snap.write("fs/sys/class/kfd/kfd/topology/nodes/1/properties",
             "unique_id 8776436624898757194\nnum_xcc 1\n");
  snap.write("fs/sys/class/drm/card0/device/unique_id", "79ccd55167a2124a\n");
  snap.write("fs/sys/class/drm/card0/device/serial_number", "PCB052715-0071\n");
  snap.write("commands.json", dump_json(Json::array({{{"key", "python-env@/srv/users/alice/venv/bin/python3"},
                                                      {"argv", {"/srv/users/alice/venv/bin/python3", "-S"}},
                                                      {"found", true},
                                                      {"exit", 0}}})));
}

} // namespace

TEST_SUITE("security") {

  TEST_CASE("obfuscation: no user, host, address, serial or UUID is left in any byte") {
    SnapshotDir snap;
    write_identities(snap);
    RedactionLog log = obfuscate(snap);
    for (const char* identity :
         {"alice", "bob", "dgx-a100-17", "10.20.30.40", "10.20.30.41", "3c:fd:fe:12:34:56",
          "fe80::1a2b:3c4d:5e6f:7081", "2001:db9:17::42", "0c:42:a1:03:00:12:34:56", "1324521012345",
          "8d3b6c0f", "1c2e-4b8e-9a51-3f1f2e0c9d11", "79ccd55167a2124a", "8776436624898757194",
          "PCB052715-0071"}) {
      auto hits = snap.find(identity);
      CHECK_MESSAGE(hits.empty(), std::string(identity) << " is still in " << (hits.empty() ? "" : hits[0]));
    }
    // What identifies no one stays: loopback, PCI addresses, times, words that merely contain a name.
    std::string hosts = snap.read("fs/etc/hosts");
    CHECK(hosts.find("127.0.0.1 localhost\n") == 0);
    CHECK(hosts.find("::1 ip6-localhost") != std::string::npos);
    CHECK(snap.read("cmd/1-nvidia-smi-xml.out").find("00000000:17:00.0") != std::string::npos);
    CHECK(snap.read("cmd/0-dmesg.out").find("2026-12-01T02:41:00+0000 host-") == 0);
    CHECK(snap.find("maintainers").size() == 1);
    // The pseudonyms are the keyed ones, the same in every file; the archive is named after the host's.
    Json id = snap.json("identity.json");
    CHECK(pseudonym(id["hostname"].get<std::string>(), "host"));
    CHECK(pseudonym(id["user"].get<std::string>(), "user"));
    CHECK(snap.read("fs/etc/hostname") == id["hostname"].get<std::string>() + "\n");
    CHECK(id["home"] == "/srv/users/" + id["user"].get<std::string>());
    CHECK(log.host == id["hostname"]);
    CHECK(snap.find(k_key).empty());
    CHECK(log.note.find("key") != std::string::npos);
  }

  TEST_CASE("obfuscation: versions, PCI addresses and times that look like addresses are left") {
    Pseudonyms p("k");
    for (const char* text :
         {"Depends: zlib1g (>= 1:1.2.2.3), libcublas-13-0 (>= 13.1.0.3)",
          "Provides: libcublas.so.13 (= 13.1.0.3)", "      \"version\" : \"12.6.4.1\"", "Version: 2.2.0.1",
          "nvidia_cudnn_cu12-9.1.0.70.dist-info", "<vbios_version>86.02.39.00.01</vbios_version>",
          "SMC firmware: 00.80.56.00", "0000:17:00.0", "2026-12-01T02:41:00+0000",
          "inet 127.0.0.1/8 and ::1 and 0.0.0.0:22", "std::vector<int>",
          "ff:ff:ff:ff:ff:ff 00:00:00:00:00:00", "GPU-0 GPU-acc", "1.2.3.4-1ubuntu1"})
      CHECK(pseudonymize_addresses(text, p) == text);
    std::string replaced = pseudonymize_addresses("ip=10.1.2.3 host:10.1.2.3 [fe80::1] 3C:FD:FE:12:34:56", p);
    CHECK(replaced.find("10.1.2.3") == std::string::npos);
    CHECK(replaced.find("fe80::1") == std::string::npos);
    CHECK(replaced.find("3C:FD:FE:12:34:56") == std::string::npos);
    CHECK(pseudonymize_addresses("GPU-8d3b", p) == "GPU-" + p.hex_id("8d3b"));
    CHECK(p.hex_id("8d3b6c0f").substr(0, 4) == p.hex_id("8d3b")); // prefixes map to prefixes
  }

  TEST_CASE("obfuscation: one key gives a host one pseudonym across bundles, two hosts two, two keys two") {
    auto host_of = [](const std::string& hostname, const std::string& key) {
      SnapshotDir snap;
      snap.identity("alice", "/home/alice", hostname);
      snap.env({{"HOSTNAME", hostname}});
      obfuscate(snap, key);
      return snap.json("identity.json")["hostname"].get<std::string>();
    };
    CHECK(host_of("node-01", k_key) == host_of("node-01", k_key));
    CHECK(host_of("node-01", k_key) != host_of("node-02", k_key));
    CHECK(host_of("node-01", k_key) != host_of("node-01", "another site's key"));
    // Without a key file every bundle gets a key of its own: nothing to compare across bundles.
    CHECK(host_of("node-01", "") != host_of("node-01", ""));
  }

  TEST_CASE("obfuscation: a GPU UUID prefix in CUDA_VISIBLE_DEVICES still names its GPU") {
    SnapshotDir snap;
    copy_machine(snap, "nvidia-h200-real");
    std::string xml = snap.read("cmd/6-nvidia-smi-xml.out");
    auto at = xml.find("<uuid>GPU-");
    REQUIRE(at != std::string::npos);
    std::string uuid = xml.substr(at + 6, 40); // GPU- and 36 characters
    Json env = snap.json("env.json");
    env["CUDA_VISIBLE_DEVICES"] = uuid.substr(0, 12) + "," + uuid.substr(0, 6) + ",GPU-ffffffff";
    snap.env(env);
    auto before = judge(snap.dir());
    obfuscate(snap);
    CHECK(snap.find(uuid.substr(4, 8)).empty());
    std::string visible = snap.json("env.json")["CUDA_VISIBLE_DEVICES"];
    std::string new_xml = snap.read("cmd/6-nvidia-smi-xml.out");
    std::string new_uuid = new_xml.substr(new_xml.find("<uuid>GPU-") + 6, 40);
    CHECK(visible.substr(0, 12) == new_uuid.substr(0, 12));
    CHECK(visible.substr(13, 6) == new_uuid.substr(0, 6));
    auto after = judge(snap.dir());
    REQUIRE(after.size() == before.size());
    for (std::size_t i = 0; i < before.size(); ++i)
      if (before[i].id == "env.visible-devices") CHECK(after[i].status == before[i].status);
  }

  TEST_CASE("obfuscation: every fixture machine replays the same, modulo its pseudonyms") {
    for (const auto& entry : fs::directory_iterator(GPUDOCTOR_TEST_MACHINES)) {
      if (!fs::exists(entry.path() / "snapshot" / "manifest.json")) continue;
      std::string machine = entry.path().filename().string();
      CAPTURE(machine);
      SnapshotDir snap;
      copy_machine(snap, machine);
      auto before = judge(snap.dir());
      Obfuscator names(snap.dir(), k_key);
      obfuscate(snap);
      auto after = judge(snap.dir());
      REQUIRE(after.size() == before.size());
      for (std::size_t i = 0; i < before.size(); ++i) {
        CAPTURE(before[i].id);
        CHECK(after[i].id == before[i].id);
        CHECK(status_name(after[i].status) == status_name(before[i].status));
        CHECK(after[i].subject == names.text(before[i].subject));
      }
    }
  }

  TEST_CASE("obfuscation: a name that is also a word the snapshot needs is kept, and said so") {
    SnapshotDir snap;
    copy_machine(snap, "docker-without-nvidia-runtime"); // user "ubuntu" on Ubuntu
    std::string os_release = snap.read("fs/etc/os-release");
    RedactionLog log = obfuscate(snap);
    CHECK(snap.read("fs/etc/os-release") == os_release);
    bool warned = false;
    for (const auto& w : log.warnings)
      warned = warned || w.find("ubuntu") != std::string::npos;
    CHECK(warned);
  }

  // Issue 24 item 2: only the recording user was replaced; every other account of /etc/passwd stayed in
  // fs/etc/passwd, stat.json and the report.
  TEST_CASE("obfuscation: every ordinary account of /etc/passwd is replaced, system accounts are kept") {
    SnapshotDir snap;
    snap.identity("alice", "/home/alice", "node7");
    snap.write("fs/etc/login.defs", "# login.defs\nUID_MIN\t\t\t 1000\nUID_MAX\t\t\t60000\n");
    snap.write("fs/etc/passwd",
               "root:x:0:0:root:/root:/bin/bash\n"
               "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
               "postgres:x:109:115:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n"
               "alice:x:1000:1000:Alice Example,,,:/home/alice:/bin/bash\n"
               "bobsmith:x:1001:1001:Bob Smithers,Room 4,,:/srv/people/bobsmith:/bin/zsh\n"
               "carol:x:1002:1002::/home/carol:/bin/sh\n"
               "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
    snap.write("stat.json", R"({"/dev/dri/renderD128": {"type": "char", "mode": "0660", "uid": 1001,
                                "gid": 109, "user": "bobsmith", "group": "render"},
                               "/home/carol": {"type": "dir", "mode": "0700", "uid": 1002, "gid": 1002,
                                "user": "carol", "group": "carol"}})");
    snap.write("cmd/0-who.out", "carol    pts/0   2026-12-01 09:00\nbobsmith pts/1   2026-12-01 09:05\n");
    RedactionLog log = obfuscate(snap);
    for (const char* name : {"alice", "bobsmith", "carol", "Alice Example", "Bob Smithers"}) {
      auto hits = snap.find(name);
      CHECK_MESSAGE(hits.empty(), name << " is still in " << (hits.empty() ? "" : hits[0]));
    }
    std::string passwd = snap.read("fs/etc/passwd");
    for (const char* kept : {"root:x:0:0:root:/root", "daemon:x:1:1", "postgres:x:109", "nobody:x:65534"})
      CHECK_MESSAGE(passwd.find(kept) != std::string::npos, kept);
    CHECK(snap.read("stat.json").find("\"render\"") != std::string::npos);
    bool said = false;
    for (const auto& entry : log.redacted)
      said = said || (entry.starts_with("kept:") && entry.find("4 system accounts") != std::string::npos);
    CHECK(said);
  }

  TEST_CASE("obfuscation: a passwd of thousands of accounts is replaced in one pass over each text") {
    SnapshotDir snap;
    snap.identity("u0", "/home/u0", "node8");
    std::string passwd, who;
    for (int i = 0; i < 3000; ++i) {
      std::string name = "person" + std::to_string(i * 7919 % 100000);
      passwd += name + ":x:" + std::to_string(2000 + i) + ":100::/home/" + name + ":/bin/bash\n";
      if (i % 10 == 0) who += name + " pts/" + std::to_string(i) + "\n";
    }
    snap.write("fs/etc/passwd", passwd);
    snap.write("cmd/0-who.out", who);
    obfuscate(snap);
    CHECK(snap.find("person").empty());
    CHECK(snap.read("cmd/0-who.out").find("user-") == 0);
  }

} // TEST_SUITE
