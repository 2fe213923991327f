// What root starts (system/root_exec, docs/security.md "Executing as root"): only programs no other user can
// change, found past those on PATH that another user can; a user's interpreter as that user (uid, groups, no
// capabilities, no new privileges); and an environment without the loader, shell and interpreter hooks.
// Run as root (the rule is root's); as another user each case says so and passes.
#include "system/process.hpp"
#include "system/root_exec.hpp"
#include "system/root_trust.hpp"
#include "unit/testutil.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

constexpr unsigned k_other = 64123; // a uid with no account

bool skip_unless_root() {
  if (::geteuid() == 0) return false;
  MESSAGE("not root: the rules of system/root_exec are root's");
  return true;
}

// A program at `p` that touches `canary` when it runs (the evidence that it ran).
void plant(const fs::path& p, const fs::path& canary, mode_t mode = 0755) {
  test::write_text(p, "#!/bin/sh\n: >'" + canary.string() + "'\n");
  REQUIRE(::chmod(p.c_str(), mode) == 0);
}

// The uid of the account `name`, or -1 when there is none.
long uid_of(const char* name) {
  struct passwd* pw = ::getpwnam(name);
  return pw ? static_cast<long>(pw->pw_uid) : -1;
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("root exec: a user's interpreter may run as the one account that can change it") {
    if (skip_unless_root()) return;
    test::TempDir tmp("gpudoctor-owner");
    const std::string R = tmp.path().string();
    REQUIRE(::chmod(R.c_str(), 0755) == 0);
    fs::create_directories(tmp / "home/u/env/bin");
    plant(tmp / "home/u/env/bin/python3", tmp / "canary");
    for (const char* p : {"home/u", "home/u/env", "home/u/env/bin", "home/u/env/bin/python3"})
      REQUIRE(::chown((tmp / p).c_str(), k_other, 0) == 0);
    CHECK(sole_owner("/home/u/env/bin/python3", R) == k_other);

    SUBCASE("a link in the account's folder to root's interpreter: still the account's to change") {
      fs::create_directories(tmp / "usr/bin");
      plant(tmp / "usr/bin/python3.11", tmp / "canary");
      fs::remove(tmp / "home/u/env/bin/python3");
      fs::create_symlink("/usr/bin/python3.11", tmp / "home/u/env/bin/python3");
      CHECK(sole_owner("/home/u/env/bin/python3", R) == k_other);
    }
    SUBCASE("a place writable by others leaves no one account in charge") {
      REQUIRE(::chmod((tmp / "home/u/env").c_str(), 0777) == 0);
      CHECK(sole_owner("/home/u/env/bin/python3", R).error() == "/home/u/env is writable by others");
    }
    SUBCASE("a sticky folder only lets an entry's owner replace it") {
      REQUIRE(::chown((tmp / "home").c_str(), 0, 0) == 0);
      REQUIRE(::chmod((tmp / "home").c_str(), 01777) == 0);
      CHECK(sole_owner("/home/u/env/bin/python3", R) == k_other);
    }
    SUBCASE("root's folder that a group can write is not root's alone") {
      REQUIRE(::chmod((tmp / "home").c_str(), 0775) == 0);
      CHECK(sole_owner("/home/u/env/bin/python3", R).error() == "/home is root's and writable by its group");
    }
    SUBCASE("the account's own folder writable by its group is the account's choice") {
      REQUIRE(::chmod((tmp / "home/u/env").c_str(), 0775) == 0);
      CHECK(sole_owner("/home/u/env/bin/python3", R) == k_other);
    }
    SUBCASE("two accounts on the way") {
      REQUIRE(::chown((tmp / "home/u/env/bin").c_str(), k_other + 1, 0) == 0);
      CHECK(sole_owner("/home/u/env/bin/python3", R).error() ==
            fmt::format("reached through places of {} and {}", k_other, k_other + 1));
    }
    SUBCASE("an account that does not exist is no one to run as") {
      CHECK(credentials_of(k_other).error() == "owned by uid 64123, which is no account here");
      CHECK_FALSE(credentials_of(0));
    }
  }

  TEST_CASE("root exec: on PATH an untrusted match is skipped, and the search goes on") {
    if (skip_unless_root()) return;
    test::TempDir tmp("gpudoctor-path");
    const std::string R = tmp.path().string();
    REQUIRE(::chmod(R.c_str(), 0755) == 0);
    for (const char* dir : {"theirs", "open", "usr/bin"})
      fs::create_directories(tmp / dir);
    REQUIRE(::chown((tmp / "theirs").c_str(), k_other, 0) == 0);
    REQUIRE(::chmod((tmp / "open").c_str(), 0777) == 0);
    for (const char* p : {"theirs/tool", "open/tool", "usr/bin/tool"})
      plant(tmp / p, tmp / "canary");

    auto choice = choose_program("tool", "/theirs:/open:relative:/usr/bin", false, R);
    CHECK(choice.path == "/usr/bin/tool");
    CHECK_FALSE(choice.as_user);
    REQUIRE(choice.untrusted.size() == 2);
    CHECK(choice.untrusted[0].path == "/theirs/tool");
    CHECK(choice.untrusted[0].why == "/theirs is owned by 64123");
    CHECK(choice.untrusted[0].instead == "/usr/bin/tool");
    CHECK(choice.untrusted[1].why == "/open is writable by others");

    SUBCASE("nothing root can trust: nothing runs") {
      auto none = choose_program("tool", "/theirs:/open", false, R);
      CHECK(none.path.empty());
      CHECK(none.untrusted.size() == 2);
      CHECK(none.untrusted[0].instead.empty());
    }
    SUBCASE("a path is judged as it is, not looked up") {
      auto named = choose_program("/theirs/tool", "/usr/bin", false, R);
      CHECK(named.path.empty());
      REQUIRE(named.untrusted.size() == 1);
      CHECK(named.untrusted[0].why == "/theirs is owned by 64123");
    }
    SUBCASE("an interpreter is the first match, inspected as its owner or not at all (never another one)") {
      // Below a test root nothing runs as another account: the chroot's accounts are not this machine's.
      auto python = choose_program("tool", "/theirs:/usr/bin", true, R);
      CHECK(python.path.empty());
      REQUIRE(python.untrusted.size() == 1);
      CHECK(python.untrusted[0].why ==
            "/theirs is owned by 64123; under --root, an interpreter root cannot trust is not inspected");
    }
  }

  TEST_CASE("root exec: run_process skips a program another user can change and runs root's copy") {
    if (skip_unless_root()) return;
    test::TempDir tmp("gpudoctor-run"); // below /tmp, which others can write
    plant(tmp / "bin/true", tmp / "canary");
    CommandSpec spec{"true", {"true"}};
    auto r = run_process(spec, {{"PATH", (tmp / "bin").string() + ":/usr/bin:/bin"}});
    CHECK(r.ok());
    CHECK_FALSE(fs::exists(tmp / "canary"));
    REQUIRE(r.untrusted.size() == 1);
    CHECK(r.untrusted[0].path == (tmp / "bin/true").string());
    CHECK(r.untrusted[0].why.ends_with("is writable by others"));
    CHECK(r.untrusted[0].instead.ends_with("/true"));

    auto alone = run_process(spec, {{"PATH", (tmp / "bin").string()}});
    CHECK_FALSE(alone.found);
    CHECK(alone.exit_code == 127);
    CHECK_FALSE(fs::exists(tmp / "canary"));
  }

  TEST_CASE("root exec: root's children get the caller's environment less its start-up hooks") {
    if (skip_unless_root()) return;
    std::map<std::string, std::string> env = {
        {"PATH", "/tmp:relative::/usr/bin:/bin"},
        {"HOME", "/tmp"},
        {"LD_PRELOAD", "/tmp/evil.so"},
        {"LD_LIBRARY_PATH", "/tmp"},
        {"PYTHONPATH", "/tmp"},
        {"PYTHONSTARTUP", "/tmp/x.py"},
        {"BASH_ENV", "/tmp/x.sh"},
        {"ENV", "/tmp/x.sh"},
        {"BASH_FUNC_ls%%", "() { touch /tmp/x; }"},
        {"OLD_STYLE", "() { touch /tmp/x; }"},
        {"SHELLOPTS", "xtrace"},
        {"PS4", "$(touch /tmp/x)"},
        {"PERL5OPT", "-Mevil"},
        {"NODE_OPTIONS", "--require /tmp/x.js"},
        {"GCONV_PATH", "/tmp"},
        {"GLIBC_TUNABLES", "glibc.malloc.check=3"},
        {"DOCKER_CONFIG", "/tmp/docker"},
        {"CUDA_VISIBLE_DEVICES", "0,1"},
        {"VIRTUAL_ENV", "/home/u/venv"},
    };
    auto clean = root_child_environment(env);
    CHECK(clean.at("PATH") == "/usr/bin:/bin");
    CHECK(clean.at("HOME") != "/tmp");
    CHECK(clean.at("CUDA_VISIBLE_DEVICES") == "0,1");
    CHECK(clean.at("VIRTUAL_ENV") == "/home/u/venv");
    for (const char* gone : {"LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP", "BASH_ENV",
                             "ENV", "BASH_FUNC_ls%%", "OLD_STYLE", "SHELLOPTS", "PS4", "PERL5OPT",
                             "NODE_OPTIONS", "GCONV_PATH", "GLIBC_TUNABLES", "DOCKER_CONFIG"}) {
      CAPTURE(gone);
      CHECK_FALSE(clean.count(gone));
      CHECK(root_hook_reason(gone, env.at(gone)));
    }
    CHECK(root_child_environment({{"PATH", "/tmp"}}).at("PATH") == k_root_fallback_path);

    // What a child really gets, through run_process.
    CommandSpec spec{"env", {"env"}};
    auto r = run_process(spec, env);
    REQUIRE(r.ok());
    CHECK(r.out.find("CUDA_VISIBLE_DEVICES=0,1\n") != std::string::npos);
    for (const char* gone : {"LD_PRELOAD=", "PYTHONPATH=", "BASH_ENV=", "\nENV=", "BASH_FUNC_"}) {
      CAPTURE(gone);
      CHECK(r.out.find(gone) == std::string::npos);
    }
  }

  TEST_CASE("root exec: a user's interpreter runs as its owner: uid, groups, no capabilities, no new "
            "privileges, none of root's descriptors") {
    if (skip_unless_root()) return;
    long nobody = uid_of("nobody");
    if (nobody < 0) {
      MESSAGE("no account `nobody` to run as");
      return;
    }
    test::TempDir tmp("gpudoctor-as-owner"); // /tmp is sticky: only the entry's owner can replace it
    REQUIRE(::chmod(tmp.path().c_str(), 0755) == 0);
    fs::create_directories(tmp / "u/bin");
    test::write_text(tmp / "u/bin/python3",
                     "#!/bin/sh\nid -u; id -g; id -G\n"
                     "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status\n"
                     "[ -e /proc/$$/fd/200 ] && echo root-descriptor-open\npwd\n");
    REQUIRE(::chmod((tmp / "u/bin/python3").c_str(), 0755) == 0);
    for (const char* p : {"u", "u/bin", "u/bin/python3"})
      REQUIRE(::chown((tmp / p).c_str(), static_cast<uid_t>(nobody), 0) == 0);
    // A descriptor of root's, not close-on-exec, that the user's program must not get.
    int fd = ::open("/etc/hostname", O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::dup2(fd, 200) == 200);
    ::close(fd);

    CommandSpec spec{"python-env@x", {(tmp / "u/bin/python3").string()}};
    auto skipped = run_process(spec, {{"PATH", "/usr/bin:/bin"}});
    CHECK_FALSE(skipped.found); // a tool is not run as its owner: only an interpreter is
    spec.as_owner_when_untrusted = true;
    auto r = run_process(spec, {{"PATH", "/usr/bin:/bin"}});
    ::close(200);
    REQUIRE_MESSAGE(r.ok(), std::string(r.err + r.error));
    auto lines = text::lines(r.out);
    REQUIRE(lines.size() >= 9);
    CHECK(lines[0] == std::to_string(nobody));
    struct passwd* pw = ::getpwnam("nobody");
    CHECK(lines[1] == std::to_string(pw->pw_gid));
    CHECK(lines[2].find(" 0") == std::string::npos); // not root's group
    CHECK(lines[2] != "0");
    for (std::size_t i = 3; i < 8; ++i) { // inheritable, permitted, effective, bounding, ambient
      CAPTURE(lines[i]);
      CHECK(lines[i].ends_with("0000000000000000"));
    }
    CHECK(lines[8] == "NoNewPrivs:\t1");
    CHECK(r.out.find("root-descriptor-open") == std::string::npos);
    CHECK(lines.back() == "/");
    REQUIRE(r.untrusted.size() == 1);
    CHECK(r.untrusted[0].ran_as == "nobody");
    CHECK(r.untrusted[0].why.ends_with("/tmp is writable by others"));
  }

  TEST_CASE("root exec: a user's interpreter run as its owner keeps the time limit and leaves nothing") {
    if (skip_unless_root()) return;
    long nobody = uid_of("nobody");
    if (nobody < 0) return;
    test::TempDir tmp("gpudoctor-as-owner");
    REQUIRE(::chmod(tmp.path().c_str(), 0755) == 0);
    fs::create_directories(tmp / "u");
    // A daemon of its own (setsid, a new session) and a hang: both gone after the limit.
    test::write_text(tmp / "u/python3", "#!/bin/sh\n( setsid sleep 47113 </dev/null >/dev/null 2>&1 & )\n"
                                        "exec sleep 47114\n");
    REQUIRE(::chmod((tmp / "u/python3").c_str(), 0755) == 0);
    for (const char* p : {"u", "u/python3"})
      REQUIRE(::chown((tmp / p).c_str(), static_cast<uid_t>(nobody), 0) == 0);
    CommandSpec spec{"python-env@x", {(tmp / "u/python3").string()}, std::chrono::milliseconds(500)};
    spec.as_owner_when_untrusted = true;
    auto r = run_process(spec, {{"PATH", "/usr/bin:/bin"}});
    CHECK(r.timed_out);
    CHECK_FALSE(r.unkillable);
    auto left =
        run_process(CommandSpec{"pgrep", {"pgrep", "-f", "sleep 4711[34]$"}}, {{"PATH", "/usr/bin:/bin"}});
    CHECK(left.exit_code == 1); // pgrep: no process matched
  }

  TEST_CASE("root exec: run_foreground runs no program another user can change, and cleans the environment") {
    if (skip_unless_root()) return;
    test::TempDir tmp("gpudoctor-foreground");
    plant(tmp / "bin/gpudoctor-test-step", tmp / "canary");
    std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (tmp / "bin").c_str(), 1);
    int status = run_foreground({"gpudoctor-test-step"});
    ::setenv("PATH", saved_path.c_str(), 1);
    CHECK(status == 127);
    CHECK_FALSE(fs::exists(tmp / "canary"));
    CHECK(run_foreground({(tmp / "bin/gpudoctor-test-step").string()}) == 127);
    CHECK_FALSE(fs::exists(tmp / "canary"));

    // root's own bash, with the caller's hooks set: none of them reaches it.
    test::write_text(tmp / "hook.sh", ": >'" + (tmp / "canary").string() + "'\n");
    ::setenv("BASH_ENV", (tmp / "hook.sh").c_str(), 1);
    ::setenv("LD_PRELOAD", "/nonexistent/gpudoctor-test.so", 1);
    std::string out = (tmp / "env.txt").string();
    status = run_foreground({"bash", "-c", "env >'" + out + "'"});
    ::unsetenv("BASH_ENV");
    ::unsetenv("LD_PRELOAD");
    CHECK(status == 0);
    CHECK_FALSE(fs::exists(tmp / "canary"));
    std::string env = test::slurp(out);
    CHECK(env.find("PATH=") != std::string::npos);
    CHECK(env.find("LD_PRELOAD") == std::string::npos);
    CHECK(env.find("BASH_ENV") == std::string::npos);
  }
}
