// PCI functions in sysfs (Documentation/ABI/testing/sysfs-bus-pci): which are GPUs, and which are SR-IOV
// virtual functions (NVIDIA vGPU, AMD MxGPU), a count per physical GPU rather than GPUs of their own.
#pragma once

#include "system/system_view.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace gpudoctor {

// Display controllers (class 0x03xx) and processing accelerators (0x1200, Instinct) are GPUs here.
bool is_gpu_class(unsigned pci_class);
// A sysfs attribute written in hex ("0x030000"); nullopt when absent or not a 32-bit number.
std::optional<unsigned> read_pci_hex(SystemView& view, const std::string& path);
// The physical function of the virtual function at `dir` (its physfn link's last component, "0000:3b:00.0");
// nullopt for a physical function.
std::optional<std::string> physical_function_of(SystemView& view, const std::string& dir);
// How many physical GPU-class functions, of any vendor, /sys/bus/pci/devices lists, up to `stop_after` + 1
// (then it stops reading); a listing of at most `stop_after` entries is not read and answers its size.
std::size_t count_physical_gpu_functions(SystemView& view, std::size_t stop_after);

} // namespace gpudoctor
