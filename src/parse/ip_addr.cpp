// `ip addr show`, one-line (-o) or not: the addresses of each interface with prefix length and scope
// (iproute2's print_addrinfo). Names carry no "@peer" (that is `ip link`'s form); one is cut off anyway.
#include "parse/parsers_layer.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_addresses = 4096;

// "2:" -> true: the interface index that starts a line of either form.
bool index_token(std::string_view t) {
  if (t.size() < 2 || t.size() > 11 || t.back() != ':') return false;
  for (char c : t.substr(0, t.size() - 1))
    if (!detail::is_digit(c)) return false;
  return true;
}

std::string interface_name(std::string_view t) {
  if (t.ends_with(':')) t.remove_suffix(1);
  t = t.substr(0, t.find('@'));
  if (t.empty() || t.size() > 64) return {};
  return std::string(t);
}

} // namespace

std::vector<IpAddress> ip_addresses(std::string_view text) {
  std::vector<IpAddress> out;
  std::string current; // the interface of the last "N: name" line
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t p = 0;
    std::string_view first = detail::next_token(line, p);
    if (index_token(first)) {
      current = interface_name(detail::next_token(line, p));
      first = detail::next_token(line, p);
    }
    if ((first != "inet" && first != "inet6") || current.empty()) return true;
    IpAddress a;
    a.interface = current;
    a.family = first == "inet" ? 4 : 6;
    std::string_view cidr = detail::next_token(line, p);
    std::size_t slash = cidr.find('/');
    a.address = std::string(cidr.substr(0, slash).substr(0, 64));
    if (slash != std::string_view::npos)
      if (auto n = text::to_int(cidr.substr(slash + 1)); n && *n >= 0 && *n <= 128)
        a.prefix = static_cast<int>(*n);
    for (std::string_view t = detail::next_token(line, p); !t.empty(); t = detail::next_token(line, p))
      if (t == "scope") {
        a.scope = std::string(detail::next_token(line, p).substr(0, 16));
        break;
      }
    if (a.address.empty()) return true;
    out.push_back(std::move(a));
    return out.size() < k_max_addresses;
  });
  return out;
}

} // namespace gpudoctor::parse
