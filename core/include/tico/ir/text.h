// The textual form of the graph IR (".tir"): stable, readable, and parseable back.
//
//   graph @main {
//     symbol s0 in [1, 64]
//     input %x: f32[s0, 4]
//     param %p_fc_weight: f32[8, 4] "fc.weight" = dense<[0.5, ...]>
//     %c0 = const f32[] dense<1.5>
//     %linear: f32[s0, 8] = aten::linear.default(%x, %p_fc_weight, None)
//     %add: f32[s0, 8] = aten::add.Tensor(%linear, %c0)
//     return %add
//   }
//
// Arguments equal to their schema default are omitted; an argument that follows an omitted
// one, and every keyword-only argument, is written as name=value. print(parse(text)) == text
// for any text print() produced, and parse(print(g)) is structurally equal to g (constant
// payloads included unless they were elided).
#pragma once

#include "tico/ir/graph.h"

#include <memory>
#include <string>
#include <string_view>

namespace tico {

struct PrintOptions {
  // Constants with more elements than this print as elided<N bytes> instead of dense<...>
  // (without reading their payload). Negative: never elide.
  int64_t elide_constants_above = 16;
  // Print node metadata (source locations) as trailing comments.
  bool print_meta = false;
};

std::string printGraph(const Graph &graph, const PrintOptions &options = {});

struct ParseOptions {
  std::string file_name = "<input>";  // used in error locations
  // Accept elided<...> constants (their payload becomes zeros). Off by default so a test
  // cannot silently compare against invented data.
  bool allow_elided = false;
  // The registry ops are matched against (a host passes Registry::schemas()); null: none, so
  // every op keeps the arguments as written.
  const OpSchemaRegistry *schemas = nullptr;
};

// Parses one graph. Errors are tico::LocatedError with file:line:column.
std::unique_ptr<Graph> parseGraph(std::string_view text, const ParseOptions &options = {});

// Splits a file at lines that are exactly "// -----" (FileCheck's split-input-file idiom).
std::vector<std::string> splitInputFile(std::string_view text);

} // namespace tico
