// Choosing what `tico-circle extract` keeps: an operator range or the slice between tensors.
#include "extract.h"

#include "tico/circle/edit.h"
#include "tico/support/error.h"

#include <algorithm>
#include <charconv>
#include <regex>
#include <set>

namespace tico::circle_tool {
namespace {

const CircleSubGraph &subgraphAt(const CircleModel &model, uint32_t subgraph) {
  if (subgraph >= model.subgraphs.size())
    throw Error("--subgraph " + std::to_string(subgraph) + " out of range (the model has " +
                std::to_string(model.subgraphs.size()) + " subgraphs)");
  return model.subgraphs[subgraph];
}

uint32_t parseIndex(const std::string &text, const std::string &whole) {
  uint32_t value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw Error("--ops '" + whole + "': '" + text + "' is not an operator index");
  return value;
}

std::vector<bool> parseRanges(const std::string &ranges, std::size_t count) {
  std::vector<bool> kept(count, false);
  std::string item;
  auto take = [&](uint32_t first, uint32_t last_exclusive) {
    if (first >= last_exclusive || last_exclusive > count)
      throw Error("--ops '" + ranges + "': '" + item + "' is empty or outside the " + std::to_string(count) +
                  " operators of the subgraph");
    for (uint32_t o = first; o < last_exclusive; ++o)
      kept[o] = true;
  };
  std::size_t start = 0;
  while (start <= ranges.size()) {
    const std::size_t comma = std::min(ranges.find(',', start), ranges.size());
    item = ranges.substr(start, comma - start);
    start = comma + 1;
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty())
      continue;
    if (auto dash = item.find('-'); dash != std::string::npos)
      take(parseIndex(item.substr(0, dash), ranges), parseIndex(item.substr(dash + 1), ranges) + 1);
    else if (auto colon = item.find(':'); colon != std::string::npos)
      take(parseIndex(item.substr(0, colon), ranges), parseIndex(item.substr(colon + 1), ranges));
    else
      take(parseIndex(item, ranges), parseIndex(item, ranges) + 1);
  }
  return kept;
}

bool holdsValueAtEntry(const CircleModel &model, const CircleTensor &tensor) {
  return tensor.is_variable || isConstantTensor(model, tensor);
}

// Inputs and outputs of a set of kept operators (see selectOperatorRange).
ExtractSelection interfaceOf(const CircleModel &model, const CircleSubGraph &sg, const std::vector<bool> &kept) {
  ExtractSelection selection;
  std::vector<bool> written(sg.tensors.size(), false), read_inside(sg.tensors.size(), false),
      read_outside(sg.tensors.size(), false);
  std::set<int32_t> inputs;
  for (std::size_t o = 0; o < sg.operators.size(); ++o) {
    const CircleOperator &op = sg.operators[o];
    for (int32_t t : op.inputs) {
      if (t < 0)
        continue;
      if (!kept[o]) {
        read_outside[t] = true;
        continue;
      }
      read_inside[t] = true;
      if (!written[t] && !holdsValueAtEntry(model, sg.tensors[t]) && inputs.insert(t).second)
        selection.inputs.push_back(t);
    }
    if (kept[o]) {
      selection.operators.push_back(static_cast<uint32_t>(o));
      for (int32_t t : op.outputs)
        written[t] = true;
    }
  }
  if (selection.operators.empty())
    throw Error("the selection contains no operators");
  std::set<int32_t> outputs;
  const std::set<int32_t> subgraph_outputs(sg.outputs.begin(), sg.outputs.end());
  for (uint32_t o : selection.operators)
    for (int32_t t : sg.operators[o].outputs)
      if ((read_outside[t] || !read_inside[t] || subgraph_outputs.count(t)) && outputs.insert(t).second)
        selection.outputs.push_back(t);
  return selection;
}

std::vector<int32_t> matchTensors(const CircleSubGraph &sg, const std::vector<std::string> &patterns,
                                  bool full_match, const char *option) {
  std::vector<int32_t> out;
  std::set<int32_t> seen;
  for (const auto &pattern : patterns) {
    std::regex re;
    try {
      re = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
      throw Error(std::string(option) + " '" + pattern + "' is not a valid regular expression: " + e.what());
    }
    bool any = false;
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const std::string &name = sg.tensors[t].name;
      if (full_match ? std::regex_match(name, re) : std::regex_search(name, re)) {
        any = true;
        if (seen.insert(static_cast<int32_t>(t)).second)
          out.push_back(static_cast<int32_t>(t));
      }
    }
    if (!any)
      throw Error(std::string(option) + " '" + pattern + "' matches no tensor name of the subgraph");
  }
  return out;
}

} // namespace

ExtractSelection selectOperatorRange(const CircleModel &model, uint32_t subgraph, const std::string &ranges) {
  const CircleSubGraph &sg = subgraphAt(model, subgraph);
  return interfaceOf(model, sg, parseRanges(ranges, sg.operators.size()));
}

ExtractSelection selectBetweenTensors(const CircleModel &model, uint32_t subgraph,
                                      const std::vector<std::string> &from, const std::vector<std::string> &to,
                                      bool full_match, std::vector<std::string> *added_inputs) {
  const CircleSubGraph &sg = subgraphAt(model, subgraph);
  if (to.empty())
    throw Error("extracting between tensors needs at least one --to-tensor");
  ExtractSelection selection;
  selection.inputs = matchTensors(sg, from, full_match, "--from-tensor");
  selection.outputs = matchTensors(sg, to, full_match, "--to-tensor");
  const std::set<int32_t> boundary(selection.inputs.begin(), selection.inputs.end());

  const std::vector<int32_t> producers = tensorProducers(sg);
  std::vector<bool> kept(sg.operators.size(), false), visited(sg.tensors.size(), false);
  std::vector<int32_t> work(selection.outputs.begin(), selection.outputs.end());
  std::vector<int32_t> extra_inputs;
  while (!work.empty()) {
    const int32_t t = work.back();
    work.pop_back();
    if (t < 0 || visited[t])
      continue;
    visited[t] = true;
    if (boundary.count(t) || holdsValueAtEntry(model, sg.tensors[t]))
      continue;
    const int32_t producer = producers[t];
    if (producer < 0) {
      extra_inputs.push_back(t);
      continue;
    }
    if (!kept[producer]) {
      kept[producer] = true;
      for (int32_t in : sg.operators[producer].inputs)
        work.push_back(in);
    }
  }
  std::sort(extra_inputs.begin(), extra_inputs.end());
  for (int32_t t : extra_inputs) {
    selection.inputs.push_back(t);
    if (added_inputs)
      added_inputs->push_back(sg.tensors[t].name.empty() ? "tensor " + std::to_string(t) : sg.tensors[t].name);
  }
  for (std::size_t o = 0; o < kept.size(); ++o)
    if (kept[o])
      selection.operators.push_back(static_cast<uint32_t>(o));
  if (selection.operators.empty())
    throw Error("no operator lies between the --from-tensor and --to-tensor tensors");
  return selection;
}

} // namespace tico::circle_tool
