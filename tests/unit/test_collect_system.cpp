// The configuration collectors (repositories, DKMS and Secure Boot, GPU-stack paths, Docker, site packages)
// over an in-memory machine.
#include "check_fixtures.hpp"
#include "collect/collectors.hpp"
#include "collect/pyenv_shim.hpp"
#include "testutil.hpp"
#include "unit/test_parse_util.hpp"
#include "util/text.hpp"

#include <mutex>
#include <set>

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("collect: vendor repositories from apt (one-line, deb822), dnf and pip") {
  MemView v;
  v.who.home = "/home/ada";
  v.files["/etc/os-release"] =
      "ID=linuxmint\nVERSION_ID=\"21\"\nVERSION_CODENAME=vanessa\nUBUNTU_CODENAME=jammy\n";
  v.files["/etc/apt/sources.list"] = "deb http://archive.ubuntu.com/ubuntu jammy main\n";
  v.files["/etc/apt/sources.list.d/rocm.list"] = "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                                                 "https://repo.radeon.com/rocm/apt/6.1.3 jammy main\n"
                                                 "# deb https://repo.radeon.com/rocm/apt/5.7 jammy main\n";
  v.files["/etc/apt/sources.list.d/cuda.sources"] =
      "Types: deb\nURIs: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/\n"
      "Suites: /\nSigned-By: /usr/share/keyrings/cuda-archive-keyring.gpg\n";
  v.files["/etc/apt/sources.list.d/google-chrome.list.save"] = "deb https://repo.radeon.com/x jammy main\n";
  v.files["/etc/yum.repos.d/cuda-rhel9.repo"] =
      "[cuda-rhel9-x86_64]\nname=cuda\nbaseurl=https://developer.download.nvidia.com/compute/cuda/repos/"
      "rhel9/x86_64\n"
      "enabled=1\n";
  v.files["/home/ada/.config/pip/pip.conf"] =
      "[global]\nextra-index-url =\n    https://download.pytorch.org/whl/rocm6.1\n    "
      "https://pypi.org/simple\n";
  v.env["PIP_INDEX_URL"] = "https://download.pytorch.org/whl/cu121";
  RepoFacts repos;
  collect_repos(v, repos);
  link_repos(repos, kb());
  CHECK(repos.ubuntu_codename.value == std::optional<std::string>("jammy"));
  REQUIRE(repos.sources.size() == 6);
  CHECK(repos.sources[0].origin == "/etc/apt/sources.list.d/cuda.sources:1");
  CHECK(repos.sources[0].vendor == "nvidia");
  CHECK(repos.sources[0].suite == "/");
  CHECK(repos.sources[1].origin == "/etc/apt/sources.list.d/rocm.list:1");
  CHECK(repos.sources[1].suite == "jammy");
  CHECK(repos.sources[1].enabled);
  CHECK_FALSE(repos.sources[2].enabled); // the commented-out line
  CHECK(repos.sources[3].kind == "dnf");
  CHECK(repos.sources[3].origin == "/etc/yum.repos.d/cuda-rhel9.repo:1");
  CHECK(repos.sources[4].kind == "pip");
  CHECK(repos.sources[4].origin == "env PIP_INDEX_URL");
  CHECK(repos.sources[5].uri == "https://download.pytorch.org/whl/rocm6.1");
  CHECK(repos.sources[5].origin == "/home/ada/.config/pip/pip.conf:2");
  CHECK_FALSE(repos.sources[5].release_specific);
}

TEST_CASE("collect: dkms status and mokutil") {
  MemView v;
  v.command("dkms-status", realdata("dkms-status-amdgpu-1.txt"));
  v.command("mokutil-sb-state", "SecureBoot enabled\n");
  BootFacts boot;
  std::vector<ToolRun> tools;
  collect_boot(v, CollectOptions{}, boot, tools);
  CHECK(boot.dkms_ran);
  REQUIRE(boot.dkms.size() == 2);
  CHECK(boot.dkms[0].module == "amdgpu");
  CHECK(boot.dkms[0].version == "6.16.6-2255209.24.04");
  CHECK(boot.dkms[1].kernel == "6.17.0-8-generic");
  CHECK(boot.dkms[1].state == "installed");
  CHECK(boot.secure_boot.value == std::optional<std::string>("enabled"));
  REQUIRE(tools.size() == 2);
  CHECK(tools[0].program == "dkms");
  CHECK(tools[0].failure.empty());

  MemView none;
  none.command("mokutil-sb-state", "", 1, "EFI variables are not supported on this system\n");
  BootFacts b2;
  std::vector<ToolRun> t2;
  collect_boot(none, CollectOptions{}, b2, t2);
  CHECK_FALSE(b2.dkms_ran);
  CHECK(b2.secure_boot.value == std::optional<std::string>("no-efi"));
}

TEST_CASE(
    "collect: GPU-stack paths from the environment, profiles and ld.so.conf.d; CUDA and ROCm pointers") {
  MemView v;
  v.who.home = "/home/ada";
  v.env["PATH"] = "/home/ada/.local/bin:/usr/local/cuda/bin:/usr/bin:/opt/rocm-6.2.0/bin";
  v.env["CUDA_HOME"] = "/usr/local/cuda-11.8";
  v.env["ROCM_PATH"] = "/opt/rocm-6.2.0";
  v.files["/home/ada/.bashrc"] = "# ~/.bashrc\n"
                                 "export CUDA_HOME=/usr/local/cuda-11.8\n"
                                 "export PATH=$CUDA_HOME/bin:$PATH\n"
                                 "export LD_LIBRARY_PATH=/opt/rocm-5.7.1/lib:${LD_LIBRARY_PATH}\n"
                                 "export PATH=\"$HOME/.cargo/bin:$PATH\"\n";
  v.files["/etc/ld.so.conf.d/rocm.conf"] = "/opt/rocm/lib\n/opt/rocm/lib64\n";
  v.files["/etc/ld.so.conf.d/x86_64-linux-gnu.conf"] = "/usr/local/lib/x86_64-linux-gnu\n";
  v.links["/usr/local/cuda"] = "/etc/alternatives/cuda";
  v.links["/etc/alternatives/cuda"] = "/usr/local/cuda-12.4";
  v.files["/usr/local/cuda-12.4/version.json"] = R"({"cuda": {"name": "CUDA SDK", "version": "12.4.131"}})";
  v.dirs.insert("/usr/local/cuda-12.4/bin");
  v.links["/opt/rocm"] = "/opt/rocm-6.2.0";
  v.files["/opt/rocm-6.2.0/.info/version"] = "6.2.0-66\n";
  v.dirs.insert("/opt/rocm-6.2.0/bin");
  v.dirs.insert("/opt/rocm-6.2.0/lib");
  EnvFacts env;
  env.all = v.env;
  env.path_entries = text::split(v.env["PATH"], ':');
  ToolkitFacts tk;
  tk.cuda_default_link = {"/usr/local/cuda-12.4", "/usr/local/cuda -> /usr/local/cuda-12.4"};
  tk.cuda.push_back({"/usr/local/cuda-12.4", {"12.4.131", "/usr/local/cuda-12.4/version.json"}});
  tk.nvcc_path = {"/usr/local/cuda/bin/nvcc", "PATH"};
  tk.rocm_default_link = {"/opt/rocm-6.2.0", "/opt/rocm -> /opt/rocm-6.2.0"};
  tk.rocm.push_back({"/opt/rocm-6.2.0", {"6.2.0", "/opt/rocm-6.2.0/.info/version"}, false});
  PathFacts out;
  collect_stack_paths(v, env, tk, out);

  auto find = [&](const std::string& origin, const std::string& entry) -> const PathSetting* {
    for (const auto& s : out.settings)
      if (s.origin == origin && s.entry == entry) return &s;
    return nullptr;
  };
  const PathSetting* cuda_bin = find("env PATH", "/usr/local/cuda/bin");
  REQUIRE(cuda_bin);
  CHECK(cuda_bin->stack == Vendor::nvidia);
  CHECK(cuda_bin->exists == std::optional<bool>(true));
  CHECK(find("env PATH", "/home/ada/.local/bin") == nullptr); // not a GPU stack: never looked at
  const PathSetting* home = find("env CUDA_HOME", "/usr/local/cuda-11.8");
  REQUIRE(home);
  CHECK(home->exists == std::optional<bool>(false));
  const PathSetting* expanded = find("/home/ada/.bashrc:3", "$CUDA_HOME/bin");
  REQUIRE(expanded);
  CHECK(expanded->resolved == "/usr/local/cuda-11.8/bin");
  CHECK(expanded->exists == std::optional<bool>(false));
  const PathSetting* old_rocm = find("/home/ada/.bashrc:4", "/opt/rocm-5.7.1/lib");
  REQUIRE(old_rocm);
  CHECK(old_rocm->stack == Vendor::amd);
  CHECK(old_rocm->variable == "LD_LIBRARY_PATH");
  CHECK(find("/home/ada/.bashrc:5", "$HOME/.cargo/bin") == nullptr);
  const PathSetting* ld = find("/etc/ld.so.conf.d/rocm.conf:1", "/opt/rocm/lib");
  REQUIRE(ld);
  CHECK(ld->variable == "ld.so.conf");
  CHECK(ld->exists == std::optional<bool>(true));
  CHECK(std::find(out.files.begin(), out.files.end(), "/home/ada/.bashrc") != out.files.end());

  REQUIRE(out.cuda.size() == 3);
  CHECK(out.cuda[0].what == "nvcc on PATH");
  CHECK(out.cuda[0].resolved == "/usr/local/cuda-12.4");
  CHECK(out.cuda[0].version.value == std::optional<std::string>("12.4.131"));
  CHECK(out.cuda[1].what == "CUDA_HOME");
  CHECK_FALSE(out.cuda[1].exists);
  CHECK(out.cuda[2].what == "/usr/local/cuda");
  CHECK(out.cuda[2].resolved == "/usr/local/cuda-12.4");

  REQUIRE(out.rocm.size() == 3);
  CHECK(out.rocm[0].what == "/opt/rocm");
  CHECK(out.rocm[0].version.value == std::optional<std::string>("6.2.0"));
  CHECK(out.rocm[1].what == "ROCM_PATH");
  CHECK(out.rocm[2].what == "PATH entry");
  CHECK(out.rocm[2].path == "/opt/rocm-6.2.0");
}

TEST_CASE("collect: docker info runtimes, daemon.json and the container toolkit") {
  MemView v;
  v.env["PATH"] = "/usr/bin";
  v.files["/usr/bin/docker"] = "";
  v.files["/etc/nvidia-container-runtime/config.toml"] = "";
  v.files["/etc/docker/daemon.json"] = R"({"runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}})";
  v.files["/run/docker.sock"] = ""; // the daemon's socket: only then is docker info asked
  v.command("docker-info-json",
            R"({"ServerVersion": "27.3.1", "DefaultRuntime": "runc",)"
            R"( "Runtimes": {"io.containerd.runc.v2": {"path": "runc"}, "runc": {"path": "runc"}}})");
  ContainerFacts c;
  std::vector<ToolRun> tools;
  collect_containers(v, CollectOptions{}, PackageFacts{}, c, tools);
  CHECK(c.docker_installed);
  CHECK(c.docker_info_ok);
  CHECK(c.runtimes == std::vector<std::string>{"io.containerd.runc.v2", "runc"});
  CHECK(c.default_runtime == "runc");
  CHECK(c.daemon_json_runtimes == std::vector<std::string>{"nvidia"});
  CHECK(c.nvidia_toolkit_config);

  MemView denied;
  denied.env["PATH"] = "/usr/bin";
  denied.files["/usr/bin/docker"] = "";
  denied.env["XDG_RUNTIME_DIR"] = "/run/user/1000";
  denied.files["/run/user/1000/docker.sock"] = ""; // rootless Docker's socket
  denied.command(
      "docker-info-json",
      R"({"ServerErrors":["permission denied while trying to connect to the Docker daemon socket at )"
      R"(unix:///var/run/docker.sock"]})",
      1);
  ContainerFacts d;
  collect_containers(denied, CollectOptions{}, PackageFacts{}, d, tools);
  CHECK(d.docker_installed);
  CHECK_FALSE(d.docker_info_ok);
  CHECK(contains(d.docker_info_error, "permission denied"));

  // Docker installed, no daemon socket: docker info (100+ ms, 20+ MiB) is not run, and says why.
  MemView idle;
  idle.env["PATH"] = "/usr/bin";
  idle.files["/usr/bin/docker"] = "";
  idle.command("docker-info-json", R"({"ServerVersion": "27.3.1", "Runtimes": {"runc": {"path": "runc"}}})");
  ContainerFacts e;
  std::vector<ToolRun> none;
  collect_containers(idle, CollectOptions{}, PackageFacts{}, e, none);
  CHECK(e.docker_installed);
  CHECK_FALSE(e.docker_info_ok);
  CHECK(contains(e.docker_info_error, "not run: no Docker daemon socket"));
  CHECK(none.empty());
  idle.env["DOCKER_HOST"] = "tcp://10.0.0.5:2376";
  ContainerFacts remote;
  collect_containers(idle, CollectOptions{}, PackageFacts{}, remote, none);
  CHECK(remote.docker_info_ok);
}

TEST_CASE("collect: distributions of the site folders, from dist-info and egg-info names") {
  MemView v;
  const std::string site = "/home/ada/.local/lib/python3.12/site-packages";
  for (const char* name :
       {"nvidia_cublas_cu12-12.6.4.1.dist-info", "pytorch_triton_rocm-3.3.1+gitc8757738.dist-info",
        "flash_attn-2.6.3-py3.12.egg-info", "torch", "Markdown-3.7.dist-info"})
    v.dirs.insert(site + "/" + name);
  v.dirs.insert("/usr/lib/python3.12");
  PythonFacts py;
  PythonEnv env = make_python("PATH", "/usr/bin/python3");
  env.sys_path = {"/usr/lib/python3.12", site, site + "/"};
  py.envs.push_back(env);
  collect_python_distributions(v, py);
  const auto& d = py.envs[0].distributions;
  REQUIRE(d.size() == 4);
  CHECK(d[0].name == "markdown");
  CHECK(d[1].name == "flash-attn");
  CHECK(d[1].version == "2.6.3");
  CHECK(d[2].name == "nvidia-cublas-cu12");
  CHECK(d[2].version == "12.6.4.1");
  CHECK(d[3].name == "pytorch-triton-rocm");
  CHECK(d[3].folder == site);
}

TEST_CASE("collect: a cuda-X link to another /usr/local/cuda-X.Y is one toolkit, not two") {
  // As on an Ubuntu 24.04 image with NVIDIA's packages: update-alternatives names the toolkit twice.
  MemView v;
  v.links["/usr/local/cuda"] = "/etc/alternatives/cuda";
  v.links["/etc/alternatives/cuda"] = "/usr/local/cuda-13.0";
  v.links["/usr/local/cuda-13"] = "/etc/alternatives/cuda-13";
  v.links["/etc/alternatives/cuda-13"] = "/usr/local/cuda-13.0";
  v.files["/usr/local/cuda-13.0/version.json"] = R"({"cuda": {"name": "CUDA SDK", "version": "13.0.88"}})";
  v.dirs.insert("/usr/local/cuda-12.4/bin");                // a second, real toolkit stays listed
  v.links["/usr/local/cuda-12"] = "/opt/elsewhere/cuda-12"; // a link out of /usr/local is its own entry
  v.dirs.insert("/opt/elsewhere/cuda-12/bin");
  PackageFacts packages;
  ToolkitFacts tk;
  std::vector<ToolRun> tools;
  collect_toolkits(v, CollectOptions{}, packages, tk, tools);
  std::vector<std::string> dirs;
  for (const auto& c : tk.cuda)
    dirs.push_back(c.path);
  CHECK(dirs ==
        std::vector<std::string>{"/usr/local/cuda-12", "/usr/local/cuda-12.4", "/usr/local/cuda-13.0"});
  CHECK(tk.cuda_default_link.value == "/usr/local/cuda-13.0");
}

TEST_CASE("collect: distribution ROCm libraries and the packages outside ROCm that pulled them in") {
  MemView v;
  PackageFacts packages;
  packages.manager = "dpkg";
  packages.source = "/var/lib/dpkg/status";
  packages.installed = {{"libamdhip64-5", "5.7.1-3"}, {"libhsa-runtime64-1", "5.7.1-2build1"},
                        {"libucx0", "1.16.0+ds-5"},   {"librocblas0", "5.5.1"},
                        {"librocsolver0", "5.5.1"},   {"openmpi-bin", "4.1.6"},
                        {"libopenmpi3t64", "4.1.6"}};
  packages.depends = {{"libamdhip64-5", {"libhsa-runtime64-1", "libc6"}},
                      {"libucx0", {"libamdhip64-5", "libc6"}},
                      {"libopenmpi3t64", {"libucx0"}},
                      {"librocblas0", {"libamdhip64-5"}}, // ROCm's own: followed upwards
                      {"librocsolver0", {"librocblas0"}}, // still ROCm's own
                      {"openmpi-bin", {"libopenmpi3t64"}}};
  ToolkitFacts tk;
  std::vector<ToolRun> tools;
  collect_toolkits(v, CollectOptions{}, packages, tk, tools);
  REQUIRE(tk.rocm.size() == 1);
  CHECK(tk.rocm[0].path == "dpkg:libamdhip64-5");
  CHECK(tk.rocm[0].version.value == "5.7.1");
  CHECK(tk.rocm[0].required_by == std::vector<std::string>{"libucx0"});

  SUBCASE("with a ROCm tool installed, ROCm is there for itself") {
    packages.installed["rocminfo"] = "5.7.1-1";
    ToolkitFacts again;
    collect_toolkits(v, CollectOptions{}, packages, again, tools);
    REQUIRE(again.rocm.size() == 1);
    CHECK(again.rocm[0].required_by.empty());
  }
}

TEST_CASE("collect: a pyenv shim resolves without bash; an interpreter is never read as a script") {
  struct ReadLog : MemView {
    std::vector<std::string> read;
    std::optional<std::string> read_file(const std::string& path) override {
      read.push_back(path);
      return MemView::read_file(path);
    }
  } v;
  v.files["/root/.pyenv/shims/python3"] = "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n"
                                          "export PYENV_ROOT=\"/root/.pyenv\"\n"
                                          "exec \"/root/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n";
  v.files["/root/.pyenv/version"] = "3.11.7\n";
  v.files["/root/.pyenv/versions/3.11.7/bin/python3"] = "\x7f"
                                                        "ELF";
  auto shim = resolve_pyenv_shim(v, "/root/.pyenv/shims/python3", "python3");
  REQUIRE(shim);
  CHECK(shim->interpreter == "/root/.pyenv/versions/3.11.7/bin/python3");
  CHECK(shim->how == "/root/.pyenv/version");

  // A venv's python3 links to the interpreter (7.8 MB on an Ubuntu 24.04 image): a bundle must not carry it.
  v.read.clear();
  v.links["/opt/torch/.venv/bin/python3"] = "/usr/bin/python3.12";
  v.files["/usr/bin/python3.12"] = std::string(8192, 'x');
  CHECK_FALSE(resolve_pyenv_shim(v, "/opt/torch/.venv/bin/python3", "python3"));
  CHECK(v.read.empty());
}

TEST_CASE("collect: the nvcc on PATH gives its toolkit's exact version when the folder has no version file") {
  // The H200 image: /usr/local/cuda-13.0 holds no version.json; nvcc --version says 13.0.88.
  MemView v;
  v.env["PATH"] = "/usr/local/cuda/bin:/usr/bin";
  v.links["/usr/local/cuda"] = "/etc/alternatives/cuda";
  v.links["/etc/alternatives/cuda"] = "/usr/local/cuda-13.0";
  v.files["/usr/local/cuda-13.0/bin/nvcc"] = "";
  v.dirs.insert("/usr/local/cuda-12.4/bin"); // another toolkit, named by its folder only: left as it is
  v.command("nvcc-version", "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, "
                            "V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n");
  PackageFacts packages;
  ToolkitFacts tk;
  std::vector<ToolRun> tools;
  collect_toolkits(v, CollectOptions{}, packages, tk, tools);
  REQUIRE(tk.cuda.size() == 2);
  CHECK(tk.cuda[0].path == "/usr/local/cuda-12.4");
  CHECK(tk.cuda[0].version.value == "12.4");
  CHECK(tk.cuda[1].path == "/usr/local/cuda-13.0");
  CHECK(tk.cuda[1].version.value == "13.0.88");
  CHECK(tk.cuda[1].version.source == "cmd nvcc-version (/usr/local/cuda/bin/nvcc)");
}

namespace {

// Commands answered by program as well as by key: dmesg and the journal share the key "dmesg".
class LogView : public MemView {
public:
  std::map<std::string, CommandResult> by_program;
  std::vector<std::string> ran;
  std::mutex mutex; // the collector may run its commands in parallel, as collect_all does
  CommandResult run(const CommandSpec& spec) override {
    std::string program = spec.argv.empty() ? "" : spec.argv[0];
    std::lock_guard lock(mutex);
    ran.push_back(spec.key + " " + program);
    if (auto it = by_program.find(spec.key + " " + program); it != by_program.end()) {
      CommandResult r = it->second;
      r.argv = spec.argv;
      return r;
    }
    return MemView::run(spec);
  }
  void answer(const std::string& key, const std::string& program, const std::string& out, int exit_code = 0,
              const std::string& err = "") {
    by_program[key + " " + program] = answered(key, out, exit_code, err);
  }
};

} // namespace

TEST_CASE("collect: the kernel log from dmesg, this boot's and the previous boot's GPU events") {
  LogView v;
  v.files["/proc/sys/kernel/dmesg_restrict"] = "0\n";
  v.who.uid = 1000;
  v.answer("dmesg", "dmesg",
           "[    1.0] Linux version 6.8.0\n" + realdata("dmesg-nvrm-xid63-row-remap-1.txt"));
  v.answer("journal-kernel-previous", "journalctl",
           "2026-11-30T10:00:00+0000 node7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off "
           "the bus.\n");
  // A persistent journal keeps its files in a folder named by the machine id: it has the previous boot.
  v.dirs.insert("/var/log/journal/0b2c5a7e9f1d4c3ab8e6d5f4a3b2c1d0");
  KernelLogFacts log;
  std::vector<ToolRun> tools;
  collect_kernel_log(v, CollectOptions{}, log, tools);
  CHECK(log.read);
  CHECK(log.reader == "dmesg");
  CHECK(log.previous_read);
  CHECK(log.records == 2); // the pasted Xid line has no time: it counts as an event, not as a timed message
  REQUIRE(log.events.size() == 2);
  CHECK(log.events[0].code == 63);
  CHECK(log.events[0].boot == 0);
  CHECK(log.events[1].code == 79);
  CHECK(log.events[1].boot == -1);
  auto ran = v.ran; // both boots are read at the same time
  std::sort(ran.begin(), ran.end());
  CHECK(ran == std::vector<std::string>{"dmesg dmesg", "journal-kernel-previous journalctl"});

  // Without a persistent journal the previous boot is not asked for; an empty /var/log/journal (a container
  // image's, journald keeping its files under /run) is none.
  for (bool empty_folder : {false, true}) {
    CAPTURE(empty_folder);
    v.dirs.clear();
    if (empty_folder) v.dirs.insert("/var/log/journal");
    v.ran.clear();
    KernelLogFacts volatile_only;
    collect_kernel_log(v, CollectOptions{}, volatile_only, tools);
    CHECK_FALSE(volatile_only.previous_read);
    CHECK(v.ran == std::vector<std::string>{"dmesg dmesg"});
  }
}

TEST_CASE("collect: the kernel log falls back to the journal, and says why neither answered") {
  SUBCASE("dmesg_restrict=1 for a user: dmesg is not run, the journal answers") {
    LogView v;
    v.files["/proc/sys/kernel/dmesg_restrict"] = "1\n";
    v.who.uid = 1000;
    v.answer("dmesg", "journalctl", "2026-12-01T10:00:00+0000 node7 kernel: Linux version 6.8.0\n");
    KernelLogFacts log;
    std::vector<ToolRun> tools;
    collect_kernel_log(v, CollectOptions{}, log, tools);
    CHECK(log.read);
    CHECK(log.reader == "journalctl");
    CHECK(v.ran.front() == "dmesg journalctl");
  }
  SUBCASE("a user outside adm: neither, and the reason names both") {
    LogView v;
    v.files["/proc/sys/kernel/dmesg_restrict"] = "1\n";
    v.who.uid = 1000;
    v.answer("dmesg", "journalctl",
             "Hint: You are currently not seeing messages from other users and the system.\n"
             "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
             "      Pass -q to turn off this notice.\n-- No entries --\n");
    KernelLogFacts log;
    std::vector<ToolRun> tools;
    collect_kernel_log(v, CollectOptions{}, log, tools);
    CHECK_FALSE(log.read);
    CHECK(text::contains(log.why_not, "kernel.dmesg_restrict = 1"));
    CHECK(text::contains(log.why_not, "only members of adm or systemd-journal"));
  }
  SUBCASE("a container: dmesg refused, no journal files") {
    LogView v;
    v.answer("dmesg", "dmesg", "", 1, "dmesg: read kernel buffer failed: Operation not permitted\n");
    v.answer("dmesg", "journalctl", "No journal files were found.\n-- No entries --\n");
    KernelLogFacts log;
    std::vector<ToolRun> tools;
    collect_kernel_log(v, CollectOptions{}, log, tools);
    CHECK_FALSE(log.read);
    CHECK(log.why_not == "dmesg: read kernel buffer failed: Operation not permitted; journalctl: No "
                         "journal files were found.");
    CHECK(std::none_of(tools.begin(), tools.end(), [](const ToolRun& t) { return !t.failure.empty(); }));
  }
}

TEST_CASE("collect: upstream ports and amdgpu RAS counters of a GPU, the amdgpu firmware folder on demand") {
  MemView v;
  v.links["/sys/bus/pci/devices/0000:03:00.0"] =
      "../../../devices/pci0000:00/0000:00:01.1/0000:02:00.0/0000:03:00.0";
  v.files["/sys/bus/pci/devices/0000:03:00.0/ras/umc_err_count"] = "ue: 2\nce: 7\n";
  v.files["/sys/bus/pci/devices/0000:03:00.0/ras/gfx_err_count"] = "ue: 0\nce: 0\n";
  v.files["/sys/bus/pci/devices/0000:03:00.0/ras/features"] = "feature mask: 0x3fff\n";
  std::vector<Gpu> gpus = {make_amd_gpu()};
  gpus[0].bdf = "0000:03:00.0";
  collect_gpu_health(v, gpus);
  CHECK(gpus[0].upstream_ports == std::vector<std::string>{"0000:00:01.1", "0000:02:00.0"});
  REQUIRE(gpus[0].ras.size() == 2);
  CHECK(gpus[0].ras[1].block == "umc");
  CHECK(gpus[0].ras[1].ue == 2);
  CHECK(gpus[0].ras[1].ce == 7);
  CHECK(gpus[0].sensors.source.empty()); // no hwmon folder: no reading

  // amdgpu's hwmon sensors (Documentation/gpu/amdgpu/thermal.rst), in their units, and how busy it is.
  std::string hwmon = "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon4/";
  v.files[hwmon + "temp1_input"] = "45000\n";
  v.files[hwmon + "power1_input"] = "112000000\n"; // gfx11: no power1_average
  v.files[hwmon + "power1_cap"] = "garbage\n";
  v.files["/sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent"] = "37\n";
  gpus[0].ras.clear();
  collect_gpu_health(v, gpus);
  CHECK(gpus[0].sensors.source == "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon4");
  CHECK(gpus[0].sensors.temperature_celsius == doctest::Approx(45));
  CHECK(gpus[0].sensors.power_draw_watts == doctest::Approx(112));
  CHECK_FALSE(gpus[0].sensors.power_limit_watts);
  CHECK(gpus[0].sensors.busy_percent == 37);

  v.files["/lib/firmware/amdgpu/gc_11_0_0_me.bin.zst"] = "";
  FirmwareListing none, listed;
  KernelLogFacts log;
  collect_firmware_listing(v, log, none);
  CHECK_FALSE(none.listed); // no firmware failure in the log: the folder is not read
  log.events.push_back(
      {KernelEventKind::firmware_missing, {}, "0000:03:00.0", "", "amdgpu/gc_12_0_1_pfp.bin"});
  collect_firmware_listing(v, log, listed);
  CHECK(listed.listed);
  CHECK(listed.files == std::vector<std::string>{"gc_11_0_0_me.bin.zst"});
}

TEST_CASE("collect: modinfo nvidia only with an NVIDIA GPU and no module loaded; the fabric only on NVSwitch "
          "systems") {
  MemView v;
  v.command("modinfo-nvidia",
            "filename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko.zst\n"
            "version:        570.86.15\nlicense:        NVIDIA\nsigner:         DKMS module signing key\n");
  NvidiaFacts nv;
  std::vector<ToolRun> tools;
  collect_nvidia_modinfo(v, CollectOptions{}, {make_amd_gpu()}, nv, tools);
  CHECK_FALSE(nv.modinfo_license); // no NVIDIA GPU: not asked
  collect_nvidia_modinfo(v, CollectOptions{}, {make_nvidia_gpu()}, nv, tools);
  CHECK(nv.modinfo_license.value == std::optional<std::string>("NVIDIA"));
  CHECK(nv.modinfo_filename.value ==
        std::optional<std::string>("/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko.zst"));
  CHECK(nv.modinfo_signer.value == std::optional<std::string>("DKMS module signing key"));

  // An HGX H100: an NVSwitch function, the Fabric Manager package, its service.
  const std::string sw = "/sys/bus/pci/devices/0000:07:00.0";
  v.files[sw + "/class"] = "0x068000\n";
  v.files[sw + "/vendor"] = "0x10de\n";
  v.files[sw + "/device"] = "0x22a3\n";
  v.command("systemctl-fabricmanager", "inactive\n", 3);
  PackageFacts packages;
  packages.source = "/var/lib/dpkg/status";
  packages.installed["nvidia-fabricmanager-550"] = "550.90.07-1";
  FabricFacts fab;
  std::vector<ToolRun> t2;
  collect_fabric(v, kb(), CollectOptions{}, packages, NvidiaFacts{}, fab, t2);
  REQUIRE(fab.nvswitches.size() == 1);
  CHECK(fab.nvswitches[0].generation == 3);
  CHECK(fab.manager_version.value == std::optional<std::string>("550.90.07"));
  CHECK(fab.service_state.value == std::optional<std::string>("inactive"));

  MemView plain; // no NVSwitch and no fabric state: systemctl is not asked
  FabricFacts none;
  collect_fabric(plain, kb(), CollectOptions{}, packages, NvidiaFacts{}, none, t2);
  CHECK_FALSE(none.service_checked);
  CHECK_FALSE(none.manager_package);
}
