// fleet/fleet: values x node counts with the odd ones out, the nodes failing each check, duplicate hosts.
#include "fleet/fleet.hpp"
#include "fleet/fleet_triage.hpp"
#include "fleet_fixtures.hpp"
#include "report/fleet_render.hpp"

#include <algorithm>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

const FleetRow* row(const Fleet& f, const std::string& group, const std::string& name) {
  for (const auto& r : f.rows)
    if (r.group == group && r.name == name) return &r;
  return nullptr;
}

const FleetCheck* check(const Fleet& f, const std::string& id) {
  for (const auto& c : f.checks)
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<std::string> names(const Fleet& f, const std::vector<std::size_t>& nodes) {
  std::vector<std::string> out;
  for (auto n : nodes)
    out.push_back(f.nodes[n].name);
  return out;
}

std::vector<NodeReport> five_nodes() {
  std::vector<NodeReport> out;
  for (int i = 1; i <= 5; ++i) {
    std::string host = "node0" + std::to_string(i);
    std::vector<std::tuple<std::string, std::string, std::string>> props = {
        {"Driver", "NVIDIA kernel module", i == 3 ? "570.86.15" : "580.159.04"},
        {"Environment", "NCCL_SOCKET_IFNAME", "eth0"}};
    if (i == 4) props.push_back({"Environment", "NCCL_DEBUG", "INFO"});
    if (i == 5) props.push_back({"Environment", "CUDA_VISIBLE_DEVICES", ""});
    std::vector<HandResult> results = {{"gpu.driver", "gpu0", Status::pass},
                                       {"gpu.driver", "gpu1", Status::pass}};
    if (i == 2)
      results = {{"gpu.driver", "gpu0", Status::error},
                 {"gpu.driver", "gpu1", Status::warn},
                 {"gpu.driver", "gpu3", Status::error}};
    if (i != 5) results.push_back({"env.nccl", "", i == 4 ? Status::warn : Status::pass});
    out.push_back(hand_node(host, "/reports/" + host + ".json", props, results));
  }
  return out;
}

Fleet build(std::vector<NodeReport> nodes, bool reverse = false) {
  FleetBuilder b(nodes.size());
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  if (reverse) std::reverse(order.begin(), order.end());
  for (auto i : order)
    b.add(i, std::move(nodes[i]));
  return b.finish();
}

} // namespace

TEST_CASE("fleet: a value held by one node is named as the odd one out; agreeing rows do not drift") {
  Fleet f = build(five_nodes());
  REQUIRE(f.nodes.size() == 5);
  const FleetRow* driver = row(f, "Driver", "NVIDIA kernel module");
  REQUIRE(driver);
  CHECK(driver->drifts());
  CHECK(driver->has_majority());
  REQUIRE(driver->values.size() == 2);
  CHECK(driver->values[0].value == "580.159.04");
  CHECK(driver->values[0].nodes.size() == 4);
  CHECK(driver->values[1].value == "570.86.15");
  CHECK(names(f, driver->values[1].nodes) == std::vector<std::string>{"node03"});
  const FleetRow* ifname = row(f, "Environment", "NCCL_SOCKET_IFNAME");
  REQUIRE(ifname);
  CHECK_FALSE(ifname->drifts());
  // A variable set on one node: the others have it unset, and that is drift too.
  const FleetRow* debug = row(f, "Environment", "NCCL_DEBUG");
  REQUIRE(debug);
  REQUIRE(debug->values.size() == 2);
  CHECK(debug->values[0].absent);
  CHECK(debug->values[0].nodes.size() == 4);
  CHECK(names(f, debug->values[1].nodes) == std::vector<std::string>{"node04"});
  CHECK(absent_text("Environment") == "(unset)");
  // Set to "" is a value of its own, not unset.
  const FleetRow* visible = row(f, "Environment", "CUDA_VISIBLE_DEVICES");
  REQUIRE(visible);
  CHECK(visible->values[1].value.empty());
  CHECK_FALSE(visible->values[1].absent);
  CHECK(f.drifting_rows() == 3);
  // Rows in table order: the driver (rank 301) before the variables (801), variables by name.
  CHECK(f.rows.front().name == "NVIDIA kernel module");
}

TEST_CASE("fleet: the nodes failing each check, with the subjects, by their worst result") {
  Fleet f = build(five_nodes());
  const FleetCheck* driver = check(f, "gpu.driver");
  REQUIRE(driver);
  CHECK(driver->title == "gpu.driver title");
  REQUIRE(driver->errors.size() == 1);
  CHECK(f.nodes[driver->errors[0].node].name == "node02");
  CHECK(driver->errors[0].subjects == std::vector<std::string>{"gpu0", "gpu3"}); // its warning is not worse
  CHECK(driver->warnings.empty());
  CHECK(driver->nodes[static_cast<int>(Status::pass)] == 4);
  const FleetCheck* nccl = check(f, "env.nccl");
  REQUIRE(nccl);
  REQUIRE(nccl->warnings.size() == 1);
  CHECK(f.nodes[nccl->warnings[0].node].name == "node04");
  CHECK(nccl->not_run == 1); // node05's report has no such result
  // Checks with error nodes first.
  CHECK(f.checks.front().id == "gpu.driver");
  CHECK(f.nodes_with(Status::error) == 1);
  CHECK(f.nodes_with(Status::warn) == 2);
}

TEST_CASE("fleet: the result does not depend on the order nodes arrive in (threads)") {
  Fleet a = build(five_nodes()), b = build(five_nodes(), true);
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(a.rows[i].name == b.rows[i].name);
    REQUIRE(a.rows[i].values.size() == b.rows[i].values.size());
    for (std::size_t k = 0; k < a.rows[i].values.size(); ++k) {
      CHECK(a.rows[i].values[k].value == b.rows[i].values[k].value);
      CHECK(a.rows[i].values[k].nodes == b.rows[i].values[k].nodes);
    }
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    CHECK(a.nodes[i].name == b.nodes[i].name);
}

TEST_CASE("fleet: two values on two nodes have no majority; each is named") {
  std::vector<NodeReport> nodes = {hand_node("a", "a.json", {{"Driver", "NVIDIA kernel module", "580"}}),
                                   hand_node("b", "b.json", {{"Driver", "NVIDIA kernel module", "570"}})};
  Fleet f = build(std::move(nodes));
  const FleetRow* driver = row(f, "Driver", "NVIDIA kernel module");
  REQUIRE(driver);
  CHECK(driver->drifts());
  CHECK_FALSE(driver->has_majority());
}

TEST_CASE("fleet: one host name in several inputs is named, and told apart by its GPUs when it can be") {
  std::vector<NodeReport> nodes = {hand_node("vm", "/a/report.json", {}, {}, "GPU-1"),
                                   hand_node("vm", "/b/report.json", {}, {}, "GPU-1"),
                                   hand_node("gpu7", "/c/x.json", {}, {}, "GPU-2"),
                                   hand_node("gpu7", "/d/y.json", {}, {}, "GPU-3"),
                                   hand_node("n", "/e/n1.json"),
                                   hand_node("n", "/f/n2.json"),
                                   hand_node("solo", "/g/s.json")};
  FleetBuilder b(nodes.size() + 1);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    b.add(i, std::move(nodes[i]));
  b.unreadable(nodes.size(), "/h/broken.json", "not a gpudoctor report");
  Fleet f = b.finish();
  REQUIRE(f.duplicates.size() == 3);
  // By host name: gpu7, n, vm.
  CHECK(f.duplicates[0].host == "gpu7");
  CHECK(f.duplicates[0].kind == FleetDuplicate::Kind::different_machines);
  CHECK(f.duplicates[1].kind == FleetDuplicate::Kind::unknown);
  CHECK(f.duplicates[2].kind == FleetDuplicate::Kind::same_machine);
  // The same file name in two folders: the paths tell them apart; a unique host keeps its name.
  CHECK(f.nodes[0].name == "vm (/a/report.json)");
  CHECK(f.nodes[2].name == "gpu7 (x.json)");
  CHECK(f.nodes[6].name == "solo");
  REQUIRE(f.unreadable.size() == 1);
  CHECK(f.unreadable[0].input == "/h/broken.json");
}

TEST_CASE("fleet text: the node list counts in words and keeps its columns for any host name") {
  std::string long_name(48, 'n'); // longer than the 40 columns the name gets
  std::vector<NodeReport> nodes = {
      hand_node("node01", "/r/node01.json", {}, {{"gpu.driver", "gpu0", Status::error}}),
      hand_node(long_name, "/r/long.json", {},
                {{"gpu.driver", "gpu0", Status::error}, {"gpu.driver", "gpu1", Status::error}})};
  std::string text = render_fleet_text(build(std::move(nodes)), FleetTextOptions{});
  auto list = text.find("\nNodes\n");
  REQUIRE(list != std::string::npos);
  auto line_of = [&](const std::string& name) {
    auto at = text.find("\n  " + name, list);
    REQUIRE(at != std::string::npos);
    auto end = text.find('\n', at + 1);
    return text.substr(at + 1, end - at - 1);
  };
  std::string one = line_of("node01");
  CHECK(one.find("  1 error ") != std::string::npos); // not "1 errors"
  CHECK(one.find("  0 warnings") != std::string::npos);
  // The long name has its own line; its counts start in the column of every other node's.
  std::string long_line = line_of(long_name);
  CHECK(long_line == "  " + long_name);
  auto after = text.find(long_line + "\n") + long_line.size() + 1;
  std::string counts = text.substr(after, text.find('\n', after) - after);
  CHECK(counts.find("  2 errors") == one.find("  1 error "));
}

TEST_CASE("fleet triage: worst nodes first, each check counted once at its worst; text and HTML agree") {
  // quiet passes; warned has one warning; broken two errors; mixed an error and a warning, and on gpu.ecc
  // an error on one GPU and a warning on another (one check, its worst status).
  std::vector<NodeReport> nodes = {
      hand_node("quiet", "/r/quiet.json", {}, {{"gpu.driver", "gpu0", Status::pass}}),
      hand_node("warned", "/r/warned.json", {}, {{"env.nccl", "", Status::warn}}),
      hand_node("broken", "/r/broken.json", {},
                {{"gpu.driver", "gpu0", Status::error}, {"kernel.xid", "gpu1", Status::error}}),
      hand_node("mixed", "/r/mixed.json", {},
                {{"gpu.ecc", "gpu0", Status::error},
                 {"gpu.ecc", "gpu1", Status::warn},
                 {"env.nccl", "", Status::warn}})};
  Fleet f = build(std::move(nodes));
  Triage t = triage(f, 10);
  REQUIRE(t.nodes.size() == 3);
  std::vector<std::string> order;
  for (const auto& n : t.nodes)
    order.push_back(f.nodes[n.node].host);
  CHECK(order == std::vector<std::string>{"broken", "mixed", "warned"});
  CHECK(t.nodes[1].errors == 1);
  CHECK(t.nodes[1].warnings == 1); // gpu.ecc once, as an error; env.nccl a warning
  CHECK(t.more_nodes == 0);
  Triage two = triage(f, 2);
  CHECK(two.nodes.size() == 2);
  CHECK(two.more_nodes == 1);

  // The text: the worst nodes before the failing checks, before the drift.
  std::string text = render_fleet_text(f, FleetTextOptions{});
  auto worst = text.find("Worst nodes"), failing = text.find("Failing checks");
  REQUIRE(worst != std::string::npos);
  REQUIRE(failing != std::string::npos);
  CHECK(worst < failing);
  auto b = text.find("  broken", worst), m = text.find("  mixed", worst), w = text.find("  warned", worst);
  CHECK(b < m);
  CHECK(m < w);
  CHECK(w < failing);
  CHECK(text.find("  quiet", worst) > failing);

  // The HTML: the grid's rows in the same order, before the failing checks' table.
  std::string page = render_fleet_html(f);
  auto grid = page.find("<div class=\"scroll\">");
  REQUIRE(grid != std::string::npos);
  auto grid_end = page.find("</div>", grid);
  auto at = [&](const std::string& host) { return page.find("<b>" + host + "</b>", grid); };
  CHECK(at("broken") < at("mixed"));
  CHECK(at("mixed") < at("warned"));
  CHECK(at("warned") < grid_end);
  CHECK(at("quiet") > grid_end);
}

TEST_CASE("fleet HTML: more than three odd ones out fold behind their count; a node links to its page") {
  std::vector<NodeReport> nodes;
  for (int i = 0; i < 10; ++i)
    nodes.push_back(hand_node(fmt::format("n{:02}", i), fmt::format("/r/n{:02}.json", i),
                              {{"Driver", "NVIDIA kernel module", i < 5 ? "580" : "570"}},
                              {{"gpu.driver", "gpu0", i < 4 ? Status::error : Status::pass}}));
  Fleet f = build(std::move(nodes));
  f.nodes[0].page = "n00.html";
  std::string page = render_fleet_html(f);
  // 4 failing nodes and 5 odd ones out (a tie: 5 against 5): folded, with their count.
  CHECK(page.find("<details><summary>4 nodes</summary>") != std::string::npos);
  CHECK(page.find("<details><summary>5 nodes</summary>") != std::string::npos);
  CHECK(page.find("<a href=\"n00.html\">n00</a>") != std::string::npos);
  CHECK(page.find("<a href=\"n01.html\">") == std::string::npos);
}
