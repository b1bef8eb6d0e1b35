// Input groups: the public inputs that change together. By default every public input of
// subgraph 0 is a group of its own; an entry "a+b" of the `groups` option puts inputs a and b
// into one group (a text tower's input_ids and attention_mask always change together, and two
// groups for them would only add candidates that never occur).
#include "incremental.h"

#include "tico/support/error.h"

#include <map>
#include <sstream>

namespace tico::incremental {
namespace {

std::vector<std::string> splitPlus(const std::string &entry) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(entry);
  while (std::getline(in, part, '+'))
    out.push_back(part);
  return out;
}

} // namespace

InputGroups makeGroups(const CircleModel &model, const std::vector<std::string> &spec) {
  if (model.subgraphs.empty())
    throw Error("incremental: the model has no subgraph");
  const CircleSubGraph &g = model.subgraphs[0];
  std::map<std::string, uint32_t> position;
  for (uint32_t i = 0; i < g.inputs.size(); ++i)
    position.emplace(g.tensors.at(g.inputs[i]).name, i);

  // Group key per input: the index of the spec entry naming it, or its own slot.
  std::vector<int64_t> entry_of(g.inputs.size(), -1);
  for (std::size_t e = 0; e < spec.size(); ++e) {
    for (const std::string &name : splitPlus(spec[e])) {
      auto it = position.find(name);
      if (it == position.end()) {
        std::string known;
        for (const auto &[n, _] : position)
          known += (known.empty() ? "" : ", ") + n;
        throw Error("incremental: group '" + spec[e] + "' names '" + name +
                    "', which is not a public input (inputs: " + known + ")");
      }
      if (entry_of[it->second] >= 0)
        throw Error("incremental: input '" + name + "' is in two groups");
      entry_of[it->second] = static_cast<int64_t>(e);
    }
  }

  InputGroups groups;
  groups.group_of_input.assign(g.inputs.size(), 0);
  std::map<int64_t, uint32_t> group_of_entry;
  for (uint32_t i = 0; i < g.inputs.size(); ++i) {
    uint32_t group;
    auto found = entry_of[i] >= 0 ? group_of_entry.find(entry_of[i]) : group_of_entry.end();
    if (found != group_of_entry.end()) {
      group = found->second;
    } else {
      group = static_cast<uint32_t>(groups.names.size());
      groups.names.emplace_back();
      groups.inputs.emplace_back();
      if (entry_of[i] >= 0)
        group_of_entry.emplace(entry_of[i], group);
    }
    groups.group_of_input[i] = group;
    groups.inputs[group].push_back(i);
    auto &name = groups.names[group];
    name += (name.empty() ? "" : "+") + g.tensors.at(g.inputs[i]).name;
  }
  if (groups.names.size() > kMaxGroups)
    throw Error("incremental: " + std::to_string(groups.names.size()) + " input groups; at most " +
                std::to_string(kMaxGroups) + " are supported (group inputs that change together with 'groups')");
  return groups;
}

std::vector<std::string> groupNames(const InputGroups &groups, GroupSet set) {
  std::vector<std::string> out;
  for (std::size_t g = 0; g < groups.names.size(); ++g)
    if (set & (GroupSet{1} << g))
      out.push_back(groups.names[g]);
  return out;
}

} // namespace tico::incremental
