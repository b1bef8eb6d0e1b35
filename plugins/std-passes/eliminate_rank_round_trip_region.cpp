// Not a pattern: a rewrite replaces a whole region, erasing nodes further down; the scan restarts after each.
// eliminate-rank-round-trip-region (EliminateRankRoundTripRegion), off unless its option
// `enabled` is set (config alias eliminate_rank_round_trip; the original converter declares that
// flag but always runs the pass; here the flag decides):
//
//     x4 -reshape-> x3 (one size-1 axis p dropped) -> region of 3-D ops -> reshape to 4-D
//  => x4 -> the same region computed on 4-D values (size-1 axis kept at p) -> reshape to 4-D
//
// The region is every node reachable from the rank-reducing reshape through supported ops:
// relu, sigmoid, silu, neg, rsqrt, add/sub/mul/div (.Tensor), pow.Tensor_Scalar,
// mean.dim(keepdim=True), permute, transpose.int, split_with_sizes, chunk. Its results may only
// reach reshapes from rank 3 to rank 4 (the sinks, which keep their size lists and so still
// produce the same tensors). Axis arguments are remapped (3-D axis j is 4-D axis j, or j + 1
// from p on); a permute keeps the size-1 axis in place.
//
// Conditions the original does not check, each of which would change results: operands from
// outside the region must be graph inputs or constants of rank <= 3 - p (broadcasting aligns
// trailing dims, and only the 3 - p axes after p line up between the 3-D and 4-D forms);
// a mean must keep its dims; no region value may be a graph output.
#include "pass_support.h"
#include "passes.h"
#include "reshape_match.h"
#include "type_rules.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

namespace tico::passes {
namespace {

struct Mapping {
  int64_t p; // the size-1 axis of the 4-D form
  int64_t axis(int64_t a3) const {
    a3 = normalizeDim(a3, 3);
    return a3 < p ? a3 : a3 + 1;
  }
  std::vector<int64_t> permutation(const std::vector<int64_t> &perm3) const {
    std::vector<int64_t> out;
    std::size_t next = 0;
    for (int64_t o = 0; o < 4; ++o)
      out.push_back(o == p ? p : axis(perm3[next++]));
    return out;
  }
  Shape lift(const Shape &s3) const {
    Shape s4 = s3;
    s4.insert(s4.begin() + p, Dim(1));
    return s4;
  }
};

// The dropped axis when `node` reshapes rank 4 to rank 3 by removing one size-1 axis
// (a non-leading one when several would do).
std::optional<int64_t> droppedAxis(const Node &node) {
  if (!isReshape(node))
    return std::nullopt;
  const Shape &in = node.input(0)->shape(), &out = node.output()->shape();
  if (in.size() != 4 || out.size() != 3)
    return std::nullopt;
  std::vector<int64_t> candidates;
  for (int64_t i = 1; i < 4; ++i)
    candidates.push_back(i);
  candidates.push_back(0);
  for (int64_t i : candidates) {
    const Dim &d = in[static_cast<std::size_t>(i)];
    if (!d.isStatic() || d.value() != 1)
      continue;
    Shape squeezed = in;
    squeezed.erase(squeezed.begin() + i);
    if (squeezed == out)
      return i;
  }
  return std::nullopt;
}

bool isSink(const Node &node) {
  return isReshape(node) && node.input(0)->rank() == 3 && node.output()->rank() == 4;
}

bool isSupported(const Node &node) {
  if (isOp(node, {"aten::relu.default", "aten::sigmoid.default", "aten::silu.default", "aten::neg.default",
                  "aten::rsqrt.default", "aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor",
                  "aten::div.Tensor", "aten::pow.Tensor_Scalar", "aten::permute.default", "aten::transpose.int",
                  "aten::split_with_sizes.default", "aten::chunk.default"}))
    return true;
  return isOp(node, {"aten::mean.dim"}) && node.arg("keepdim").asBool() && node.arg("dim").isIntList();
}

class EliminateRankRoundTripRegionPass final : public Pass {
public:
  explicit EliminateRankRoundTripRegionPass(bool enabled) : enabled_(enabled) {}

  bool run(Graph &graph, PassContext &) override {
    if (!enabled_)
      return false;
    bool changed = false;
    // A rewrite erases nodes further down the list, so the scan starts over after each one
    // (a rewritten source no longer has a region: its 3-D users are gone).
    for (bool again = true; again;) {
      again = false;
      for (const auto &n : graph.nodes()) {
        auto p = droppedAxis(*n);
        if (p && rewrite(graph, n.get(), Mapping{*p})) {
          changed = again = true;
          break;
        }
      }
    }
    return changed;
  }

private:
  bool rewrite(Graph &graph, Node *source, const Mapping &map) {
    // Collect the region: supported nodes reachable from the source; sinks end it.
    std::set<Node *> internal_set;
    std::vector<Node *> sinks;
    std::deque<Node *> queue{source};
    while (!queue.empty()) {
      Node *producer = queue.front();
      queue.pop_front();
      for (Value *out : producer->outputs())
        for (Node *user : out->users()) {
          if (isSink(*user)) {
            if (std::find(sinks.begin(), sinks.end(), user) == sinks.end())
              sinks.push_back(user);
          } else if (isSupported(*user) && internal_set.insert(user).second) {
            queue.push_back(user);
          }
        }
    }
    if (internal_set.empty() || sinks.empty())
      return false;
    // Closure: inputs come from the region, or are graph inputs / constants that broadcast
    // the same way in both forms; results go only to the region and the sinks.
    const Value *entry = source->output();
    for (Node *node : internal_set) {
      for (const NamedArg &a : node->args())
        for (Value *v : a.value.referencedValues()) {
          if (v == entry || (v->producer() && internal_set.count(v->producer())))
            continue;
          if (v->producer() != nullptr || !v->isTensor() || v->rank() > 3 - map.p)
            return false;
        }
      for (Value *out : node->outputs()) {
        if (graph.isGraphOutput(out) || out->rank() != 3)
          return false;
        for (Node *user : out->users())
          if (!internal_set.count(user) && std::find(sinks.begin(), sinks.end(), user) == sinks.end())
            return false;
      }
    }
    for (Node *sink : sinks) {
      Value *in = sink->input(0);
      if (in != entry && !(in->producer() && internal_set.count(in->producer())))
        return false;
    }

    // Rewrite in graph order, in front of the source (every outside operand is an input or a
    // constant, defined before any node).
    std::vector<Node *> ordered;
    for (const auto &n : graph.nodes())
      if (internal_set.count(n.get()))
        ordered.push_back(n.get());
    std::unordered_map<const Value *, Value *> env{{entry, source->input(0)}};
    auto remap = [&](const Argument &a) -> Argument {
      if (a.isValue()) {
        auto it = env.find(a.asValue());
        return it == env.end() ? a : Argument::value(it->second);
      }
      return a;
    };
    for (Node *node : ordered) {
      std::vector<NamedArg> args;
      for (const NamedArg &a : node->args())
        args.push_back(NamedArg{a.name, remap(a.value)});
      if (isOp(*node, {"aten::mean.dim"})) {
        std::vector<int64_t> dims;
        for (int64_t d : node->arg("dim").asInts())
          dims.push_back(map.axis(d));
        args[1].value = Argument::ints(dims);
      } else if (isOp(*node, {"aten::permute.default"})) {
        args[1].value = Argument::ints(map.permutation(node->arg(1).asInts()));
      } else if (isOp(*node, {"aten::transpose.int"})) {
        args[1].value = Argument::integer(map.axis(node->arg(1).asInt()));
        args[2].value = Argument::integer(map.axis(node->arg(2).asInt()));
      } else if (isOp(*node, {"aten::split_with_sizes.default", "aten::chunk.default"})) {
        args[2].value = Argument::integer(map.axis(node->arg(2).asInt()));
      }
      std::vector<TensorTypeSpec> outputs;
      for (const Value *out : node->outputs()) {
        TensorTypeSpec spec;
        spec.dtype = out->dtype();
        spec.shape = map.lift(out->shape());
        outputs.push_back(spec);
      }
      Node *lifted = graph.createNode(node->op(), std::move(args), std::move(outputs), source, node->name() + "_4d");
      for (std::size_t i = 0; i < node->numOutputs(); ++i)
        env[node->output(i)] = lifted->output(i);
    }
    for (Node *sink : sinks)
      sink->replaceInput(sink->input(0), env.at(sink->input(0)));
    for (auto it = ordered.rbegin(); it != ordered.rend(); ++it)
      eraseIfDead(graph, *it);
    eraseIfDead(graph, source);
    return true;
  }

  bool enabled_;
};

} // namespace

void registerEliminateRankRoundTripRegion(Registrar &r) {
  PassSpec spec;
  spec.name = "eliminate-rank-round-trip-region";
  spec.summary = "Compute a 3-D region between a 4->3 and 3->4 reshape on the 4-D tensor "
                 "(option enabled; config eliminate_rank_round_trip)";
  spec.options = {OptionSpec{"enabled", OptionType::Bool, false, "rewrite at all (off by default)"}};
  spec.create = [](const Options &o) -> std::unique_ptr<Pass> {
    return std::make_unique<EliminateRankRoundTripRegionPass>(o.getBool("enabled"));
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
