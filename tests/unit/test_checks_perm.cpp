// perm.kfd, perm.render-node, perm.nvidia-dev, and the access decision they rest on (collect_permissions).
#include "check_fixtures.hpp"
#include "collect/collectors.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("check: perm.kfd") {
  Facts f = amd_machine();
  f.permissions.identity = user_identity();
  SUBCASE("user outside the render group") {
    f.permissions.kfd = make_node("/dev/kfd", false);
    auto r = single(run_check("perm.kfd", f));
    expect_fired(r, Status::error, "", {"alice", "/dev/kfd", "not in group render"}, {"groups-render-video"});
    REQUIRE(r.evidence.size() == 2);
    CHECK(r.evidence[0] == "/dev/kfd: char 0660 uid 0 group render");
    CHECK(r.evidence[1] == "user alice (uid 1000) groups: alice,sudo");
  }
  SUBCASE("a group shown by gid when its name is unknown") {
    f.permissions.kfd = make_node("/dev/kfd", false, 0660, "", 992);
    auto r = single(run_check("perm.kfd", f));
    CHECK(r.evidence[0] == "/dev/kfd: char 0660 uid 0 group 992");
  }
  SUBCASE("accessible: pass") {
    f.permissions.kfd = make_node("/dev/kfd", true, 0666);
    auto r = single(run_check("perm.kfd", f));
    expect_quiet(r, Status::pass);
    CHECK_FALSE(r.evidence.empty());
  }
  SUBCASE("no /dev/kfd: skip (driver.kfd-missing says it)") {
    auto r = single(run_check("perm.kfd", f));
    expect_quiet(r, Status::skip);
    CHECK(contains(r.message, "driver.kfd-missing"));
  }
  SUBCASE("no AMD GPU: skip") {
    expect_quiet(single(run_check("perm.kfd", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: perm.render-node per AMD GPU") {
  Facts f = amd_machine({110000, 110000});
  f.permissions.identity = user_identity({"alice", "video"}, {1000, 44});
  f.permissions.render_nodes = {make_node("/dev/dri/renderD128", true),
                                make_node("/dev/dri/renderD129", false)};
  auto results = run_check("perm.render-node", f);
  REQUIRE(results.size() == 2);
  expect_quiet(results[0], Status::pass, f.gpus[0].subject());
  CHECK(contains(results[0].message, "/dev/dri/renderD128"));
  expect_fired(results[1], Status::error, f.gpus[1].subject(), {"alice", "/dev/dri/renderD129", "render"},
               {"groups-render-video"});
  CHECK(contains(results[1].evidence.back(), "groups: alice,video"));

  SUBCASE("the node the driver names is missing") {
    f.permissions.render_nodes.pop_back();
    auto again = run_check("perm.render-node", f);
    REQUIRE(again.size() == 2);
    expect_fired(again[1], Status::error, f.gpus[1].subject(), {"/dev/dri/renderD129", "does not exist"}, {});
  }
  SUBCASE("no AMD GPU with a render node: skip") {
    for (auto& g : f.gpus)
      g.render_node.reset();
    expect_quiet(single(run_check("perm.render-node", f)), Status::skip);
  }
}

TEST_CASE("check: perm.nvidia-dev") {
  Facts f = nvidia_machine(1);
  f.permissions.identity = user_identity();
  auto ok = [](const std::string& p) { return make_node(p, true, 0666, "root", 0); };
  SUBCASE("all present and open: pass") {
    f.permissions.nvidia_nodes = {ok("/dev/nvidiactl"), ok("/dev/nvidia-uvm"), ok("/dev/nvidia0")};
    expect_quiet(single(run_check("perm.nvidia-dev", f)), Status::pass);
  }
  SUBCASE("nvidiactl missing: error") {
    f.permissions.nvidia_nodes = {missing_node("/dev/nvidiactl"), ok("/dev/nvidia-uvm"), ok("/dev/nvidia0")};
    auto r = single(run_check("perm.nvidia-dev", f));
    expect_fired(r, Status::error, "/dev/nvidiactl", {"/dev/nvidiactl does not exist", "modprobe nvidia"},
                 {});
    CHECK(r.evidence.front() == "/dev/nvidiactl: missing");
    REQUIRE(r.action.has_value());
    CHECK(r.action->text == "sudo modprobe nvidia");
  }
  SUBCASE("nvidia-uvm missing: only a warning (nvidia-modprobe makes it on first use)") {
    f.permissions.nvidia_nodes = {ok("/dev/nvidiactl"), missing_node("/dev/nvidia-uvm"), ok("/dev/nvidia0")};
    auto r = single(run_check("perm.nvidia-dev", f));
    expect_fired(r, Status::warn, "/dev/nvidia-uvm", {"nvidia-modprobe"}, {});
    REQUIRE(r.action.has_value());
    CHECK(r.action->text == "sudo nvidia-modprobe -u -c 0");
  }
  SUBCASE("a GPU node locked down: error naming why") {
    f.permissions.nvidia_nodes = {ok("/dev/nvidiactl"), ok("/dev/nvidia-uvm"),
                                  make_node("/dev/nvidia0", false, 0660, "video", 44)};
    auto r = single(run_check("perm.nvidia-dev", f));
    expect_fired(r, Status::error, "/dev/nvidia0", {"alice", "/dev/nvidia0", "not in group video"}, {});
    CHECK(r.evidence.size() == 2);
    REQUIRE(r.action.has_value());
    CHECK(r.action->text == "sudo usermod -aG video alice");
  }
  SUBCASE("a node only its owner opens, or a group name that would be an option: a step, no command") {
    for (auto node : {make_node("/dev/nvidia0", false, 0600, "video", 44),
                      make_node("/dev/nvidia0", false, 0660, "--root=/tmp/x", 44)}) {
      f.permissions.nvidia_nodes = {ok("/dev/nvidiactl"), ok("/dev/nvidia-uvm"), node};
      auto r = single(run_check("perm.nvidia-dev", f));
      REQUIRE(r.action.has_value());
      CHECK(r.action->kind == Action::Kind::step);
      CHECK(r.action->text.starts_with("Give /dev/nvidia0 the NVIDIA driver's default mode 0666"));
    }
  }
  SUBCASE("no NVIDIA driver loaded: skip") {
    Facts none = nvidia_machine(1, "");
    none.permissions.nvidia_nodes = {missing_node("/dev/nvidiactl")};
    expect_quiet(single(run_check("perm.nvidia-dev", none)), Status::skip);
  }
  SUBCASE("no NVIDIA GPU: skip") {
    expect_quiet(single(run_check("perm.nvidia-dev", amd_machine())), Status::skip);
  }
}

TEST_CASE("check: perm decisions from mode, owner and groups (collect_permissions)") {
  // One AMD GPU: the collector looks at /dev/kfd and the render nodes, and at NVIDIA nodes only when present.
  std::vector<Gpu> gpus = {make_amd_gpu(0)};
  auto decide = [&](const Identity& who, const FileStat& st) {
    MemView view;
    view.who = who;
    view.stats["/dev/kfd"] = st;
    PermissionFacts perms;
    collect_permissions(view, gpus, perms);
    REQUIRE(perms.kfd.has_value());
    CHECK(perms.nvidia_nodes.empty());
    return *perms.kfd;
  };
  Identity alice = user_identity({"alice", "sudo"}, {1000, 27});

  SUBCASE("root opens anything") {
    Identity root;
    root.user = "root";
    root.uid = 0;
    CHECK(decide(root, chr_stat(0000, 0, 0, "root")).accessible);
  }
  SUBCASE("the owner's bits decide for the owner, even when the group's are wider") {
    CHECK(decide(alice, chr_stat(0600, 1000, 109, "render")).accessible);
    Identity in_group = user_identity({"alice", "render"}, {1000, 109});
    auto node = decide(in_group, chr_stat(0460, 1000, 109, "render"));
    CHECK_FALSE(node.accessible);
  }
  SUBCASE("group by gid (name unknown)") {
    Identity in_group = user_identity({"alice"}, {1000, 109});
    CHECK(decide(in_group, chr_stat(0660, 0, 109, "")).accessible);
  }
  SUBCASE("group by name (the identity's gid list lacks it)") {
    Identity in_group = user_identity({"alice", "render"}, {1000});
    CHECK(decide(in_group, chr_stat(0660, 0, 109, "render")).accessible);
  }
  SUBCASE("in the group, but the group may only read") {
    Identity in_group = user_identity({"alice", "render"}, {1000, 109});
    auto node = decide(in_group, chr_stat(0640, 0, 109, "render"));
    CHECK_FALSE(node.accessible);
    CHECK(contains(node.why_not, "in that group without read-write"));
  }
  SUBCASE("others: 0666 opens, 0660 does not") {
    CHECK(decide(alice, chr_stat(0666, 0, 109, "render")).accessible);
    auto node = decide(alice, chr_stat(0660, 0, 109, "render"));
    CHECK_FALSE(node.accessible);
    CHECK(contains(node.why_not, "/dev/kfd is mode 0660, group render"));
    CHECK(contains(node.why_not, "alice is not in group render"));
    auto by_gid = decide(alice, chr_stat(0660, 0, 109, ""));
    CHECK(contains(by_gid.why_not, "group gid 109"));
  }
  SUBCASE("others need both read and write") {
    CHECK_FALSE(decide(alice, chr_stat(0664, 0, 109, "render")).accessible);
    CHECK_FALSE(decide(alice, chr_stat(0662, 0, 109, "render")).accessible);
  }
  SUBCASE("render nodes and missing NVIDIA nodes on an NVIDIA machine") {
    MemView view;
    view.who = alice;
    view.dirs.insert("/dev/dri/by-path");
    view.stats["/dev/dri/card0"] = chr_stat(0660, 0, 44, "video");
    view.stats["/dev/dri/renderD128"] = chr_stat(0666, 0, 109, "render");
    view.stats["/dev/nvidiactl"] = chr_stat(0666, 0, 0, "root");
    PermissionFacts perms;
    collect_permissions(view, {make_nvidia_gpu(0)}, perms);
    CHECK_FALSE(perms.kfd.has_value());
    REQUIRE(perms.render_nodes.size() == 1);
    CHECK(perms.render_nodes[0].accessible);
    REQUIRE(perms.nvidia_nodes.size() == 3); // nvidiactl, nvidia-uvm, nvidia0
    CHECK(perms.nvidia_nodes[0].accessible);
    CHECK_FALSE(perms.nvidia_nodes[1].stat.has_value());
    CHECK(contains(perms.nvidia_nodes[2].why_not, "does not exist"));
  }
}
