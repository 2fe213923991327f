// system/run_cache: a command's answer remembered while what it depends on stays as it was, and read back
// only as the account's own record; every change the rule names makes the command run again.
#include "system/process.hpp"
#include "system/run_cache.hpp"
#include "unit/testutil.hpp"

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;

namespace {

// As root the cache folder, and the program, must be root's the whole way up: /run, as the history tests.
struct CacheTemp : test::TempDir {
  CacheTemp() : test::TempDir("gpudoctor-run-cache", ::geteuid() == 0 ? "/run" : "") {}
};

void write(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

// A program that counts its runs in `counter` and answers with a line, then the folder it names.
struct Asked {
  CacheTemp temp;
  fs::path program = temp / "ask";
  fs::path counter = temp / "runs";
  fs::path config = temp / "ask.cfg";
  fs::path site = temp / "site";
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"}, {"ASK_MODE", "one"}};
  CommandSpec spec;

  Asked() {
    fs::create_directory(site);
    write(program, "#!/bin/sh\necho ran >>'" + counter.string() + "'\nprintf 'answer %s\\n" + site.string() +
                       "\\n' \"$ASK_MODE\"\n");
    ::chmod(program.c_str(), 0755);
    write(config, "a=1\n");
    spec = {"ask", {program.string()}, std::chrono::seconds(10)};
    auto rule = std::make_shared<RunCacheRule>();
    rule->key_files = {config.string()};
    rule->key_env = {"ASK_*"};
    rule->watched = [](const std::string& out) {
      auto lines = text_lines(out);
      return std::vector<std::string>(lines.begin() + (lines.empty() ? 0 : 1), lines.end());
    };
    spec.cache = rule;
  }
  static std::vector<std::string> text_lines(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < s.size()) {
      auto nl = s.find('\n', at);
      out.push_back(s.substr(at, nl - at));
      at = nl == std::string::npos ? s.size() : nl + 1;
    }
    return out;
  }
  std::size_t runs() const { return fs::exists(counter) ? text_lines(test::slurp(counter)).size() : 0; }

  // What LiveView::run does: the remembered answer, else a run that is then remembered.
  CommandResult ask(RunCache& cache) {
    std::string key = run_cache_key(spec, env);
    if (auto hit = cache.find(spec, key)) return *hit;
    CommandResult r = run_process(spec, env);
    cache.keep(spec, key, r);
    return r;
  }
};

// mtime and ctime move on in the next tick of the file system's clock.
void next_tick() {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

} // namespace

TEST_CASE("run cache: asked once, then answered from the record while nothing it depends on changed") {
  Asked a;
  RunCache cache((a.temp / "gpudoctor" / "cache").string());
  auto first = a.ask(cache);
  REQUIRE(first.ok());
  CHECK_FALSE(first.cached);
  auto second = a.ask(cache);
  REQUIRE(second.ok());
  CHECK(second.cached);
  CHECK(second.out == first.out);
  CHECK(second.argv == first.argv);
  CHECK(a.runs() == 1);
  // The folder and its record are the account's own, unreadable by others; the folder made above it is
  // 0755, as the fix scripts make gpudoctor's cache folder (apt's sandbox user crosses it).
  struct stat st {};
  REQUIRE(::stat((a.temp / "gpudoctor" / "cache").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((a.temp / "gpudoctor").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  for (const auto& e : fs::directory_iterator(a.temp / "gpudoctor" / "cache")) {
    REQUIRE(::stat(e.path().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
  }
}

TEST_CASE("run cache: each change the rule names makes the program run again") {
  Asked a;
  RunCache cache((a.temp / "cache").string());
  a.ask(cache);
  REQUIRE(a.runs() == 1);

  SUBCASE("a key file edited") {
    next_tick();
    write(a.config, "a=2\n");
  }
  // A rule that keys one more file, absent at its first answer (a run), then made there (a run again).
  auto file_made = [&](auto&& widen_rule) {
    auto rule = std::make_shared<RunCacheRule>(*a.spec.cache);
    widen_rule(*rule);
    a.spec.cache = rule;
    a.ask(cache);
    REQUIRE(a.runs() == 2);
    write(a.temp / "pyvenv.cfg", "home = /usr/bin\n");
    a.ask(cache);
    CHECK(a.runs() == 3);
  };
  SUBCASE("a key file made where there was none") {
    file_made([&](RunCacheRule& r) { r.key_files.push_back((a.temp / "pyvenv.cfg").string()); });
    return;
  }
  SUBCASE("a file made beside the program found (a venv's pyvenv.cfg)") {
    file_made([](RunCacheRule& r) { r.beside_program = {"pyvenv.cfg"}; });
    return;
  }
  SUBCASE("a variable of the rule set otherwise") {
    a.env["ASK_MODE"] = "two";
  }
  SUBCASE("a variable of the rule added") {
    a.env["ASK_EXTRA"] = "1";
  }
  SUBCASE("a watched folder changed (a package installed there)") {
    next_tick();
    write(a.site / "new.pth", "/opt/x\n");
  }
  SUBCASE("the program replaced") {
    next_tick();
    write(a.program, test::slurp(a.program) + "# edited\n");
  }
  SUBCASE("another argument") {
    a.spec.argv.push_back("--other");
  }
  auto again = a.ask(cache);
  CHECK_FALSE(again.cached);
  CHECK(a.runs() == 2);
}

TEST_CASE("run cache: a variable outside the rule does not matter") {
  Asked a;
  RunCache cache((a.temp / "cache").string());
  a.ask(cache);
  a.env["UNRELATED"] = "x";
  CHECK(a.ask(cache).cached);
  CHECK(a.runs() == 1);
}

TEST_CASE("run cache: a record that is damaged, not the account's own or writable by others is not read") {
  Asked a;
  fs::path folder = a.temp / "cache";
  RunCache cache(folder.string());
  a.ask(cache);
  REQUIRE(a.runs() == 1);
  fs::path record;
  for (const auto& e : fs::directory_iterator(folder))
    record = e.path();
  REQUIRE(!record.empty());
  std::string good = test::slurp(record);

  SUBCASE("garbage") {
    write(record, std::string("\x00\xff{\"key\":", 9) + std::string(5000, '['));
  }
  SUBCASE("cut short") {
    write(record, good.substr(0, good.size() / 2));
  }
  SUBCASE("a result of the wrong type") {
    std::string bad = good;
    bad.replace(bad.find("\"exit_code\":0"), 13, "\"exit_code\":\"0\"");
    write(record, bad);
  }
  SUBCASE("writable by others") {
    ::chmod(record.c_str(), 0666);
  }
  SUBCASE("a link to another file") {
    write(a.temp / "elsewhere", good);
    fs::remove(record);
    fs::create_symlink(a.temp / "elsewhere", record);
  }
  SUBCASE("another account's (as root)") {
    if (::geteuid() != 0) return;
    REQUIRE(::chown(record.c_str(), 65534, 65534) == 0);
  }
  auto again = a.ask(cache);
  REQUIRE(again.ok());
  CHECK_FALSE(again.cached);
  CHECK(a.runs() == 2);
}

TEST_CASE("run cache: a folder another user could change is not used") {
  Asked a;
  fs::path folder = a.temp / "open";
  fs::create_directory(folder);
  ::chmod(folder.c_str(), 0777);
  RunCache cache((folder / "cache").string());
  a.ask(cache);
  CHECK_FALSE(a.ask(cache).cached);
  CHECK(a.runs() == 2);
  CHECK(fs::is_empty(folder) == (::geteuid() == 0)); // as root nothing is made below it
}

TEST_CASE("run cache: failures and answers that could not come back whole are not remembered") {
  Asked a;
  RunCache cache((a.temp / "cache").string());
  SUBCASE("a failing run") {
    write(a.program, "#!/bin/sh\necho ran >>'" + a.counter.string() + "'\nexit 3\n");
  }
  SUBCASE("output that is not UTF-8") {
    write(a.program, "#!/bin/sh\necho ran >>'" + a.counter.string() + "'\nprintf 'caf\\351\\n'\n");
  }
  a.ask(cache);
  a.ask(cache);
  CHECK(a.runs() == 2);
}

TEST_CASE("run cache: the folder holds a bounded number of records") {
  CacheTemp temp;
  fs::path folder = temp / "cache";
  RunCache cache(folder.string());
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"}};
  CommandResult ok;
  ok.found = true;
  ok.exit_code = 0;
  ok.out = "x\n";
  for (std::size_t i = 0; i < RunCache::k_max_entries + 20; ++i) {
    CommandSpec spec{"echo", {"/bin/echo", std::to_string(i)}, std::chrono::seconds(1)};
    spec.cache = std::make_shared<RunCacheRule>();
    cache.keep(spec, run_cache_key(spec, env), ok);
  }
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder))
    ++count;
  CHECK(count == RunCache::k_max_entries);
}

TEST_CASE("run cache: root's is root's own, whatever HOME and XDG_CACHE_HOME say; it can be turned off") {
  std::map<std::string, std::string> env{{"HOME", "/home/alice"}, {"XDG_CACHE_HOME", "/home/alice/.cache"}};
  if (::geteuid() == 0) {
    CHECK(run_cache_folder(env) == "/var/cache/gpudoctor/interpreters");
  } else {
    CHECK(run_cache_folder(env) == "/home/alice/.cache/gpudoctor/interpreters");
    env.erase("XDG_CACHE_HOME");
    CHECK(run_cache_folder(env) == "/home/alice/.cache/gpudoctor/interpreters");
  }
  env["GPUDOCTOR_NO_CACHE"] = "1";
  CHECK_FALSE(run_cache_folder(env).has_value());
}
