// The incremental-strategies manifest (Metadata "incremental.manifest.v1", docs/incremental.md)
// as the Circle tools see it: a summary for `inspect` and the consistency checks of `verify`.
#pragma once

#include "tico/circle/model.h"
#include "tico/circle/verify.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace tico::circle_tool {

// The parsed manifest, nullopt when the model has none; throws tico::Error when the entry is
// not JSON.
std::optional<nlohmann::json> readIncrementalManifest(const CircleModel &model);

// A short summary (groups, callables, retained tensors, strategies, rejection count).
nlohmann::json summarizeIncrementalManifest(const nlohmann::json &manifest);

// Rule INCREMENTAL_MANIFEST: the manifest against the file — subgraph 0 is the monolith's
// signature, every callable's signature exists with the listed subgraph and contracts, every
// step names a signature, and each retained tensor has one contract (type, shape,
// quantization) on both sides of every frontier edge and in the monolith.
std::vector<CircleDiagnostic> checkIncrementalManifest(const CircleModel &model);

} // namespace tico::circle_tool
