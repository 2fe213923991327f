// The node's history (docs/fleet.md, "History"): the names and bounds of the kept reports, the folder's
// rules, the report as it is kept (redacted), and the previous reading the collectors take from it.
#include "app/history_keep.hpp"
#include "bundle/redact_report.hpp"
#include "collect/collectors.hpp"
#include "system/history_store.hpp"
#include "testutil.hpp"
#include "util/json.hpp"
#include "util/utc_time.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace gpudoctor {

namespace {

using history::Entry;
using history::Limits;

Entry entry(const std::string& stamp, bool good, std::uint64_t bytes = 100) {
  Entry e = *history::entry_of(stamp + (good ? "-ok.json" : "-error.json"));
  e.bytes = bytes;
  return e;
}

// As root a history folder must be root's the whole way up (the sticky /tmp is not): root's tests work in
// /run, as the end-to-end tests do.
struct HistoryTemp : test::TempDir {
  HistoryTemp() : test::TempDir("gpudoctor-history", ::geteuid() == 0 ? "/run" : "") {}
};

std::vector<std::string> names(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries)
    out.push_back(e.name);
  return out;
}

} // namespace

TEST_CASE("history: a kept report's name says when and whether it had an error") {
  std::string name = history::entry_name(1764913787, 42, true);
  CHECK(name == "20251205T054947.000042Z-ok.json");
  auto e = history::entry_of(name);
  REQUIRE(e);
  CHECK(e->good);
  CHECK(e->time == "2025-12-05T05:49:47Z");
  CHECK(history::entry_of(history::entry_name(1764913787, 999999, false))->good == false);
  // Names of time order sort in time order: listing reads no report.
  CHECK(history::entry_name(1764913787, 999999, true) < history::entry_name(1764913788, 0, false));
  for (const char* other : {"report.json", ".gpudoctor-1a2b.tmp", "20251205T054947.000042Z-ok.json.bak",
                            "20251205T054947.00004Z-ok.json", "2025120xT054947.000042Z-ok.json",
                            "20251205T054947.000042Z-good.json", "../20251205T054947.000042Z-ok.json", ""})
    CHECK_MESSAGE(!history::entry_of(other), other);
}

TEST_CASE("history: the bounds keep the newest reports, and the newest and the newest good always") {
  std::vector<Entry> all = {entry("20261201T000000.000000Z", true), entry("20261202T000000.000000Z", false),
                            entry("20261203T000000.000000Z", false), entry("20261204T000000.000000Z", false),
                            entry("20261205T000000.000000Z", false)};
  SUBCASE("within both bounds nothing goes") {
    CHECK(history::over_limits(all, Limits{5, 1000}).empty());
  }
  SUBCASE("by count: the oldest go, but the only good one stays") {
    auto removed = history::over_limits(all, Limits{2, 1000});
    CHECK(removed == std::vector<std::string>{all[2].name, all[1].name});
  }
  SUBCASE("by bytes, the same") {
    auto removed = history::over_limits(all, Limits{100, 250});
    CHECK(removed == std::vector<std::string>{all[2].name, all[1].name});
  }
  SUBCASE("a newer good report lets the older one go") {
    all.push_back(entry("20261206T000000.000000Z", true));
    auto removed = history::over_limits(all, Limits{2, 1000});
    CHECK(removed == std::vector<std::string>{all[3].name, all[2].name, all[1].name, all[0].name});
  }
  SUBCASE("one report larger than the bound is still kept: the newest always is") {
    std::vector<Entry> big = {entry("20261201T000000.000000Z", false, 10),
                              entry("20261202T000000.000000Z", false, 5000)};
    CHECK(history::over_limits(big, Limits{10, 1000}) == std::vector<std::string>{big[0].name});
  }
  SUBCASE("no entries") {
    CHECK(history::over_limits({}, Limits{}).empty());
  }
}

TEST_CASE("history: a folder keeps reports 0600, lists them, reads them back and prunes") {
  HistoryTemp tmp;
  std::string dir = (tmp / "a" / "history").string();
  auto folder = history::Folder::open(dir, true);
  REQUIRE_MESSAGE(folder, (folder ? "" : folder.error()));
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  // A temporary file a killed writer left is removed under the lock; other names are left alone.
  test::write_text(tmp / "a" / "history" / ".gpudoctor-0123.tmp", "half");
  test::write_text(tmp / "a" / "history" / "notes.txt", "mine");
  Limits limits{3, 1 << 20};
  std::vector<std::string> kept;
  for (int i = 0; i < 5; ++i) {
    auto e = folder->add(fmt::format("{{\"n\": {}}}\n", i), i == 1, limits);
    REQUIRE_MESSAGE(e, (e ? "" : e.error()));
    kept.push_back(e->name);
  }
  CHECK(!std::filesystem::exists(tmp / "a" / "history" / ".gpudoctor-0123.tmp"));
  CHECK(std::filesystem::exists(tmp / "a" / "history" / "notes.txt"));
  auto listed = folder->list();
  REQUIRE(listed);
  // The three newest, and the good one (the second) beyond the count.
  CHECK(names(*listed) == std::vector<std::string>{kept[1], kept[2], kept[3], kept[4]});
  REQUIRE(::stat((dir + "/" + kept[4]).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto text = folder->read(kept[4]);
  REQUIRE(text);
  CHECK(*text == "{\"n\": 4}\n");
  CHECK(!folder->read("notes.txt"));
  CHECK(!folder->read("../" + kept[4]));
}

TEST_CASE("history: a link in place of a report, a folder others can write, a link to the folder: refused") {
  HistoryTemp tmp;
  std::string dir = (tmp / "history").string();
  auto folder = history::Folder::open(dir, true);
  REQUIRE(folder);
  test::write_text(tmp / "elsewhere.json", "{}");
  std::string planted = history::entry_name(1764913787, 1, true);
  std::filesystem::create_symlink(tmp / "elsewhere.json", tmp / "history" / planted);
  CHECK(folder->list()->empty()); // a link is no kept report
  auto read = folder->read(planted);
  REQUIRE(!read);
  CHECK(text::contains(read.error(), planted));

  std::filesystem::create_directory_symlink(tmp / "history", tmp / "link");
  auto through_link = history::Folder::open((tmp / "link").string(), false);
  REQUIRE(!through_link);
  CHECK(text::contains(through_link.error(), "link"));

  ::chmod(dir.c_str(), 0770);
  auto group_writable = history::Folder::open(dir, false);
  REQUIRE(!group_writable);
  CHECK(text::contains(group_writable.error(), "writable by its group"));
}

TEST_CASE("history: the folder of a command, and the reason a user is refused root's") {
  CHECK(*history_folder("/tmp/mine", "gpudoctor history") == "/tmp/mine");
  auto root = history_folder("", "gpudoctor history");
  if (::geteuid() == 0) {
    CHECK(*root == history::k_system_dir);
  } else {
    REQUIRE(!root);
    CHECK(root.error().exit == Exit::usage);
    CHECK(text::contains(root.error().message, "gpudoctor history needs root"));
    CHECK(text::contains(root.error().message, "--history-dir"));
  }
}

TEST_CASE("history: a kept report is redacted as a bundle is") {
  Json report = {
      {"format", "gpudoctor-report"},
      {"facts",
       {{"environment",
         {{"gpu_variables",
           {{"HF_TOKEN", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"}, {"NCCL_DEBUG", "INFO"}}}}},
        {"repositories", {{"lines", {"deb https://alice:s3cretpw@repo.example/cuda /"}}}},
        {"python", {{"distributions", {"tiktoken==0.14.0", "tokenizers==0.23.2"}}}}}},
      {"results",
       {{{"id", "repo.unreachable"},
         {"evidence", {"/etc/pip.conf:2: index-url = https://bob:hunter22@pypi.example/simple"}}}}}};
  std::size_t changed = redact_report(report, &test::kb());
  CHECK(changed == 3);
  std::string text = dump_json(report);
  for (const char* secret : {"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "s3cretpw", "hunter22"})
    CHECK_MESSAGE(!text::contains(text, secret), secret);
  CHECK(report["facts"]["environment"]["gpu_variables"]["NCCL_DEBUG"] == "INFO");
  CHECK(text::contains(text, "repo.example/cuda"));
  CHECK(report["facts"]["python"]["distributions"][0] == "tiktoken==0.14.0"); // a name, not an assignment
}

namespace {

// Live, a summary is derived from what the view holds; a replay answers what was recorded under its key,
// never what a folder holds now (as system/replay_view does).
struct SummaryView : test::MemView {
  std::optional<std::string> summary(const std::string& key, const std::vector<std::string>&,
                                     const Derive& derive) override {
    if (view_kind == Kind::live) return derive(*this);
    auto it = commands.find(key);
    if (it == commands.end() || !it->second.ok()) return std::nullopt;
    return it->second.out;
  }
};

// A kept report of an H200 whose GPU had 2 uncorrectable and 10 corrected ECC errors over its life and two
// Xid 13 lines this boot, written by a gpudoctor that recorded the boot's id.
std::string kept_h200_report(const std::string& boot_id) {
  Json report = {
      {"format", "gpudoctor-report"},
      {"version", 1},
      {"tool", {{"name", "gpudoctor"}, {"version", "0.1.0"}}},
      {"facts",
       {{"history", {{"boot_id", {{"value", boot_id}, {"source", "file /proc/..."}}}}},
        {"health",
         {{"nvidia_gpus",
           {{{"bus_id", "00000000:00:06.0"},
             {"health",
              {{"aggregate_uncorrectable", 2},
               {"aggregate_correctable", 10},
               {"volatile_correctable", 3}}}}}},
          {"gpus", {{{"bdf", "0000:03:00.0"}, {"amdgpu_ras", {{{"block", "umc"}, {"ue", 1}, {"ce", 4}}}}}}},
          {"kernel_log",
           {{"events",
             {{{"kind", "xid"}, {"code", 13}, {"pci", "0000:00:06.0"}, {"boot", "this"}, {"count", 2}},
              {{"kind", "xid"}, {"code", 79}, {"pci", "0000:00:06.0"}, {"boot", "previous"}, {"count", 1}},
              {{"kind", "made-up"}, {"code", 1}, {"pci", ""}, {"boot", "this"}, {"count", 9}}}}}}}}}}};
  return dump_json(report);
}

} // namespace

TEST_CASE("history: the previous reading is the newest kept report's counters") {
  SummaryView view;
  const std::string dir = "/var/lib/gpudoctor/history";
  view.files["/proc/sys/kernel/random/boot_id"] = "b0075e1d-0000-4000-8000-000000000001\n";
  view.files[dir + "/20261204T000000.000000Z-ok.json"] = kept_h200_report("older");
  view.files[dir + "/20261205T054947.000001Z-error.json"] =
      kept_h200_report("b0075e1d-0000-4000-8000-000000000001");
  view.files[dir + "/zzz-not-ours.json"] = "{}";
  view.view_kind = SystemView::Kind::live;

  SUBCASE("read, reduced to the counters") {
    HistoryFacts h;
    collect_history(view, dir, h);
    REQUIRE(h.boot_id);
    CHECK(*h.boot_id == "b0075e1d-0000-4000-8000-000000000001");
    REQUIRE(h.previous);
    CHECK(h.previous->report == "20261205T054947.000001Z-error.json");
    CHECK(h.previous->time == "2026-12-05T05:49:47Z");
    CHECK(h.previous->tool_version == "0.1.0");
    CHECK(h.same_boot());
    REQUIRE(h.previous->gpus.size() == 2);
    CHECK(h.previous->gpus[0].bdf == "00000000:00:06.0");
    CHECK(h.previous->gpus[0].aggregate_uncorrectable == 2);
    CHECK(h.previous->gpus[0].aggregate_correctable == 10);
    CHECK(h.previous->gpus[0].volatile_uncorrectable == std::nullopt);
    CHECK(h.previous->gpus[1].bdf == "0000:03:00.0");
    REQUIRE(h.previous->gpus[1].ras.size() == 1);
    CHECK(h.previous->gpus[1].ras[0].ce == 4);
    // This boot's known groups only: the previous boot's and an unknown kind are not kept.
    REQUIRE(h.previous->events.size() == 1);
    CHECK(h.previous->events[0].code == 13);
    CHECK(h.previous->events[0].count == 2);
  }
  SUBCASE("a folder or report another account owns or others may write is not read") {
    FileStat st;
    st.type = FileType::dir;
    st.uid = 1000;
    view.stats[dir] = st;
    HistoryFacts h;
    collect_history(view, dir, h);
    CHECK(!h.previous);
    view.stats.erase(dir);
    FileStat report;
    report.type = FileType::file;
    report.mode = 0666;
    view.stats[dir + "/20261205T054947.000001Z-error.json"] = report;
    collect_history(view, dir, h);
    CHECK(h.previous);
    CHECK(h.previous->report == "20261204T000000.000000Z-ok.json"); // not: the newest, others may write it
  }
  SUBCASE("a replay answers from the recorded summary, hostile or not, never from a folder") {
    view.view_kind = SystemView::Kind::replay;
    HistoryFacts h;
    collect_history(view, dir, h);
    CHECK(!h.previous); // no summary recorded: nothing, whatever the folder holds
    for (const char* garbage :
         {"", "[]", "{\"report\": 3}",
          "{\"report\": \"x\", \"gpus\": 7, \"events\": [1, {\"kind\": \"xid\", \"count\": -4}]}"}) {
      view.command("history-previous", garbage);
      HistoryFacts g;
      collect_history(view, dir, g);
      if (g.previous) {
        CHECK(g.previous->gpus.empty());
        for (const auto& e : g.previous->events)
          CHECK(e.count == 0);
      }
    }
  }
}

TEST_CASE("history: a kept report's NVLink counts come back as the next run's previous reading") {
  // The report of the fixture whose link 5 of GPU 1 counted 3 replay and 1 recovery errors, kept as
  // `check --history` keeps it, then read as the next live run reads the newest kept report.
  Report report = test::judged_machine("nvidia-h200-nvlink-errors-grown");
  SummaryView view;
  const std::string dir = "/var/lib/gpudoctor/history";
  view.files[dir + "/20261205T103000.000000Z-error.json"] = kept_report_text(report, test::kb());
  view.view_kind = SystemView::Kind::live;
  HistoryFacts h;
  collect_history(view, dir, h);
  REQUIRE(h.previous);
  CHECK(utc::parse_iso8601(h.previous->read_at)); // this run's own time, for a rate of CRC errors
  REQUIRE(h.previous->gpus.size() == 2);
  const auto& gpu1 = h.previous->gpus[1];
  CHECK(gpu1.bdf == "00000000:2A:00.0");
  REQUIRE(gpu1.nvlinks.size() == 18);
  CHECK(gpu1.nvlinks[5].link == 5);
  CHECK(gpu1.nvlinks[5].replay == 3);
  CHECK(gpu1.nvlinks[5].recovery == 1);
  CHECK(gpu1.nvlinks[5].crc == 0);
  CHECK(h.previous->gpus[0].nvlinks[2].crc == 12);
}

} // namespace gpudoctor
