// util/diagnostics: what gpudoctor says on stderr, and the exit status a subcommand's outcome gives.
#include "util/diagnostics.hpp"

#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <string>
#include <unistd.h>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// What `say` writes to stderr (fd 2 is a temporary file meanwhile).
std::string stderr_of(const std::function<void()>& say) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  int saved = ::dup(STDERR_FILENO);
  ::dup2(::fileno(capture), STDERR_FILENO);
  say();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::string text;
  std::rewind(capture);
  for (int c; (c = std::fgetc(capture)) != EOF;)
    text += static_cast<char>(c);
  std::fclose(capture);
  return text;
}

} // namespace

TEST_CASE("diagnostics: every line is one line, with what it quotes escaped") {
  const std::string hostile = "a\x1b[31mb\nc\rd\xe2\x80\xae";
  CHECK(stderr_of([&] { diag::error("cannot read {}: {}", hostile, "gone"); }) ==
        "gpudoctor: cannot read a\\x1b[31mb\\nc\\rd\\u202e: gone\n");
  CHECK(stderr_of([&] { diag::warning("{} is ignored", "--color"); }) ==
        "gpudoctor: warning: --color is ignored\n");
  CHECK(stderr_of([&] { diag::note("{} files skipped", 3); }) == "gpudoctor: note: 3 files skipped\n");
  CHECK(stderr_of([&] { diag::detail("{}", hostile); }) == "    a\\x1b[31mb\\nc\\rd\\u202e\n");
  // A text of several lines keeps its lines and nothing else.
  CHECK(stderr_of([&] { diag::block("one\n\x1b]0;title\x07two"); }) == "one\n\\x1b]0;title\\x07two\n");
  // Progress is for a terminal (tests/e2e/terminal_progress.sh): a log gets none, nor an erasure.
  CHECK(stderr_of([] {
          diag::progress("building the probes");
          diag::clear_progress();
          diag::note("built");
        }) == "gpudoctor: note: built\n");
}

TEST_CASE("diagnostics: a failure is said once, its commands indented, and gives its status") {
  Outcome refused =
      fail_with(Exit::usage, "a migration to amd is unfinished \x1b[2J here:", {"gpudoctor undo", "x\ny"});
  int status = 0;
  CHECK(stderr_of([&] { status = diag::finish(refused); }) ==
        "gpudoctor: a migration to amd is unfinished \\x1b[2J here:\n    gpudoctor undo\n    x\\ny\n");
  CHECK(status == 2);
  CHECK(exit_code(refused) == 2);
  Outcome upload = fail(Exit::upload_failed, "the bundle is still at {}", "b.tar.gz");
  CHECK(exit_code(upload) == 4);
  // A status is said by nobody: the report said it all.
  for (Exit e : {Exit::ok, Exit::findings, Exit::usage}) {
    Outcome done = e;
    CHECK(stderr_of([&] { status = diag::finish(done); }).empty());
    CHECK(status == exit_code(e));
  }
  CHECK(exit_code(Exit::internal) == 3);
  CHECK(exit_code(Exit::interrupted) == 130);
}
