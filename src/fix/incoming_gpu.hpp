// The card a plan is for when it is not in the machine yet (--gpu "RTX 3090" or --gpu 10de:2204): its model
// from the GPU table check uses (knowledge/gpu_table.hpp, and the rows of knowledge files), so the versions
// and the kernel-module flavour are chosen for it as for a card on the PCI bus.
#pragma once

#include "facts/facts.hpp"
#include "knowledge/knowledge.hpp"

#include <expected>
#include <string>

namespace gpudoctor::fix {

// The card `query` names, as a Gpu without a PCI address, and what the plan should say about the match
// (`note`: a family of models whose choices are the same). A PCI id is "vendor:device" in hex; anything else
// is a model name, matched without the brand words (NVIDIA, GeForce, AMD, Radeon) and case: an exact name
// wins, else the models whose names hold the words, when they are one model or one family (one vendor, one
// architecture: the versions chosen are the same for each). Refused, with the reason, when it names no
// model, models of several architectures, or one of another vendor than `want`.
struct IncomingGpu {
  Gpu gpu;
  std::string note;
};
std::expected<IncomingGpu, std::string> incoming_gpu(const Knowledge& kb, const std::string& query,
                                                     Vendor want);

// `facts` with the GPUs of `gpu`'s vendor replaced by `gpu`: what the choice of versions looks at.
Facts with_incoming_gpu(const Facts& facts, const Gpu& gpu);

} // namespace gpudoctor::fix
