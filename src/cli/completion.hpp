// Shell completion generated from the command line's own parser: the CLI11 App's subcommands and options
// are the table (src/main.cpp builds it), so a new option is completed without anyone editing a script.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpudoctor::cli {

// The ids the completion offers: those of the catalogues the script is made with (this version's).
struct CompletionIds {
  std::vector<std::string> checks, fixes;
};

// A bash completion script for `app` (bash-completion's `complete -F`): subcommands, their options, the
// choices of options checked with CLI::IsMember, and for a value or positional what its type name says
// (src/main.cpp): PATH or FILE files and folders, DIR folders, CHECK_ID, FIX_ID and ID the ids; nothing for
// numbers, URLs and other text.
std::string bash_completion(CLI::App& app, const CompletionIds& ids);

} // namespace gpudoctor::cli
