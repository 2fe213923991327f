// A value a script journals cannot forge a journal line (docs/security.md, "Scripts"): `gpudoctor undo`
// runs as root on what the journal says (restore this backup over that file, remove what the run created),
// and the values a script journals are paths and names of the machine, some of them a user's (a venv's
// python). The real gd_journal of fixes/lib.bash writes; undo's reader reads back.
#include "fix/journal.hpp"
#include "system/process.hpp"
#include "unit/testutil.hpp"
#include "util/file_text.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::fix;

TEST_SUITE("security") {

  TEST_CASE("journal: tabs, line feeds, CRs and backslashes in a value stay inside its field") {
    test::TempDir dir("gpudoctor-journal");
    const std::string forged = "\n2026-01-01T00:00:00Z\tr1\tx.y\tcreated\t/etc/passwd\n";
    const std::string python = "/home/u/venv" + forged + "\\n\\t\r/bin/python3";
    const std::string title = "Reinstall\tbackup\t/etc/shadow\t/tmp/evil" + forged;
    std::string code =
        "set -euo pipefail\nsource \"$LIB\"\n"
        "GD_DRY_RUN=0 GD_LOG_DIR=\"$DIR\" GD_JOURNAL=\"$DIR/j\" GD_RUN_ID=r1 GD_STEP=torch.reinstall\n"
        "gd_journal step-begin \"$TITLE\"\n"
        "gd_journal pip-install \"$INTERPRETER\" 'torch torchvision' https://example.invalid/whl\n";
    CommandSpec spec{"bash", {"bash", "--norc", "--noprofile", "-c", code}};
    auto r = run_process(spec, {{"PATH", "/usr/bin:/bin"},
                                {"LIB", std::string(GPUDOCTOR_SOURCE_DIR) + "/fixes/lib.bash"},
                                {"DIR", dir.path().string()},
                                {"TITLE", title},
                                {"INTERPRETER", python}}); // not PYTHON*: root's children lose those
    REQUIRE_MESSAGE(r.ok(), r.err);
    auto text = read_whole_file((dir / "j").string());
    REQUIRE(text.has_value());

    auto entries = parse_journal(*text);
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].event == "step-begin");
    CHECK(entries[0].args == std::vector<std::string>{title});
    CHECK(entries[1].event == "pip-install");
    CHECK(entries[1].args ==
          std::vector<std::string>{python, "torch torchvision", "https://example.invalid/whl"});
    RunEffects fx = run_effects(entries, "r1");
    CHECK(fx.created.empty());
    CHECK(fx.backups.empty());
    CHECK(fx.pip.size() == 1);
  }

  TEST_CASE("journal: a damaged line with a NUL byte is no entry, so undo never has to quote it") {
    // shell_quote refuses a NUL (bash cannot hold one): read as an entry, it ended `undo` with exit 3.
    std::string text = std::string("2026-12-01T09:00:00Z\trun1\tstep\tinstalled\tpkg") + '\0' + "x\n" +
                       "2026-12-01T09:00:01Z\trun1\tstep\tinstalled\tgood\n";
    auto entries = parse_journal(text);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].args == std::vector<std::string>{"good"});
  }

} // TEST_SUITE
