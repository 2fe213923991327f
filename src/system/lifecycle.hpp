// The start of every gpudoctor run, for the processes and temporary files it will own (docs/security.md,
// "Processes"). Call it first in main, before any thread exists.
//
// - The reaper starts and gpudoctor becomes the subreaper of everything it starts (system/reaper).
// - SIGINT and SIGTERM are blocked in every thread and taken by one thread, which stops anything new from
//   starting, forwards the signal to --apply steps (they share the terminal) and gives them a bounded time,
//   kills every process below gpudoctor (after --apply steps: only the tool runs' and the steps' own
//   descendants, system/process_tree), removes the temporary files and folders (system/temp_files) and exits
//   130 / 143 (report-v1). A signal that was ignored when gpudoctor started (a background job of a
//   non-interactive shell, nohup) stays ignored.
// - When a gpudoctor that ran no --apply step exits, whatever is still below it is killed: a run's daemon
// that
//   its own clean-up could not tie to it (one that cleared its environment and left the run's process group).
//   After a step it is not: the step may have started a service meant to stay.
// - Temporary folders of earlier runs killed with SIGKILL are removed (only provably dead ones).
#pragma once

namespace gpudoctor {

void start_lifecycle();

} // namespace gpudoctor
