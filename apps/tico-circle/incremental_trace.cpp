#include "incremental_trace.h"

#include "tico/support/error.h"
#include "tico/support/file.h"

#include <random>
#include <sstream>

namespace tico::circle_tool {
namespace {

// Groups an item names: a group, an input of one, or all.
std::vector<std::size_t> groupsNamed(const TraceGroups &groups, const std::string &item) {
  std::vector<std::size_t> out;
  if (item == "none" || item == "-")
    return out;
  for (std::size_t g = 0; g < groups.names.size(); ++g) {
    bool match = item == "all" || item == groups.names[g];
    for (const auto &input : groups.inputs[g])
      match |= item == input;
    if (match)
      out.push_back(g);
  }
  if (out.empty()) {
    std::string known;
    for (const auto &n : groups.names)
      known += (known.empty() ? "" : ", ") + n;
    throw Error("trace: '" + item + "' names no input group or input (groups: " + known + ")");
  }
  return out;
}

// Moves group g to another pool entry.
void change(std::vector<int> &state, std::size_t g, int pool, std::mt19937_64 &rng) {
  const int next = std::uniform_int_distribution<int>(0, pool - 2)(rng);
  state[g] = next >= state[g] ? next + 1 : next;
}

void checkPool(int pool) {
  if (pool < 2)
    throw Error("--pool must be at least 2 (a change needs another value)");
}

} // namespace

Trace seededTrace(const TraceGroups &groups, const std::string &mix, uint32_t steps, int pool, uint64_t seed) {
  checkPool(pool);
  std::vector<std::vector<std::size_t>> items;
  std::vector<double> weights;
  std::stringstream in(mix);
  for (std::string part; std::getline(in, part, ',');) {
    const auto colon = part.rfind(':');
    if (colon == std::string::npos)
      throw Error("--trace: '" + part + "' is not NAME:WEIGHT");
    double w = 0;
    try {
      w = std::stod(part.substr(colon + 1));
    } catch (const std::exception &) {
      throw Error("--trace: '" + part + "' has no number after ':'");
    }
    if (!(w >= 0))
      throw Error("--trace: the weight of '" + part + "' is negative");
    items.push_back(groupsNamed(groups, part.substr(0, colon)));
    weights.push_back(w);
  }
  double total = 0;
  for (double w : weights)
    total += w;
  if (items.empty() || total <= 0)
    throw Error("--trace needs at least one item with a positive weight");
  std::mt19937_64 rng(seed);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  Trace trace{std::vector<int>(groups.names.size(), 0)};
  for (uint32_t s = 1; s < steps; ++s) {
    std::vector<int> state = trace.back();
    for (std::size_t g : items[pick(rng)])
      change(state, g, pool, rng);
    trace.push_back(std::move(state));
  }
  return trace;
}

Trace traceFromFile(const TraceGroups &groups, const std::string &path, int pool, uint64_t seed) {
  checkPool(pool);
  std::mt19937_64 rng(seed);
  std::stringstream text(readRegularFile(path, "trace file"));
  Trace trace{std::vector<int>(groups.names.size(), 0)};
  int line_number = 0;
  for (std::string line; std::getline(text, line);) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::stringstream words(line);
    std::vector<int> state = trace.back();
    bool any = false;
    for (std::string word; words >> word;) {
      any = true;
      const auto eq = word.find('=');
      const auto named = groupsNamed(groups, word.substr(0, eq));
      for (std::size_t g : named) {
        if (eq == std::string::npos) {
          change(state, g, pool, rng);
          continue;
        }
        int k = -1;
        try {
          k = std::stoi(word.substr(eq + 1));
        } catch (const std::exception &) {
        }
        if (k < 0 || k >= pool)
          throw Error(path + ":" + std::to_string(line_number) + ": '" + word + "' needs an entry in [0, " +
                      std::to_string(pool) + ")");
        state[g] = k;
      }
    }
    if (any)
      trace.push_back(std::move(state));
  }
  return trace;
}

} // namespace tico::circle_tool
