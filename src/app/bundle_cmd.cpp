// gpudoctor bundle: record a live run into a snapshot, redact it, re-judge the redacted snapshot (so the
// report inside is exactly what `check --from` will say), add the reports, and pack it as .tar.gz.
#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "app/rooted_view.hpp"
#include "bundle/obfuscation_key.hpp"
#include "bundle/redact.hpp"
#include "knowledge/stacks.hpp"
#include "system/live_view.hpp"
#include "system/output_file.hpp"
#include "system/recording_view.hpp"
#include "system/replay_view.hpp"
#include "system/temp_files.hpp"
#include "util/archive.hpp"
#include "util/build_info.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/file_text.hpp"
#include "util/hmac_sha256.hpp"
#include "util/shared_library.hpp"
#include "util/utc_time.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

// Says why a staged bundle cannot be shipped (a full disk: a missing file, or a secret not redacted): exit
// status 2, as for every output that cannot be written (shared/spec/report-v1.md).
std::unexpected<Failure> refuse_incomplete(const std::vector<std::string>& failures) {
  for (const auto& why : failures)
    diag::error("{}", why);
  return fail(Exit::usage, "no bundle written: its snapshot could not be written whole");
}

std::string default_name(const std::string& host) {
  std::string stamp = utc::now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';
  return fmt::format("gpudoctor-bundle-{}-{}.tar.gz", host.empty() ? "host" : host, stamp);
}

struct Packed {
  std::uint64_t bytes = 0;
  std::string sha256; // hex, as sha256sum writes it
};

// The size and digest of what was written to `fd`, read back from the descriptor itself: no path is opened
// again, so the digest shown is that of the file that was written, whoever can rename things in its folder.
std::expected<Packed, std::string> read_back(int fd) {
  Packed packed;
  Sha256 hash;
  std::string block(1 << 16, '\0');
  for (;;) {
    ssize_t got = ::pread(fd, block.data(), block.size(), static_cast<off_t>(packed.bytes));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::unexpected(fmt::format("cannot read it back: {}", std::strerror(errno)));
    if (got == 0) break;
    hash.update(std::string_view(block.data(), static_cast<std::size_t>(got)));
    packed.bytes += static_cast<std::uint64_t>(got);
  }
  packed.sha256 = to_hex(hash.digest());
  return packed;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", double(bytes) / 1024);
  return fmt::format("{:.1f} MiB", double(bytes) / (1024 * 1024));
}

bool same_conclusions(const std::vector<Result>& a, const std::vector<Result>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].status != b[i].status) return false;
  return true;
}

} // namespace

Outcome cmd_bundle(const BundleOptions& opt) {
  // The archive is written with libarchive, opened when first used (util/shared_library): a missing one is
  // said before recording, not after.
  if (auto library = libarchive_library().available(); !library)
    return fail(Exit::internal, "{}", library.error());
  // A bad upload URL is said before minutes of recording and probing, not after.
  if (!opt.upload.url.empty())
    if (auto usage = upload_usage_error(opt.upload); !usage.empty()) return fail(Exit::usage, "{}", usage);
  // So is an output that cannot be written (a link another user can change, run as root): its folder is
  // opened now and written through its descriptor at the end.
  std::optional<OutputFolder> out_folder;
  if (!opt.output.empty()) {
    auto opened = OutputFolder::open_for(opt.output, ::geteuid() == 0);
    if (!opened) return fail(Exit::usage, "{}", opened.error());
    out_folder = std::move(*opened);
  }
  // The key file too: a bad one is said before recording, and a new one exists before the first bundle.
  std::string key;
  if (!opt.obfuscate_key.empty()) {
    auto loaded = load_or_create_obfuscation_key(opt.obfuscate_key);
    if (!loaded) return fail(Exit::usage, "{}", loaded.error());
    key = std::move(*loaded);
  }
  auto data = load_data(opt.check);
  if (!data) return std::unexpected(data.error());
  auto stacks = load_stacks();
  if (!stacks) return fail(Exit::internal, "{}", stacks.error());
  auto staging = temp::Folder::create("bundle");
  if (!staging) return fail(Exit::usage, "{}", staging.error());
  fs::path snap_dir = staging->path() / "snapshot";

  std::unique_ptr<LiveView> live =
      opt.root.empty() ? std::make_unique<LiveView>() : std::make_unique<RootedView>(opt.root);
  RecordingView recorder(*live, snap_dir, "gpudoctor " GPUDOCTOR_VERSION);
  // With the stack tables the fix inventory is taken: what `fix` and `migrate` read beyond the checks (apt's
  // marks, pins, container configuration, ...) is recorded, so a plan made --from the bundle is the plan made
  // on the machine, and the report below holds the inventory (facts.inventory).
  diag::progress("recording this machine");
  auto live_judged = run_pipeline(recorder, *data, opt.check, &*stacks);
  if (!live_judged) return std::unexpected(live_judged.error());
  Report live_report = std::move(*live_judged);
  snapshot::Manifest manifest;
  manifest.created = utc::now_iso8601();
  manifest.tool = build_info::describe(); // the commit and build date too: which build made it
  manifest.origin = "live";
  recorder.finish(manifest);
  if (auto failures = recorder.write_failures(); !failures.empty()) return refuse_incomplete(failures);

  diag::progress("redacting the snapshot");
  RedactOptions redact;
  redact.kb = &data->kb;
  redact.obfuscate = opt.obfuscate || !key.empty();
  redact.obfuscation_key = key;
  redact.key_from_file = !key.empty();
  for (const auto& [path, why] : recorder.skipped()) {
    diag::note("not recorded: {}", why);
    redact.skipped.push_back(path);
  }
  redact.left_out = recorder.left_out_files();
  for (const auto& [path, why] : redact.left_out)
    diag::note("not recorded: {}", why);
  RedactionLog log = redact_snapshot(snap_dir, redact);
  for (const auto& warning : log.warnings)
    diag::note("{}", warning);
  manifest.redacted = log.redacted;
  manifest.left_out = log.left_out;
  manifest.excerpts = recorder.excerpted_files();
  manifest.note = redact.obfuscate ? "redacted and obfuscated; " + log.note : "redacted";
  std::vector<std::string> failures = log.failed;
  auto write = [&](const std::string& name, const std::string& text) {
    if (auto written = write_whole_file(snap_dir / name, text); !written) failures.push_back(written.error());
  };
  write("manifest.json", dump_json(snapshot::manifest_to_json(manifest)));
  if (!failures.empty()) return refuse_incomplete(failures);

  diag::progress("judging the redacted snapshot");
  auto replay = ReplayView::open(snap_dir);
  if (!replay) return fail(Exit::internal, "the recorded snapshot does not read back: {}", replay.error());
  auto judged = run_pipeline(**replay, *data, opt.check, &*stacks);
  if (!judged) return std::unexpected(judged.error());
  Report report = std::move(*judged);
  if (!same_conclusions(live_report.results, report.results))
    diag::warning("the redacted snapshot judges differently from the live run");
  report.source_kind = "live";
  write("report.json", dump_json(report_to_json(report)) + "\n");
  TextOptions topt;
  topt.verbose = true;
  write("report.txt", render_text(report, data->cat, topt));
  write("report.html", render_html(report, data->cat));
  if (!failures.empty()) return refuse_incomplete(failures);

  std::string output = opt.output.empty() ? default_name(log.host) : opt.output;
  if (!out_folder) {
    auto opened = OutputFolder::open_for(output, ::geteuid() == 0);
    if (!opened) return fail(Exit::usage, "{}", opened.error());
    out_folder = std::move(*opened);
  }
  // 0600: a bundle holds the machine's configuration. A half-written archive is removed if gpudoctor is
  // interrupted (OutputFolder registers it).
  diag::progress(fmt::format("packing {}", output));
  Packed packed;
  auto written = out_folder->replace(0600, [&](int fd) -> std::expected<void, std::string> {
    if (auto tar = write_tar_gz(snap_dir, fd); !tar) return tar;
    auto back = read_back(fd);
    if (!back) return std::unexpected(back.error());
    packed = std::move(*back);
    return {};
  });
  diag::clear_progress();
  if (!written) return fail(Exit::usage, "{}", written.error());
  Summary s = summarize(report.results);
  auto values = std::count_if(log.redacted.begin(), log.redacted.end(), [](const std::string& entry) {
    return entry.starts_with("env:") || entry.starts_with("file:") || entry.starts_with("skipped:");
  });
  diag::say("wrote {} ({} errors, {} warnings; {} values and files redacted)", output, s.error, s.warn,
            values);
  // A person at a terminal is told what they hold and what to do with it (as sos report and
  // nvidia-bug-report do); a script reads the path on stdout and has what it needs.
  if (diag::shows_progress()) {
    diag::detail("size {}", size_text(packed.bytes));
    diag::detail("SHA-256 {}", packed.sha256);
    if (opt.upload.url.empty())
      diag::say("send this file to whoever asked for it (your support contact, or attach it to the issue you "
                "file), with its SHA-256; `tar -tzf {}` lists what it holds, and report.txt inside is what "
                "gpudoctor found",
                output);
  }
  std::printf("%s\n", escape::one_line(output).c_str());
  if (opt.upload.url.empty()) return Exit::ok;
  std::fflush(stdout);
  diag::progress(fmt::format("uploading to {}", upload_url_for_messages(opt.upload.url)));
  auto sent = upload_bundle(output, opt.upload);
  diag::clear_progress();
  if (!sent) {
    diag::error("upload failed: {}", sent.error());
    return fail(Exit::upload_failed, "the bundle is still at {}; send it another way", output);
  }
  diag::say("uploaded: {}", *sent);
  return Exit::ok;
}

} // namespace gpudoctor
