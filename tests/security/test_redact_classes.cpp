// Redaction holds for the classes people write (issue 9, item 4): each case records a snapshot the way a
// bundle would, redacts it, and searches every byte left (names, links, contents) for the secrets, while
// what the checks read stays.
#include "bundle/redact.hpp"
#include "security/redact_fixture.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::SnapshotDir;

namespace {

// Secret-shaped text built at run time (no real-looking token sits in the source): `n` characters of
// mixed case and digits.
std::string mixed(std::size_t n, unsigned seed = 1) {
  static const char* alphabet = "aB3dE5gH7jK9mN2pQ4sT6vW8yZ";
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += alphabet[(i * 7 + seed * 11) % 26];
  return out;
}

void require_absent(const SnapshotDir& snap, const std::string& secret) {
  auto hits = snap.find(secret);
  CHECK_MESSAGE(hits.empty(),
                "'" << secret << "' is still in the snapshot: " << (hits.empty() ? "" : hits[0]));
}

bool logged(const RedactionLog& log, const std::string& entry) {
  return std::find(log.redacted.begin(), log.redacted.end(), entry) != log.redacted.end();
}

} // namespace

TEST_SUITE("security") {

  TEST_CASE("redaction: shell profiles are redacted wherever the home is") {
    SnapshotDir snap;
    snap.identity("svc", "/srv/users/svc", "node1");
    snap.write("fs/srv/users/svc/.bashrc", "export GITHUB_TOKEN=canary-srv-home\n");
    snap.write("fs/var/lib/jenkins/.profile", "export API_TOKEN=canary-var-lib\n");
    snap.write("fs/root/.bashrc", "export HF_TOKEN=canary-root-home\n");
    snap.write("fs/opt/home/ada/.zshenv", "export DB_PASSWORD=canary-zshenv\n");
    RedactionLog log = redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-srv-home", "canary-var-lib", "canary-root-home", "canary-zshenv"})
      require_absent(snap, secret);
    CHECK(snap.read("fs/srv/users/svc/.bashrc") == "export GITHUB_TOKEN=<redacted>\n");
    CHECK(logged(log, "file:/srv/users/svc/.bashrc"));
    CHECK(logged(log, "file:/var/lib/jenkins/.profile"));
  }

  TEST_CASE("redaction: a symlinked dotfile (stow) is redacted under its name and its target") {
    SnapshotDir snap;
    snap.identity("ada", "/home/ada", "node1");
    snap.link("fs/home/ada/.bashrc", "dotfiles/bash/bashrc");
    snap.write("fs/home/ada/dotfiles/bash/bashrc",
               "export HF_TOKEN=canary-stow\nexport PATH=/opt/rocm/bin:$PATH\n");
    snap.link("fs/home/ada/.zshrc", "/mnt/team/dotfiles/zshrc");
    snap.write("fs/mnt/team/dotfiles/zshrc", "export WANDB_API_KEY=canary-absolute\n");
    RedactionLog log = redact_snapshot(snap.dir(), false);
    require_absent(snap, "canary-stow");
    require_absent(snap, "canary-absolute");
    CHECK(snap.read("fs/home/ada/.bashrc") ==
          "export HF_TOKEN=<redacted>\nexport PATH=/opt/rocm/bin:$PATH\n");
    CHECK(logged(log, "file:/home/ada/.bashrc"));
    CHECK(logged(log, "file:/home/ada/dotfiles/bash/bashrc"));
    CHECK(logged(log, "file:/home/ada/.zshrc"));
  }

  TEST_CASE("redaction: every assignment on a line, in every shell's syntax") {
    SnapshotDir snap;
    snap.identity("ada", "/home/ada", "node1");
    snap.write("fs/home/ada/.bashrc", "export X=1; export GITHUB_TOKEN=canary-second\n"
                                      "export \"API_TOKEN=canary-dquoted\"\n"
                                      "export 'DB_PASSWORD=canary-squoted'\n"
                                      "declare -x MY_SECRET=canary-declare\n"
                                      "typeset -x SOME_TOKEN=canary-typeset\n"
                                      "OPENAI_API_KEY=canary-prefix python train.py\n"
                                      "X=2 && WANDB_API_KEY=\"canary with space\" wandb login\n"
                                      "# export OLD_TOKEN=canary-comment\n");
    snap.write("fs/home/ada/.cshrc",
               "setenv AWS_SECRET_ACCESS_KEY canary-setenv\nset HF_TOKEN = canary-cshset\n");
    snap.write("fs/home/ada/.config/fish/config.fish",
               "set -gx HF_TOKEN canary-fish\nset -x PATH /opt/rocm/bin $PATH\n");
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-second", "canary-dquoted", "canary-squoted", "canary-declare",
                               "canary-typeset", "canary-prefix", "canary with space", "canary-comment",
                               "canary-setenv", "canary-cshset", "canary-fish"})
      require_absent(snap, secret);
    std::string bashrc = snap.read("fs/home/ada/.bashrc");
    CHECK(bashrc.find("export X=1; export GITHUB_TOKEN=") == 0);
    CHECK(bashrc.find(" python train.py\n") != std::string::npos);
    CHECK(bashrc.find(" wandb login\n") != std::string::npos);
    CHECK(snap.read("fs/home/ada/.config/fish/config.fish").find("set -x PATH /opt/rocm/bin $PATH") !=
          std::string::npos);
  }

  TEST_CASE("redaction: credentials in URLs, also with '/' and '@' in the password") {
    SnapshotDir snap;
    snap.env({{"HTTPS_PROXY", "https://bob:p@ss/w0rd-canary@proxy.corp:3128/"},
              {"NPM_REGISTRY", "https://registry.npmjs.org/@types/node"},
              {"MIRROR", "https://mirror.corp:8443/a@b"}});
    snap.write("fs/etc/pip.conf", "[global]\nindex-url = https://bob:se/cr@t-canary@pypi.corp/simple\n");
    redact_snapshot(snap.dir(), false);
    require_absent(snap, "w0rd-canary");
    require_absent(snap, "t-canary");
    Json env = snap.json("env.json");
    CHECK(env["HTTPS_PROXY"] == "https://<redacted>@proxy.corp:3128/");
    CHECK(env["NPM_REGISTRY"] == "https://registry.npmjs.org/@types/node"); // an '@' in a path is no password
    CHECK(env["MIRROR"] == "https://mirror.corp:8443/a@b");                 // nor after a port
    CHECK(snap.read("fs/etc/pip.conf") == "[global]\nindex-url = https://<redacted>@pypi.corp/simple\n");
  }

  TEST_CASE("redaction: -u user:pw, --user and --password in profiles and recorded commands") {
    SnapshotDir snap;
    snap.identity("ada", "/home/ada", "node1");
    snap.write("fs/home/ada/.bash_aliases", "alias up='curl -u bob:canary-dash-u https://x.corp/'\n"
                                            "alias up2='curl --user bob:canary-user https://x.corp/'\n"
                                            "alias db='mysql --password=canary-eq'\n"
                                            "alias db2='psql --password canary-space'\n");
    snap.write("commands.json",
               dump_json(Json::array({{{"key", "x"},
                                       {"argv", {"curl", "-u", "bob:canary-argv", "https://x/"}},
                                       {"found", true},
                                       {"exit", 0}}})));
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-dash-u", "canary-user", "canary-eq", "canary-space", "canary-argv"})
      require_absent(snap, secret);
    CHECK(snap.read("fs/home/ada/.bash_aliases").find("curl -u bob:<redacted> https://x.corp/") !=
          std::string::npos);
    CHECK(snap.json("commands.json")[0]["argv"][2] == "bob:<redacted>");
  }

  TEST_CASE("redaction: token, key and signature query parameters") {
    SnapshotDir snap;
    snap.env({{"MODEL_URL",
               "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIDcanary1&X-Amz-Signature=canary2&x=1"},
              {"FEED", "https://feeds.corp/x?token=canary3&page=2"},
              {"MAPS", "https://maps.corp/api?v=3&key=canary4"},
              {"BLOB", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=canary5%3D"},
              {"CALLBACK", "https://app.corp/cb#access_token=canary6&state=ok"}});
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"AKIDcanary1", "canary2", "canary3", "canary4", "canary5", "canary6"})
      require_absent(snap, secret);
    Json env = snap.json("env.json");
    CHECK(env["FEED"] == "https://feeds.corp/x?token=<redacted>&page=2");
    CHECK(env["MAPS"] == "https://maps.corp/api?v=3&key=<redacted>");
  }

  TEST_CASE("redaction: secret-named keys in daemon.json and in any recorded JSON file") {
    SnapshotDir snap;
    snap.write("fs/etc/docker/daemon.json",
               R"({"runtimes": {"nvidia": {"path": "nvidia-container-runtime"}},
                 "proxies": {"http-proxy": "http://u:canary-proxy@proxy.corp:3128"},
                 "registry-password": "canary-registry", "auths": {"r.corp": {"auth": "canary-auth"}}})");
    snap.write("fs/opt/app/settings.json", R"({"service": {"client_secret": "canary-json", "port": 8080}})");
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-proxy", "canary-registry", "canary-auth", "canary-json"})
      require_absent(snap, secret);
    Json daemon = snap.json("fs/etc/docker/daemon.json");
    CHECK(daemon["runtimes"]["nvidia"]["path"] == "nvidia-container-runtime"); // what the check reads
    CHECK(snap.json("fs/opt/app/settings.json")["service"]["port"] == 8080);
  }

  TEST_CASE("redaction: environment names with secret-like parts") {
    for (const char* name :
         {"DB_PWD", "SMTP_PASS", "GITLAB_PAT", "SESSION_JWT", "X_AUTH_HEADER", "AWS_ACCESS_KEY_ID",
          "SENTRY_DSN", "SLACK_WEBHOOK_URL", "PROXY_AUTH", "AZURE_STORAGE_CONNECTION_STRING"})
      CHECK_MESSAGE(is_secret_name(name), name);
    // Places and shell state, not secrets.
    for (const char* name :
         {"SSH_AUTH_SOCK", "PWD", "OLDPWD", "XAUTHORITY", "PASSWORD_FILE", "PATH", "HF_HOME"})
      CHECK_MESSAGE(!is_secret_name(name), name);
    SnapshotDir snap;
    snap.env({{"DB_PWD", "canary-pwd"},
              {"GITLAB_PAT", "canary-pat"},
              {"SENTRY_DSN", "canary-dsn"},
              {"PWD", "/work"}});
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-pwd", "canary-pat", "canary-dsn"})
      require_absent(snap, secret);
    CHECK(snap.json("env.json")["PWD"] == "/work");
  }

  TEST_CASE("redaction: AccountKey=, SharedAccessKey= and Password= in connection strings") {
    SnapshotDir snap;
    snap.env(
        {{"STORAGE",
          "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=canary-ak==;EndpointSuffix=core"},
         {"BUS", "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=n;SharedAccessKey=canary-sak"},
         {"SQL", "Server=db.corp;User Id=app;Password=canary-sql;Encrypt=true"},
         {"SAS", "BlobEndpoint=https://a.blob;SharedAccessSignature=sv=2022&sig=canary-sas"}});
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-ak", "canary-sak", "canary-sql", "canary-sas"})
      require_absent(snap, secret);
    CHECK(snap.json("env.json")["SQL"] == "Server=db.corp;User Id=app;Password=<redacted>;Encrypt=true");
  }

  TEST_CASE("redaction: Authorization and Bearer values") {
    SnapshotDir snap;
    snap.identity("ada", "/home/ada", "node1");
    snap.env({{"EXTRA_HEADER", "Authorization: Bearer canary-bearer-1"}, {"HDR", "bearer canary-bearer-2"}});
    snap.write("fs/home/ada/.bashrc",
               "alias api='curl -H \"Authorization: Basic canary-basic\" https://x'\n");
    redact_snapshot(snap.dir(), false);
    for (const char* secret : {"canary-bearer-1", "canary-bearer-2", "canary-basic"})
      require_absent(snap, secret);
  }

  TEST_CASE("redaction: secrets under innocent names are found by their shape") {
    const std::string github = "ghp_" + mixed(36),
                      github_pat = "github_pat_" + mixed(22, 2) + "_" + mixed(59, 3),
                      hf = "hf_" + mixed(34, 4), openai = "sk-proj-" + mixed(48, 5),
                      anthropic = "sk-ant-api03-" + mixed(40, 6),
                      aws_id = "AKIA" + std::string("IOSFODNN7EXAMPLE"),
                      aws_secret = mixed(20, 7) + "/" + mixed(19, 8),
                      slack = "xoxb-1234567890-" + mixed(24, 9),
                      jwt = "eyJhbGciOiJIUzI1NiJ9." + std::string("eyJzdWIiOiIxMjM0In0.") + mixed(43, 10),
                      key_body = mixed(64, 11);
    SnapshotDir snap;
    snap.env(
        {{"MY_VAR", github}, {"SETTING", "x=" + hf}, {"FOO", openai}, {"BAR", anthropic}, {"NOTE", slack}});
    snap.write("fs/home/ada/.bashrc",
               "export GH=" + github_pat + "\nexport ID=" + aws_id + "\nexport S=" + aws_secret + "\n");
    snap.write("fs/home/ada/notes/" + github + ".txt", "a file named by a token\n" + github);
    snap.write("cmd/0-tool.out", "session " + jwt + " ok\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + key_body +
                                     "\n-----END OPENSSH PRIVATE KEY-----\n");
    RedactionLog log = redact_snapshot(snap.dir(), false);
    for (const auto& secret :
         {github, github_pat, hf, openai, anthropic, aws_id, aws_secret, slack, jwt, key_body})
      require_absent(snap, secret);
    CHECK(snap.read("cmd/0-tool.out").find("session ") == 0);
    CHECK(logged(log, "env:MY_VAR"));
    for (const auto& entry : log.redacted) // the manifest's list names files, never a secret
      CHECK_MESSAGE(entry.find(github) == std::string::npos, entry);
  }

} // TEST_SUITE
