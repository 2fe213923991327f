#include "bundle/address_scan.hpp"

#include <cctype>
#include <cstring>

namespace gpudoctor {

namespace {

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

class AddressScanner {
public:
  AddressScanner(std::string_view text, const Pseudonyms& p, std::size_t min_gpu)
      : t(text), m_p(p), m_min_gpu(min_gpu) {}

  std::string run() {
    while (i < t.size()) {
      char prev = i == 0 ? ' ' : t[i - 1];
      bool word = !alnum(prev);
      bool free = word && !std::strchr(".:-_", prev);
      bool dotted = word && !std::strchr(".-_", prev); // "::ffff:10.0.0.1", "host:10.0.0.1"
      if ((word && gpu_id()) || (free && (hardware() || uuid() || ipv6())) || (dotted && ipv4())) continue;
      out += t[i++];
    }
    return std::move(out);
  }

private:
  char at(std::size_t k) const { return k < t.size() ? t[k] : '\0'; }
  void replace(std::size_t end, const std::string& with) {
    out += with;
    i = end;
  }

  // Two hex digits, then (separator, two hex digits) five or more times: a MAC, an EUI-64, an IPoIB address.
  bool hardware() {
    char sep = at(i + 2);
    if (!hex(at(i)) || !hex(at(i + 1)) || (sep != ':' && sep != '-')) return false;
    std::size_t end = i + 2, groups = 1;
    while (at(end) == sep && hex(at(end + 1)) && hex(at(end + 2)) && !hex(at(end + 3))) {
      end += 3;
      ++groups;
    }
    if (groups < 6 || alnum(at(end)) || at(end) == sep || at(end) == '.') return false;
    std::string_view addr = t.substr(i, end - i);
    if (addr.find_first_not_of(std::string("0") + sep) == std::string_view::npos ||
        addr.find_first_not_of(std::string("fF") + sep) == std::string_view::npos)
      return false;
    replace(end, m_p.hardware(addr));
    return true;
  }

  // GPU-<hex and dashes> or MIG-<...>: the hex digits by the prefix-preserving pseudonym.
  bool gpu_id() {
    if (t.compare(i, 4, "GPU-") != 0 && t.compare(i, 4, "MIG-") != 0) return false;
    std::size_t end = i + 4, digits = 0;
    while (hex(at(end)) || at(end) == '-') {
      digits += hex(at(end)) ? 1 : 0;
      ++end;
    }
    while (end > i + 4 && t[end - 1] == '-')
      --end;
    if (digits < m_min_gpu || alnum(at(end))) return false;
    replace(end, std::string(t.substr(i, 4)) + m_p.hex_id(t.substr(i + 4, end - i - 4)));
    return true;
  }

  bool uuid() {
    static constexpr std::size_t groups[] = {8, 4, 4, 4, 12};
    std::size_t end = i;
    for (std::size_t g = 0; g < 5; ++g) {
      if (g > 0 && at(end++) != '-') return false;
      for (std::size_t k = 0; k < groups[g]; ++k)
        if (!hex(at(end++))) return false;
    }
    if (alnum(at(end)) || at(end) == '-') return false;
    replace(end, m_p.hex_id(t.substr(i, end - i)));
    return true;
  }

  bool ipv6() {
    std::size_t end = i;
    while (hex(at(end)) || at(end) == ':')
      ++end;
    if (end - i < 2 || alnum(at(end)) || at(end) == '.') return false;
    std::string_view a = t.substr(i, end - i);
    std::size_t compressed = a.find("::");
    if (compressed != a.rfind("::") || a.find(":::") != std::string_view::npos) return false;
    std::size_t colons = 0, group = 0, groups = 0;
    for (char c : a) {
      if (c == ':') {
        ++colons;
        groups += group > 0 ? 1 : 0;
        group = 0;
      } else if (++group > 4) {
        return false;
      }
    }
    groups += group > 0 ? 1 : 0;
    bool ok = compressed == std::string_view::npos
                  ? colons == 7 && groups == 8
                  : colons >= 2 && groups <= 7 && (a.front() != ':' || a.starts_with("::")) &&
                        (a.back() != ':' || a.ends_with("::"));
    if (!ok) return false;
    if (a == "::" || a == "::1") {
      out.append(a);
      i = end;
      return true;
    }
    replace(end, m_p.ipv6(a));
    return true;
  }

  // Four numbers that are a version: after an epoch ("1:1.2.2.3"), a dpkg relation ("(>= 13.1.0.3)"), or
  // on a line that says "version" just before ("\"version\" : \"12.6.4.1\"", "Version: 2.2.0.1").
  bool version_context() const {
    if (i >= 2 && t[i - 1] == ':' && digit(t[i - 2])) return true;
    std::size_t k = i;
    while (k > 0 && t[k - 1] == ' ')
      --k;
    if (k >= 2) {
      std::string_view op = t.substr(k - 2, 2);
      if (op == ">=" || op == "<=" || op == "<<" || op == ">>" || op == "(=") return true;
    }
    std::size_t from = i > 48 ? i - 48 : 0;
    std::string_view before = t.substr(from, i - from);
    if (auto nl = before.rfind('\n'); nl != std::string_view::npos) before.remove_prefix(nl + 1);
    std::string lower(before);
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find("version") != std::string::npos;
  }

  bool ipv4() {
    std::size_t end = i;
    int octets[4] = {};
    for (int k = 0; k < 4; ++k) {
      if (k > 0 && at(end++) != '.') return false;
      std::size_t start = end;
      while (digit(at(end)) && end - start < 4)
        ++end;
      if (end == start || end - start > 3 || (end - start > 1 && t[start] == '0')) return false;
      octets[k] = std::stoi(std::string(t.substr(start, end - start)));
      if (octets[k] > 255) return false;
    }
    // A longer dotted number or a word goes on: "9.1.0.70.dist-info", "1.2.3.4-1".
    if (alnum(at(end)) || at(end) == '-' || at(end) == '_' || (at(end) == '.' && alnum(at(end + 1))))
      return false;
    if (version_context()) return false;
    bool keep = octets[0] == 127 || (octets[0] == 0 && octets[1] == 0 && octets[2] == 0 && octets[3] == 0) ||
                (octets[0] == 255 && octets[1] == 255 && octets[2] == 255 && octets[3] == 255);
    std::string_view a = t.substr(i, end - i);
    replace(end, keep ? std::string(a) : m_p.ipv4(a));
    return true;
  }

  std::string_view t;
  const Pseudonyms& m_p;
  std::size_t m_min_gpu;
  std::size_t i = 0;
  std::string out;
};

} // namespace

std::string pseudonymize_addresses(std::string_view text, const Pseudonyms& pseudonyms,
                                   std::size_t min_gpu_digits) {
  return AddressScanner(text, pseudonyms, min_gpu_digits).run();
}

} // namespace gpudoctor
