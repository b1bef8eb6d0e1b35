// Binding export-time symbols to sizes: one dynamic program, several static ones.
//
// A program exported with a dynamic dimension (a sequence length s0 in [1, 128]) describes every
// size that depends on it as an expression over s0. Specializing binds s0 to one size: every
// shape and every symbolic scalar the bindings determine becomes a number, and the nodes that
// only computed sizes (aten::sym_size.int, scalar arithmetic) are removed as dead. The rest of
// the graph, its constants included, is untouched, so specializations of one graph share their
// weights. A multi-signature conversion (driver.h, ConversionOptions::signatures) lowers one
// specialization per signature: an LLM's prefill (s0 = 128) and decode (s0 = 1) steps.
#pragma once

#include "tico/ir/graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tico {

// "input_ids.1=128": dimension `dim` of the user input `input` takes `size`.
struct InputDimSize {
  std::string input;
  int64_t dim = 0;
  int64_t size = 0;
};

// Parses "INPUT.DIM=SIZE" (DIM and SIZE non-negative integers; INPUT may contain dots, the
// last one separates the dimension). Throws tico::Error saying what is malformed.
InputDimSize parseInputDimSize(const std::string &text);

// The symbol bindings that give the requested inputs those sizes: each requested dimension must
// be symbolic and a bare symbol (s0, not 2*s0), the size within the symbol's exported range, and
// two requests binding one symbol must agree. Throws tico::Error naming the input, the dimension
// and, for an unknown input, the user inputs there are.
std::map<std::string, int64_t> bindingsForInputSizes(const Graph &graph, const std::vector<InputDimSize> &sizes);

// Binds `bindings` (symbol -> size) in `graph` as described above and returns how many values
// became static. Symbols left unbound stay symbolic. A bound symbol's range becomes [size, size].
std::size_t specializeSymbols(Graph &graph, const std::map<std::string, int64_t> &bindings);

} // namespace tico
