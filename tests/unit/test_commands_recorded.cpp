// system/commands_recorded: the one table of the commands a snapshot records under a fixed key. The
// collectors build their commands from it, and docs/snapshot.md's "Commands" table must name each key
// with the same argv, and no key the table lacks, so that a command changed in one place fails here.
#include "system/commands_recorded.hpp"
#include "testutil.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

struct DocRow {
  std::vector<std::string> keys; // the backticked words of the first column
  std::string argv;              // the second column as written
};

std::vector<std::string> backticked(const std::string& cell) {
  std::vector<std::string> out;
  for (size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open)) {
    size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    out.push_back(cell.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return out;
}

// The rows of the tables under `heading` in a Markdown file: "| `key` | argv | ... |".
std::vector<DocRow> doc_rows(const std::string& rel, const std::string& heading) {
  std::string text = read_whole_file(std::filesystem::path(GPUDOCTOR_SOURCE_DIR) / rel).value_or("");
  std::vector<DocRow> rows;
  bool inside = false;
  for (const auto& line : text::lines(text)) {
    if (line.starts_with("## ")) inside = line == heading;
    if (!inside || !line.starts_with("| `")) continue;
    // Split on the column bars that are not escaped ("<nvcc\|hipcc>").
    std::vector<std::string> cells{""};
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|' && line[i - 1] != '\\')
        cells.emplace_back();
      else
        cells.back() += line[i];
    }
    if (cells.size() < 3) continue;
    rows.push_back({backticked(cells[0]), cells[1]});
  }
  return rows;
}

std::vector<DocRow> documented_commands() {
  auto rows = doc_rows("docs/snapshot.md", "## Commands (`commands.json`)");
  auto probes = doc_rows("docs/probes.md", "## Snapshot keys");
  rows.insert(rows.end(), probes.begin(), probes.end());
  return rows;
}

} // namespace

TEST_CASE("every enumerator of KeyedCommand has one row, keys of one command only") {
  std::set<KeyedCommand> ids;
  for (const auto& row : keyed_commands()) {
    CHECK(ids.insert(row.id).second);
    CHECK(&keyed_command(row.id) == &row);
    CHECK_FALSE(row.argv.empty());
  }
  CHECK(ids.size() == static_cast<size_t>(KeyedCommand::nvidia_smi_nvlink_errors) + 1);
}

TEST_CASE("docs/snapshot.md names every recorded command with the argv gpudoctor runs") {
  auto docs = documented_commands();
  REQUIRE(docs.size() >= 15);
  for (const auto& row : keyed_commands()) {
    CAPTURE(row.key);
    auto doc = std::ranges::find_if(docs, [&](const DocRow& d) {
      return std::ranges::find(d.keys, std::string(row.key)) != d.keys.end();
    });
    REQUIRE(doc != docs.end());
    // The argv column shows each argv in backticks: this row's must be among them.
    auto shown = backticked(doc->argv);
    CHECK(std::ranges::find(shown, argv_as_shell_words(row.argv)) != shown.end());
  }
}

TEST_CASE("docs name no command key that gpudoctor does not record") {
  std::set<std::string> known;
  for (const auto& row : keyed_commands())
    known.insert(std::string(row.key));
  for (std::string_view shape : recorded_key_shapes())
    known.insert(std::string(shape));
  std::set<std::string> documented;
  for (const auto& doc : documented_commands())
    for (const auto& key : doc.keys) {
      CAPTURE(key);
      CHECK(known.contains(key));
      documented.insert(key);
    }
  for (const auto& key : known) {
    CAPTURE(key);
    CHECK(documented.contains(key));
  }
}

TEST_CASE("argv_as_shell_words quotes what a shell would split or expand") {
  CHECK(argv_as_shell_words({"nvidia-smi", "-q", "-x"}) == "nvidia-smi -q -x");
  CHECK(argv_as_shell_words({"docker", "info", "--format", "{{json .}}"}) ==
        "docker info --format '{{json .}}'");
  CHECK(argv_as_shell_words({"echo", "it's"}) == "echo 'it'\\''s'");
  CHECK(argv_as_shell_words({"x", ""}) == "x ''");
}
