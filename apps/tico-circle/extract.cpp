// tico-circle extract: a sub-model between tensors or over an operator range.
#include "extract.h"
#include "tool.h"

#include "tico/circle/edit.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <iostream>
#include <memory>

namespace tico::circle_tool {
namespace {

// Makes `first` subgraph 0 (the entry point), keeping the others in their order, and renumbers
// every control-flow reference and signature.
void moveSubgraphToFront(CircleModel &model, uint32_t first) {
  if (first == 0)
    return;
  const std::size_t count = model.subgraphs.size();
  IndexMap map(count);
  std::vector<CircleSubGraph> reordered;
  reordered.reserve(count);
  reordered.push_back(std::move(model.subgraphs[first]));
  map[first] = 0;
  for (std::size_t s = 0; s < count; ++s)
    if (s != first) {
      map[s] = static_cast<int32_t>(reordered.size());
      reordered.push_back(std::move(model.subgraphs[s]));
    }
  model.subgraphs = std::move(reordered);
  for (auto &sg : model.subgraphs)
    for (auto &op : sg.operators)
      forEachSubgraphReference(op, [&](int64_t &index) {
        if (index >= 0 && static_cast<std::size_t>(index) < count)
          index = map[index];
      });
  for (auto &signature : model.signatures)
    if (signature.subgraph_index < count)
      signature.subgraph_index = static_cast<uint32_t>(map[signature.subgraph_index]);
}

struct ExtractRequest {
  std::string input, output, ops;
  uint32_t subgraph = 0;
  std::vector<std::string> from, to;
  bool full_match = false, keep_other_subgraphs = false, no_verify = false, force = false;
};

} // namespace

CircleModel extractSubmodel(const CircleModel &model, uint32_t subgraph, const ExtractSelection &selection,
                            bool keep_other_subgraphs) {
  CircleModel out = model;
  CircleSubGraph &sg = out.subgraphs.at(subgraph);
  std::vector<bool> kept(sg.operators.size(), false);
  for (uint32_t o : selection.operators)
    kept.at(o) = true;
  std::vector<uint32_t> dropped;
  for (std::size_t o = 0; o < kept.size(); ++o)
    if (!kept[o])
      dropped.push_back(static_cast<uint32_t>(o));
  removeOperators(out, subgraph, dropped);
  out.subgraphs[subgraph].inputs = selection.inputs;
  out.subgraphs[subgraph].outputs = selection.outputs;

  std::vector<CircleSignature> signatures;
  for (auto &signature : out.signatures)
    if (signature.subgraph_index != subgraph && keep_other_subgraphs)
      signatures.push_back(std::move(signature));
  out.signatures = std::move(signatures);

  moveSubgraphToFront(out, subgraph);
  CompactOptions options;
  options.subgraphs = !keep_other_subgraphs;
  compact(out, options);
  return out;
}

Action addExtract(CLI::App &app) {
  auto request = std::make_shared<ExtractRequest>();
  app.add_option("input", request->input, "Circle file")->required();
  app.add_option("-o,--output", request->output, "Circle file to write")->required();
  app.add_option("--subgraph", request->subgraph, "subgraph to cut from (default 0)");
  auto *ops = app.add_option("--ops", request->ops,
                             "operator indices to keep: a-b (inclusive), a:b (end exclusive), n; comma-separated");
  auto *from = app.add_option("--from-tensor", request->from,
                              "regular expression for the tensors the slice starts from (repeatable)");
  auto *to = app.add_option("--to-tensor", request->to,
                            "regular expression for the tensors the slice computes (repeatable)");
  ops->excludes(from)->excludes(to);
  app.add_flag("--full-match", request->full_match, "patterns must match whole tensor names");
  app.add_flag("--keep-other-subgraphs", request->keep_other_subgraphs,
               "keep every other subgraph and its signatures (default: only subgraphs the slice calls)");
  app.add_flag("--no-verify", request->no_verify, "write the result without verifying it");
  app.add_flag("--force", request->force, "replace the output even when it is a read-only file");
  return [request] {
    if (request->ops.empty() && request->to.empty())
      throw Error("extract needs --ops or --to-tensor (see --help)");
    checkOutputTarget(request->output, {request->input}, request->force);
    const CircleModel model = loadModel(request->input);
    std::vector<std::string> added;
    const ExtractSelection selection =
        request->ops.empty()
            ? selectBetweenTensors(model, request->subgraph, request->from, request->to, request->full_match, &added)
            : selectOperatorRange(model, request->subgraph, request->ops);
    for (const auto &name : added)
      std::cerr << "tico-circle extract: note: '" << name
                << "' is needed by the slice and is not a --from-tensor; it becomes an input\n";
    const CircleModel result = extractSubmodel(model, request->subgraph, selection, request->keep_other_subgraphs);
    saveModel(result, request->output, !request->no_verify, "extract");
    std::cerr << "tico-circle extract: " << selection.operators.size() << " operators, "
              << selection.inputs.size() << " inputs, " << selection.outputs.size() << " outputs -> "
              << request->output << "\n";
    return kOk;
  };
}

} // namespace tico::circle_tool
