#include "util/process.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <thread>
#include <utility> // before Boost 1.74 asio, which forgets it under C++20+

#include <boost/asio.hpp>
#include <boost/process.hpp>

namespace gpudoctor {

namespace bp = boost::process;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Reads one pipe to EOF, keeping at most `cap` bytes.
class CappedReader {
public:
  CappedReader(bp::async_pipe& pipe, std::string& sink, std::size_t cap, bool& truncated)
      : m_pipe(pipe), m_sink(sink), m_cap(cap), m_truncated(truncated) {}
  void start() {
    m_pipe.async_read_some(asio::buffer(m_chunk), [this](const boost::system::error_code& ec, std::size_t n) {
      if (n > 0) {
        std::size_t room = m_sink.size() < m_cap ? m_cap - m_sink.size() : 0;
        if (n > room) m_truncated = true;
        m_sink.append(m_chunk.data(), std::min(n, room));
      }
      if (!ec) start();
    });
  }

private:
  bp::async_pipe& m_pipe;
  std::string& m_sink;
  std::size_t m_cap;
  bool& m_truncated;
  std::array<char, 16384> m_chunk{};
};

} // namespace

std::string find_program(const std::string& name, const std::string& path_var) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : std::string{};
  std::size_t start = 0;
  while (start <= path_var.size()) {
    auto end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

CommandResult run_process(const CommandSpec& spec, const std::map<std::string, std::string>& env,
                          const ProcessLimits& limits) {
  CommandResult result;
  result.key = spec.key;
  result.argv = spec.argv;
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }
  auto path_it = env.find("PATH");
  std::string exe = find_program(spec.argv[0], path_it == env.end() ? "" : path_it->second);
  if (exe.empty()) {
    result.found = false;
    result.exit_code = 127;
    return result;
  }
  result.found = true;

  bp::environment child_env;
  for (const auto& [name, value] : env) child_env[name] = value;
  for (const auto& [name, value] : spec.extra_env) child_env[name] = value;

  auto started = Clock::now();
  auto deadline = started + spec.timeout;
  try {
    asio::io_context io;
    bp::async_pipe out_pipe(io), err_pipe(io);
    bp::group group;
    std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
    bp::child child(exe, bp::args(args), bp::std_in < bp::null, bp::std_out > out_pipe, bp::std_err > err_pipe,
                    bp::env(child_env), group, io);
    CappedReader out_reader(out_pipe, result.out, limits.max_output_bytes, result.truncated);
    CappedReader err_reader(err_pipe, result.err, limits.max_output_bytes, result.truncated);
    out_reader.start();
    err_reader.start();
    // Returns early once both pipes reach EOF; the child may still be running after that.
    io.run_until(deadline);
    bool pipes_open = !io.stopped();
    while (!pipes_open && child.running() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (child.running() || pipes_open) {
      std::error_code ignored;
      group.terminate(ignored); // SIGKILL to the whole process group: grandchildren too
      if (child.running(ignored)) child.wait(ignored);
      io.restart();
      io.poll(); // collect what was buffered before the kill
      result.timed_out = true;
    } else {
      int status = child.native_exit_code();
      if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    }
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  return result;
}

} // namespace gpudoctor
