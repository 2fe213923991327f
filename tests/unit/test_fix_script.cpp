// Parameters into bash (quoting, raw values), the journal and undo's reading of it, atomic writes.
#include "fix/journal.hpp"
#include "fix/params.hpp"
#include "unit/testutil.hpp"
#include "util/atomic_file.hpp"
#include "util/text.hpp"

#include <filesystem>
#include <sys/stat.h>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::fix;
namespace fs = std::filesystem;

TEST_CASE("fix params: words are quoted so bash reads them back unchanged") {
  CHECK(shell_quote("rocm-core") == "rocm-core");
  CHECK(shell_quote("/opt/rocm-6.2.4") == "/opt/rocm-6.2.4");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$(rm -rf /)") == "'$(rm -rf /)'");
  CHECK(shell_quote("x;y") == "'x;y'");
}

TEST_CASE("fix params: {{name}} expands to quoted words, {{!name}} to checked raw text") {
  Params p;
  p.set("stack.packages", std::vector<std::string>{"rocm-core", "hip runtime"});
  p.set("install.repo_url", "https://repo.radeon.com/rocm/apt/7.2");
  p.set("user", "");
  CHECK(expand("gd_purge_packages {{stack.packages}}", p) == "gd_purge_packages rocm-core 'hip runtime'");
  CHECK(expand("deb {{!install.repo_url}} jammy", p) == "deb https://repo.radeon.com/rocm/apt/7.2 jammy");
  CHECK(expand("gd_add_groups {{user}} render", p) == "gd_add_groups '' render"); // a scalar keeps its place
  CHECK(expand("gd_remove_files {{stack.sources}}", p) == "gd_remove_files ");    // an empty list is no word
  p.set("install.repo_url", "https://x/$(reboot)");
  auto unsafe = expand("deb {{!install.repo_url}}", p);
  REQUIRE_FALSE(unsafe.has_value());
  CHECK(text::contains(unsafe.error(), "install.repo_url"));
  CHECK(expand("Title {{!install.repo_url}}", p, true) == "Title https://x/$(reboot)"); // shown, never run
  CHECK(placeholders("a {{x.y}} b {{!z}}") == std::vector<std::string>{"x.y", "z"});
  CHECK(is_known_param("stack.packages"));
  CHECK(!is_known_param("stack.package"));
}

TEST_CASE("fix journal: undo restores the state before the run and knows what it removed") {
  std::string text =
      "t\tr1\tpurge-rocm.repositories\tbackup\t/etc/apt/sources.list.d/rocm.list\t/b/r1/rocm.list\n"
      "t\tr1\tpurge-rocm.repositories\tremoved-file\t/etc/apt/sources.list.d/rocm.list\t/b/r1/rocm.list\n"
      "t\tr1\tpurge-rocm.profiles\tbackup\t/home/sam/.bashrc\t/b/r1/home/sam/.bashrc\n"
      "t\tr1\tpurge-rocm.profiles\tbackup\t/home/sam/.bashrc\t/b/r1/home/sam/.bashrc\n"
      "t\tr1\tblacklist-nouveau.modprobe\tcreated\t/etc/modprobe.d/blacklist-nouveau.conf\n"
      "t\tr1\tpurge-rocm.packages\tpurge-package\trocm-core\t6.2.4.60204-139~22.04\n"
      "t\tr1\tpurge-rocm.trees\tremoved-tree\t/opt/rocm-6.2.4\n"
      "t\tr0\tx\tbackup\t/etc/other\t/b/r0/etc/other\n"
      "garbage line\n";
  auto journal = parse_journal(text);
  CHECK(journal.size() == 8);
  RunEffects fx = run_effects(journal, "r1");
  REQUIRE(fx.found);
  CHECK(fx.backups.size() == 2); // one per file: the first copy is the state before the run
  CHECK(fx.backups[0].file == "/etc/apt/sources.list.d/rocm.list");
  CHECK(fx.backups[0].run == "r1");
  CHECK(fx.created == std::vector<std::string>{"/etc/modprobe.d/blacklist-nouveau.conf"});
  CHECK(fx.purged.size() == 1);
  CHECK(fx.purged[0].second == "6.2.4.60204-139~22.04");
  CHECK(fx.trees == std::vector<std::string>{"/opt/rocm-6.2.4"});
  CHECK(!fx.undone);
  CHECK(run_effects(parse_journal(text + "t\tr1\t-\tundone\n"), "r1").undone);
  CHECK(!run_effects(journal, "r9").found);
}

TEST_CASE("fix atomic files: a write replaces the whole file; a copy keeps the mode") {
  test::TempDir tmp("gpudoctor-atomic");
  const fs::path& dir = tmp.path();
  std::string target = (dir / "etc/conf").string();
  REQUIRE(atomic_write(target, "old\n", 0640).has_value());
  REQUIRE(atomic_write(target, "new content\n", 0640).has_value());
  CHECK(test::slurp(target) == "new content\n");
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  std::string backup = (dir / "backup").string();
  REQUIRE(atomic_write(backup, "before\n", 0600).has_value());
  REQUIRE(atomic_copy(backup, target).has_value());
  CHECK(test::slurp(target) == "before\n");
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  int leftovers = 0;
  for (const auto& e : fs::directory_iterator(dir / "etc"))
    leftovers += e.path().filename() != "conf";
  CHECK(leftovers == 0);
}

TEST_CASE("fix journal: the family a script was made for, from its start entry") {
  // A script run by hand leaves no record of itself: before, undo took every such journal for Debian's and
  // ran apt-get on a RHEL machine. 0.1.0's start entry names no family.
  std::string rhel = "t\tr1\t-\tstart\tinstall-nvidia-1\trhel\nt\tr2\t-\tstart\tinstall-nvidia-1\tdebian\n";
  CHECK(run_effects(parse_journal(rhel), std::vector<std::string>{"r1", "r2"}).family == "rhel");
  CHECK(run_effects(parse_journal("t\tr1\t-\tstart\tinstall-nvidia-1\n"), "r1").family.empty());
}

TEST_CASE("fix journal: the module streams the runs changed, as they were before the runs") {
  // A switch 570-open -> 580-open (reset, then enable) and a stream enabled where none was; a later reset of
  // the same module in another run does not change what it was before the runs. Before, undo ignored these
  // entries and left the new stream enabled, so dnf could not install the old branch's packages again.
  std::string text = "t\tr1\tinstall-nvidia.driver-stream\tmodule-reset\tnvidia-driver\t570-open\n"
                     "t\tr1\tinstall-nvidia.driver-stream\tmodule-enabled\tnvidia-driver\t580-open\n"
                     "t\tr1\tinstall-x.stream\tmodule-enabled\tnodejs\t20\n"
                     "t\tr2\tpurge-nvidia.driver-module\tmodule-reset\tnvidia-driver\t580-open\n";
  RunEffects fx = run_effects(parse_journal(text), std::vector<std::string>{"r1", "r2"});
  using Stream = std::pair<std::string, std::string>;
  CHECK(fx.module_streams == std::vector<Stream>{{"nvidia-driver", "570-open"}, {"nodejs", ""}});
  CHECK(changed_anything(fx));
  CHECK(run_effects(parse_journal(text), "r2").module_streams ==
        std::vector<Stream>{{"nvidia-driver", "580-open"}});
}
