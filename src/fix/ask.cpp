#include "fix/ask.hpp"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace gpudoctor::fix {

bool confirm(const std::string& question) {
  if (!::isatty(STDIN_FILENO)) return false;
  std::printf("%s [y/N] ", question.c_str());
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

const char* yes_hint() {
  return ::isatty(STDIN_FILENO) ? "" : " (not a terminal: pass --yes)";
}

} // namespace gpudoctor::fix
