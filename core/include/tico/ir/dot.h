// Graphviz rendering of the graph IR, for pictures of each pipeline stage
// (tico-run --dump-graphs / TICO_GRAPH_DUMP).
#pragma once

#include "tico/ir/graph.h"

#include <string>

namespace tico {

struct DotOptions {
  std::string title;       // shown as the graph label
  bool show_constants = true; // draw parameters/buffers/constants as their own nodes
};

// A deterministic `digraph` text: inputs, constants and outputs as ellipses/notes, operators as
// boxes labelled with the op key and node name, edges labelled with the value's type.
std::string printDot(const Graph &graph, const DotOptions &options = {});

} // namespace tico
