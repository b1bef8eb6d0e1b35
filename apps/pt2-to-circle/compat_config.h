// The original converter's configuration file (pt2-to-circle -c FILE): a YAML mapping with
// `version: "1.0"` and CompileConfigV1 fields, e.g.
//
//   version: "1.0"
//   convert_rhs_const_mm_to_fc: false
//
// read onto tico's CompileConfig. Where the original was lenient, tico refuses:
//   - unknown keys (the original ignored them silently, so a typo switched nothing);
//   - values that are not booleans (the original stored any value, and a quoted "false" then
//     counted as true).
// Booleans are read as the original's YAML loader reads them (YAML 1.1: true/false, yes/no,
// on/off in lower, Title or UPPER case).
//
// `circle_optimize` (0.3.0: run the Circle O1 optimization after serialization, on unless
// set false) is not a compile-config field here: it chooses the pipeline. tico's default
// pipeline runs the O1 optimizations (its `optimize` stage); false selects minimal.yaml, the
// same pipeline without them.
#pragma once

#include "tico/pipeline/compile_config.h"

#include <string>

namespace tico::compat {

// The only configuration version the original defines.
inline constexpr const char *kLatestConfigVersion = "1.0";

// What a config file asks for beyond the compile config.
struct CompatRequests {
  // circle_optimize (unset: true, as in the original: the default pipeline optimizes).
  bool circle_optimize = true;
};

// Applies the fields of the file at `path` to `config`. Throws tico::Error; problems in the
// file are listed one per line as "file:line:col: error: ...", all at once.
CompatRequests applyCompatConfig(const std::string &path, CompileConfig &config);
// The same from text already read; `name` stands for the file in messages.
CompatRequests applyCompatConfigText(const std::string &text, const std::string &name, CompileConfig &config);

} // namespace tico::compat
