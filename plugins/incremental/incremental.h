// Incremental strategies (docs/incremental.md): from the lowered monolith (subgraph 0 of a
// Circle model) find which operators depend on which groups of public inputs, which tensors a
// caller could keep between calls so that a change of some groups recomputes only what depends
// on them, and package those partial computations as extra subgraphs with a manifest.
//
// Every index here is an index into subgraph 0 of the model the analysis was made on.
#pragma once

#include "tico/circle/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico {
class Registry;
}

namespace tico::incremental {

// Bit g set = input group g. Sixteen groups at most: candidates are all 2^g - 2 proper subsets.
using GroupSet = uint32_t;
inline constexpr std::size_t kMaxGroups = 16;

inline constexpr const char *kManifestName = "incremental.manifest.v1";

// ---- Input groups (groups.cpp) ------------------------------------------------------------------

struct InputGroups {
  std::vector<std::string> names;                // one per group: its inputs' names joined by '+'
  std::vector<std::vector<uint32_t>> inputs;     // per group: positions in subgraph 0's inputs
  std::vector<uint32_t> group_of_input;          // per public input position
  GroupSet all() const { return names.size() >= 32 ? ~GroupSet{0} : (GroupSet{1} << names.size()) - 1; }
};

// One group per public input, except the inputs named together in an entry of `spec`
// ("input_ids+attention_mask"), which form one group. Groups are ordered by their first input.
// Throws tico::Error for unknown or repeated names and for more than kMaxGroups groups.
InputGroups makeGroups(const CircleModel &model, const std::vector<std::string> &spec);

// Group names of a set, in group order.
std::vector<std::string> groupNames(const InputGroups &groups, GroupSet set);

// ---- Support sets (support.cpp) -------------------------------------------------------------------

struct SupportAnalysis {
  std::vector<GroupSet> tensor_support;       // per tensor: the groups its value depends on
  std::vector<GroupSet> op_support;           // per operator: union over its inputs
  std::vector<int32_t> producer;              // per tensor: writing operator or -1
  std::vector<std::vector<uint32_t>> consumers; // per tensor: reading operators
  std::vector<uint8_t> is_public_output;      // per tensor
};

// Propagates support bitsets over subgraph 0 in execution order: a public input carries its
// group, a constant or an unwritten tensor none, an operator's outputs the union of its inputs.
SupportAnalysis analyzeSupport(const CircleModel &model, const InputGroups &groups);

// Distinct non-empty operator supports (the canonical regions R_S), ordered by the number of
// groups, then by value: a region only reads regions earlier in this order.
std::vector<GroupSet> regionSupports(const SupportAnalysis &analysis);

// Operators whose support is empty: they compute from constants only (constant-foldable).
std::vector<uint32_t> constantOnlyOperators(const SupportAnalysis &analysis);

// Dirty(C): per operator, whether its support meets `changed`.
std::vector<uint8_t> dirtyOperators(const SupportAnalysis &analysis, GroupSet changed);

// Frontier(C) (docs/incremental.md, "Frontier"): tensors with a non-empty support disjoint from
// `changed` that are written by an operator and read by a dirty operator or are public outputs.
// Ascending tensor indices.
std::vector<int32_t> frontier(const SupportAnalysis &analysis, GroupSet changed);

// ---- Cost model (cost.cpp) ------------------------------------------------------------------------

// Multiply-accumulates of one operator of subgraph 0 (see docs/incremental.md, "Cost model").
uint64_t operatorMacs(const CircleModel &model, const CircleOperator &op);
// Sum over the operators marked in `selected` (all when empty).
uint64_t totalMacs(const CircleModel &model, const std::vector<uint8_t> &selected = {});

// Bytes of a tensor's value (static shape; dynamic dims count as their recorded size).
uint64_t tensorBytes(const CircleTensor &tensor);

// ---- Legality (legality.cpp) ----------------------------------------------------------------------

// Why tensor `t` of subgraph 0 cannot be retained between calls, or nullopt when it can.
std::optional<std::string> notRetainable(const CircleModel &model, const SupportAnalysis &analysis, int32_t t);

// Why the change set `changed` cannot be served incrementally, or nullopt. Checks the frontier
// tensors, the operators a strategy would skip (none may have effects), and the program's state
// writes (`state_writes`: names of the buffers/inputs the exported program mutates).
std::optional<std::string> illegalReason(const CircleModel &model, const SupportAnalysis &analysis,
                                         const std::vector<uint8_t> &dirty, const std::vector<int32_t> &frontier,
                                         const std::vector<std::string> &state_writes);

// Reasons that rule out every strategy of the model (an output that depends on no input,
// variable tensors, ...), or nullopt.
std::optional<std::string> modelLevelReason(const CircleModel &model, const SupportAnalysis &analysis);

// ---- Planning (planner.cpp) -----------------------------------------------------------------------

struct Candidate {
  GroupSet changed = 0;            // the change sets this strategy serves are its subsets
  std::vector<uint8_t> dirty;      // per operator
  std::vector<int32_t> frontier;   // tensors it reads from the cache
  uint64_t frontier_bytes = 0;
  uint64_t macs = 0;               // cost of the dirty operators
};

struct Rejection {
  GroupSet changed = 0;
  std::string reason;
};

struct PlanOptions {
  int64_t max_strategies = 8;        // strategies besides the monolith
  std::optional<uint64_t> budget;    // retained bytes; none = unlimited
  std::vector<std::string> state_writes;
};

struct Plan {
  uint64_t monolith_macs = 0;
  std::vector<Candidate> chosen;     // in group-set order
  std::vector<Rejection> rejected;   // in group-set order
  std::vector<int32_t> retained;     // union of the chosen frontiers, ascending
  uint64_t retained_bytes = 0;
};

// Enumerates the non-empty proper subsets of the groups, merges those with equal dirty sets,
// rejects illegal ones and those whose own frontier exceeds the budget, then picks at most
// max_strategies greedily by avoided MACs per marginal retained byte within the budget.
Plan planStrategies(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                    const PlanOptions &options);

// What dominance compares (docs/incremental.md, "Dominance").
struct StrategySummary {
  std::string name;
  GroupSet changed = 0;
  uint64_t macs = 0;
  std::vector<std::string> reads_retained; // sorted
  std::vector<std::string> writes_retained; // sorted
  std::vector<std::string> callables;      // sorted
  bool monolith = false;
};

// A dominates B: A serves every change set B serves at no more MACs, needs no cache entry B
// does not need, refreshes every entry B refreshes, and A's callables are a subset of B's (otherwise B can win when
// its own callables are loaded or its cache is hot).
bool dominates(const StrategySummary &a, const StrategySummary &b);
// Indices of the strategies to prune (never the monolith; of two equal ones the later goes).
std::vector<std::size_t> dominatedStrategies(const std::vector<StrategySummary> &strategies);

// ---- Packaging (identity.cpp, packager.cpp) ---------------------------------------------------------

struct Callable {
  GroupSet support = 0;
  std::string signature;             // region_<groups> or tail_<groups>
  std::vector<uint32_t> operators;   // subgraph-0 operators, execution order (with the constant-only ones it needs)
  std::vector<int32_t> inputs;       // subgraph-0 tensors: public inputs first, then retained, ascending
  std::vector<int32_t> outputs;      // subgraph-0 tensors, ascending
  uint64_t macs = 0;
  std::string id;                    // canonical identity
  uint32_t subgraph = 0;             // in the packaged model
  bool fused = false;                // layout A: one strategy's steps as one subgraph
};

struct Strategy {
  std::string name;
  GroupSet changed = 0;
  bool monolith = false;
  std::vector<std::size_t> steps;    // indices into Package::callables, in order
  std::optional<std::size_t> fused;  // the same computation as one callable (layout A), if packaged
  std::vector<int32_t> reads_retained;
  std::vector<int32_t> writes_retained;
  uint64_t macs = 0;
};

struct Package {
  std::vector<Callable> callables;
  std::vector<Strategy> strategies;  // the monolith first
  std::vector<int32_t> retained;     // ascending
};

// Canonical identity of a callable: operators in a canonical topological order (ties broken by
// operator structure, never by names), their codes and options, the structure of their inputs,
// the boundary contracts and digests of the constant payloads they read.
std::string callableIdentity(const CircleModel &model, const Callable &callable);

// FNV-1a 64 of bytes, as "fnv1a64:<16 hex digits>".
std::string digestBytes(const void *data, std::size_t size, uint64_t seed = 1469598103934665603ull);

// Builds the callables (one per canonical region) and strategies of `plan` on the monolith.
// With `fused`, each chosen strategy also gets its steps as one callable (layout A): one
// dispatch per call, the operator and tensor tables repeated (weights still shared).
Package buildPackage(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                     const Plan &plan, bool fused = false);

// Appends one subgraph + SignatureDef per callable to `model` (subgraph 0 untouched; constant
// buffers shared) and a `main` signature for subgraph 0 when it has none. Sets Callable::subgraph.
void emitCallables(CircleModel &model, Package &package);

// The signature key of subgraph 0 ("main" unless the model named it otherwise).
std::string monolithSignature(const CircleModel &model);

// ---- Validation (validate.cpp) --------------------------------------------------------------------

struct ValidationResult {
  std::vector<std::pair<std::size_t, std::string>> failed; // strategy index, reason
  std::string inputs_description;
};

// Runs every strategy of `package` as its ordered callables on `runtime_name` (a runtime of
// `registry`) and compares its public outputs bitwise with subgraph 0's: the cache is first
// filled from one input set, then the strategy runs on a second set that differs only in the
// groups it serves. The sets are seeded data (seed, seed + 1) and, when `example_model` names
// a .pt2 archive whose example inputs fit subgraph 0's inputs (read by the calibration source
// `example-inputs`), also seeded → example and example → seeded. `model` is the packaged model.
ValidationResult validateStrategies(const Registry &registry, const std::string &runtime_name,
                                    const CircleModel &model, const InputGroups &groups, const Package &package,
                                    uint64_t seed, const std::string &example_model = {});

// ---- Manifest (manifest.cpp) ----------------------------------------------------------------------

struct ManifestContext {
  std::string model_id;
  std::optional<uint64_t> budget;
  int64_t max_strategies = 0;
  std::string runtime;
  uint64_t seed = 0;
  std::string validation_inputs;
  std::vector<Rejection> rejected;
  uint64_t monolith_macs = 0;
};

// The manifest (schema incremental.manifest.v1, docs/incremental.md) as indented JSON text.
std::string manifestJson(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                         const Package &package, const ManifestContext &context);

// ---- The whole compiler (compiler.cpp) ------------------------------------------------------------

struct CompileOptions {
  std::vector<std::string> groups;
  PlanOptions plan;
  std::string runtime = "builtin";
  uint64_t seed = 20261204;
  std::string example_model; // a .pt2 whose example inputs also validate ("" = seeded only)
  bool fused = false;        // also package each strategy as one subgraph (layout A)
};

struct CompileReport {
  std::size_t strategies = 0; // emitted besides the monolith
  std::size_t callables = 0;
  std::size_t rejected = 0;
  std::string manifest;       // the JSON stored in the metadata entry
};

// Analyses subgraph 0 of `model`, plans, packages, validates and stores the manifest as
// Metadata(kManifestName). Throws tico::Error when the model already carries a manifest or the
// groups are wrong. With no legal strategy the model gets only the `main` signature and a
// manifest listing the monolith and the rejections.
CompileReport compileIncremental(const Registry &registry, CircleModel &model, const CompileOptions &options);

} // namespace tico::incremental
