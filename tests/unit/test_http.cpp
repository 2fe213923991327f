// util/http against a local HTTPS server on 127.0.0.1 with a certificate made here (openssl + python3's
// http.server): trusted and untrusted certificates, a refused port, a server that never answers, proxy and
// no_proxy from the environment. Nothing outside this machine is contacted.
#include "collect/collectors.hpp"
#include "unit/testutil.hpp"
#include "util/http.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <optional>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <doctest/doctest.h>

extern char** environ;

namespace fs = std::filesystem;
using namespace gpudoctor;

namespace {

constexpr const char* k_server = R"(import http.server, os, ssl, sys
d = sys.argv[1]
class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, body):
        code = 200 if self.path in ('/', '/dists/noble/InRelease', '/big') else 404
        self.send_response(code)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        return code
    def do_HEAD(self):
        self.answer(b'')
    def do_GET(self):
        body = b'x' * 200000 if self.path == '/big' else b'ok'
        self.answer(body)
        self.wfile.write(body)
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        self.send_response(201)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that refuses the certificate is part of the test
server = Server(('127.0.0.1', 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(d, 'cert.pem'), os.path.join(d, 'key.pem'))
if sys.argv[2] == 'tls':
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(os.path.join(d, 'port.tmp'), 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(d, 'port.tmp'), os.path.join(d, 'port'))
server.serve_forever()
)";

bool have(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

// Environment variables set for one test and restored after it.
class EnvScope {
public:
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
  ~EnvScope() {
    for (const auto& [name, value] : saved_)
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }

private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// A port nothing listens on: bound, then closed.
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A port that accepts connections (the kernel's backlog) and never says a word.
class SilentPort {
public:
  SilentPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 8);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~SilentPort() { ::close(fd_); }
  int port = 0;

private:
  int fd_ = -1;
};

class LocalHttps {
public:
  explicit LocalHttps(bool tls = true) {
    std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                      "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
                      (dir_ / "key.pem").string() + "' -out '" + (dir_ / "cert.pem").string() +
                      "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) return;
    std::ofstream(dir_ / "server.py") << k_server;
    std::string script = (dir_ / "server.py").string(), folder = dir_.path().string(),
                mode = tls ? "tls" : "plain";
    char* argv[] = {const_cast<char*>("python3"), script.data(), folder.data(), mode.data(), nullptr};
    scheme_ = tls ? "https" : "http";
    if (::posix_spawnp(&pid_, "python3", nullptr, nullptr, argv, environ) != 0) {
      pid_ = -1;
      return;
    }
    for (int i = 0; i < 200 && !fs::exists(dir_ / "port"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(dir_ / "port");
    in >> port;
  }
  ~LocalHttps() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  bool ready() const { return port > 0; }
  std::string url(const std::string& path) const {
    return scheme_ + "://127.0.0.1:" + std::to_string(port) + path;
  }
  std::string ca() const { return (dir_ / "cert.pem").string(); }
  int port = 0;

private:
  test::TempDir dir_{"gpudoctor-http"};
  std::string scheme_;
  pid_t pid_ = -1;
};

HttpRequest request(const std::string& url, const std::string& ca,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  HttpRequest r;
  r.url = url;
  r.ca_file = ca;
  r.timeout = timeout;
  return r;
}

} // namespace

TEST_CASE("http: a local HTTPS server, TLS failures, refused and silent ports, proxies") {
  if (!have("openssl") || !have("python3")) {
    MESSAGE("openssl or python3 missing: the local HTTPS server cannot run, test skipped");
    return;
  }
  EnvScope env;
  for (const char* var : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"})
    env.set(var, std::nullopt);
  env.set("no_proxy", std::nullopt);
  env.set("NO_PROXY", std::nullopt);
  LocalHttps server;
  REQUIRE_MESSAGE(server.ready(), "the local HTTPS server did not start");

  SUBCASE("HEAD with the test CA: 200, and 404 for a missing file") {
    auto ok = http_request(request(server.url("/dists/noble/InRelease"), server.ca()));
    CHECK(ok.completed);
    CHECK(ok.status == 200);
    CHECK(ok.error.empty());
    auto missing = http_request(request(server.url("/dists/jammy/InRelease"), server.ca()));
    CHECK(missing.completed);
    CHECK(missing.status == 404);
  }
  SUBCASE("GET keeps at most max_body_bytes; POST sends its body") {
    HttpRequest get = request(server.url("/big"), server.ca());
    get.method = "GET";
    get.max_body_bytes = 1000;
    auto big = http_request(get);
    CHECK(big.completed);
    CHECK(big.status == 200);
    CHECK(big.body.size() == 1000);
    CHECK(big.body_truncated);
    HttpRequest post = request(server.url("/upload"), server.ca());
    post.method = "POST";
    post.body = "bundle bytes";
    post.headers = {"Content-Type: application/octet-stream"};
    auto sent = http_request(post);
    CHECK(sent.status == 201);
    CHECK(sent.body == "bundle bytes");
  }
  SUBCASE("without the test CA the certificate is refused") {
    auto r = http_request(request(server.url("/"), ""));
    CHECK_FALSE(r.completed);
    CHECK(r.error_kind == "tls");
    CHECK_FALSE(r.error.empty());
  }
  SUBCASE("a refused port") {
    auto r = http_request(request("https://127.0.0.1:" + std::to_string(free_port()) + "/", server.ca()));
    CHECK_FALSE(r.completed);
    CHECK(r.error_kind == "connect");
  }
  SUBCASE("a server that never answers hits the time limit") {
    SilentPort silent;
    auto start = std::chrono::steady_clock::now();
    auto r = http_request(request("https://127.0.0.1:" + std::to_string(silent.port) + "/", server.ca(),
                                  std::chrono::milliseconds(700)));
    auto took = std::chrono::steady_clock::now() - start;
    CHECK_FALSE(r.completed);
    CHECK(r.error_kind == "timeout");
    CHECK(took < std::chrono::seconds(5));
  }
  SUBCASE("https_proxy is used, and no_proxy bypasses it") {
    env.set("https_proxy", "http://127.0.0.1:" + std::to_string(free_port()));
    auto through = http_request(request(server.url("/"), server.ca()));
    CHECK_FALSE(through.completed);
    env.set("no_proxy", "127.0.0.1");
    auto direct = http_request(request(server.url("/"), server.ca()));
    CHECK(direct.completed);
    CHECK(direct.status == 200);
  }
  SUBCASE("only http and https") {
    auto r = http_request(request("file:///etc/passwd", ""));
    CHECK_FALSE(r.completed);
  }
}

TEST_CASE("http: --online fetches what apt and pip would fetch first") {
  if (!have("openssl") || !have("python3")) {
    MESSAGE("openssl or python3 missing: the local server cannot run, test skipped");
    return;
  }
  EnvScope env;
  for (const char* var : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"})
    env.set(var, std::nullopt);
  LocalHttps server(false);
  REQUIRE_MESSAGE(server.ready(), "the local HTTP server did not start");
  RepoFacts repos;
  auto source = [&](const std::string& kind, const std::string& suite, const std::string& origin) {
    RepoSource s;
    s.vendor = kind == "pip" ? "pytorch" : "amd";
    s.kind = kind;
    s.uri = server.url("/");
    s.suite = suite;
    s.origin = origin;
    return s;
  };
  repos.sources = {source("apt", "noble", "/etc/apt/sources.list.d/rocm.list:1"),
                   source("apt", "jammy", "/etc/apt/sources.list.d/amdgpu.list:1"),
                   source("pip", "", "/etc/pip.conf:2")};
  repos.sources.push_back(repos.sources[1]);
  repos.sources.back().enabled = false;
  CollectOptions opt;
  opt.http_timeout = std::chrono::milliseconds(3000);
  OsFacts os;
  probe_repos(opt, os, repos);
  CHECK(repos.online);
  REQUIRE(repos.probes.size() == 3);
  CHECK(repos.probes[0].url == server.url("/dists/noble/InRelease"));
  CHECK(repos.probes[0].reached);
  CHECK(repos.probes[0].http_status == 200L);
  CHECK(repos.probes[1].url == server.url("/dists/jammy/InRelease"));
  CHECK_FALSE(repos.probes[1].reached);
  CHECK(repos.probes[1].http_status == 404L);
  CHECK(repos.probes[2].url == server.url("/torch/"));
  CHECK(repos.probes[2].origin == "/etc/pip.conf:2");
}
