// The bytes of an untrusted archive, gzip undone, every gzip member's CRC-32 and length verified.
// libarchive's gzip filter checks neither (its trailer reader leaves them unverified), and a tar reader stops
// at the end-of-archive blocks, before the trailer: a bundle whose data was damaged in transit replayed as if
// whole. Only gzip is undone: libarchive's other filters include ones that run an external program (lrzip,
// lzop, grzip), which a hostile bundle must never start. No <expected> here: the unpacker is fuzzed with
// clang 14.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gpudoctor {

class GunzipStream {
public:
  // Reads raw bytes into `buf` (at most `cap`): how many, 0 at the end, -1 on an error (errno set).
  using Fill = std::function<long(char* buf, std::size_t cap)>;

  // `max_output`: the most content bytes it gives before it refuses (a gzip bomb).
  GunzipStream(Fill fill, std::uint64_t max_output);
  ~GunzipStream();
  GunzipStream(const GunzipStream&) = delete;
  GunzipStream& operator=(const GunzipStream&) = delete;

  // Up to `cap` bytes of content: how many, 0 at its end; nullopt on an error (then error()). Bytes that do
  // not start with gzip's magic pass through as they are (a plain tar).
  std::optional<std::size_t> read(char* buf, std::size_t cap);
  // Reads what is left, so that the last member's checks run, and refuses data after the last member
  // (NUL padding excepted). Why the stream is damaged or refused, or nothing.
  std::optional<std::string> finish();
  const std::string& error() const { return m_error; }

private:
  struct State;
  std::unique_ptr<State> m;
  std::string m_error;
};

} // namespace gpudoctor
