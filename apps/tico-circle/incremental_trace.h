// Change traces for `tico-circle serve-incremental`: which input groups change at each step of
// a replay, either drawn from a seeded mix ("input_ids:0.9,pixel_values:0.1") or read from a
// trace file. Each group holds one of `pool` seeded values at a time; a change moves it to
// another entry, so earlier values come back (what versioned cache keys are for).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tico::circle_tool {

struct TraceGroups {
  std::vector<std::string> names;               // input groups, manifest order
  std::vector<std::vector<std::string>> inputs; // per group: its public inputs
};

// One entry per step: the pool entry of every group. Step 0 has every group at entry 0 (the
// first run sees everything new).
using Trace = std::vector<std::vector<int>>;

// `steps` steps (step 0 included); after step 0 each step changes the groups of one item of
// `mix`, drawn by weight. An item is a group name, one of its input names, `all` or `none`.
// Throws tico::Error for unknown names, bad weights or pool < 2.
Trace seededTrace(const TraceGroups &groups, const std::string &mix, uint32_t steps, int pool, uint64_t seed);

// A trace file: after step 0, one step per line. A line lists what changes, separated by blanks:
// `NAME` (a group or input name: its group moves to another entry, seeded), `NAME=K` (to entry
// K), `all`, or `-`/`none` for no change; `#` starts a comment; blank lines are skipped.
Trace traceFromFile(const TraceGroups &groups, const std::string &path, int pool, uint64_t seed);

} // namespace tico::circle_tool
