// The stage after collection: ties the facts of different collectors together and parses raw values into
// typed facts, once, so that checks judge only typed facts and never join or parse again.
#pragma once

#include "facts/facts.hpp"
#include "knowledge/knowledge.hpp"

#include <map>
#include <string>

namespace gpudoctor {

// All of the below, in this order. collect_all runs it once, after every collector.
void link_facts(Facts& facts, const Knowledge& kb);

// Joins: each PCI GPU's model (knowledge gpus), and an AMD GPU's KFD node, render node and KFD target.
void link_gpus(Facts& facts, const Knowledge& kb);
// Each vendor tool's failure named by the first row of knowledge tool_errors.yaml that a line of its output
// matches, whatever its exit status (rocminfo exits 0 on HSA_STATUS_ERROR; nvidia-smi prints the GPUs it
// reads beside a line for one it cannot), with every matching line as evidence; rocminfo's also as the AMD
// fact. A tool no line of which matches keeps what its collector said.
void link_tool_errors(Facts& facts, const Knowledge& kb);
// The repository sources of a GPU vendor or a PyTorch index (knowledge vendor_repos), whose they are.
void link_repos(RepoFacts& repos, const Knowledge& kb);
// NVIDIA_REQUIRE_* of the environment (or a legacy image's cuda>=X.Y) parsed, and NVIDIA_DISABLE_REQUIRE.
void link_nvidia_requirements(const std::map<std::string, std::string>& env, ContainerFacts& c);
// Values read once into typed facts: each nvidia-smi GPU's bdf, the kernel command line, the GPU variables of
// the environment, the NCCL settings in effect and NCCL_IB_HCA, HSA_OVERRIDE_GFX_VERSION*, the vendor tools'
// failures (link_tool_errors), and what each compiled extension was built for. It derives only from collected
// facts, so it may run again after a test changed one.
void normalise_facts(Facts& facts, const Knowledge& kb);

// What a compiled extension was built for (extension_build.cpp).
ExtensionBuild extension_build(const CompiledExtension& x);

} // namespace gpudoctor
