// The parts of an incremental.manifest.v1 (docs/incremental.md) the runtime layer dispatches
// with, parsed once and checked against the model so that a run never meets a dangling name.
#pragma once

#include "tico/circle/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tico::incremental::runtime {

using Mask = uint32_t; // bit g = input group g

struct CallableView {
  std::string signature;
  uint32_t subgraph = 0;
  uint64_t est_macs = 0;
  std::vector<std::string> inputs;  // value names, in port order
  std::vector<std::string> outputs; // value names, in port order
};

struct RetainedView {
  std::string name;
  Mask support = 0;
  uint64_t bytes = 0;
  std::string key_prefix; // model id | producer id | output index: the part of the key without versions
};

struct StrategyView {
  std::string name;
  bool monolith = false;
  Mask changed = 0;
  std::vector<std::size_t> steps;  // callables run in order (the monolith: its own callable)
  std::vector<std::size_t> fused;  // the fused callable alone, when the manifest has one
  std::vector<std::size_t> reads;  // retained values, indices into ManifestView::retained
  std::vector<std::size_t> writes;
  uint64_t est_macs = 0;
};

struct ManifestView {
  std::string model_id;
  std::vector<std::string> groups;
  std::vector<std::string> input_names;  // subgraph 0's public inputs, in order
  std::vector<Mask> input_group;         // per input: its group's bit
  std::vector<std::string> output_names; // public outputs, in order
  std::vector<CallableView> callables;   // the manifest's, then the monolith as `main`
  std::vector<RetainedView> retained;
  std::vector<StrategyView> strategies;  // the monolith first
  std::map<std::string, std::size_t> retained_index;
  Mask all() const { return groups.size() >= 32 ? ~Mask{0} : (Mask{1} << groups.size()) - 1; }
};

// Parses `manifest` and checks it against `model`: the format, every named signature, step,
// retained value and subgraph exist, subgraph 0 takes the listed inputs, and nothing it says
// contradicts the model's dataflow (dataflowProblems). Throws tico::Error naming the first problem.
ManifestView parseManifest(const CircleModel &model, const nlohmann::json &manifest);

// What the manifest promises that the model's dataflow contradicts (manifest_dataflow.cpp):
// support sets recomputed from the input groups, retained contracts, and every strategy replayed
// on names. Empty when the manifest is sound. parseManifest throws on the first.
std::vector<std::string> dataflowProblems(const CircleModel &model, const nlohmann::json &manifest,
                                          const ManifestView &view);
// Every problem parseManifest would refuse `manifest` for (the first structural one, or all the
// dataflow ones), for a verifier that reports them all. Empty when it would be accepted.
std::vector<std::string> manifestProblems(const CircleModel &model, const nlohmann::json &manifest);

// The mask of the group names `names` (a JSON array); throws tico::Error naming `where` and an
// unknown name.
Mask groupMask(const ManifestView &view, const nlohmann::json &names, const std::string &where);

// Group names of a mask, joined by ", " ("none" for the empty mask).
std::string maskText(const ManifestView &view, Mask mask);

} // namespace tico::incremental::runtime
