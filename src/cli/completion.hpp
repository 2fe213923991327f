// Shell completion generated from the command line's own parser: the CLI11 App's subcommands and options
// are the table (src/main.cpp builds it), so a new option is completed without anyone editing a script.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gpudoctor::cli {

// A bash completion script for `app` (bash-completion's `complete -F`): subcommands, their options, the
// choices of options checked with CLI::IsMember, file names for other options that take a value.
std::string bash_completion(CLI::App& app);

} // namespace gpudoctor::cli
