#include "head_rotations.h"

#include <tico/ir/shape_utils.h>
#include <tico/ops/torch_ops.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

namespace tico::rotate {
namespace {

namespace aten = ops::aten;

bool floatConstant2d(const Value *v) {
  return v != nullptr && v->isConstant() && v->dtype() == DType::Float32 && v->constant()->sizes.size() == 2;
}

// A linear whose weight (and bias) are float constants; its output is the candidate.
bool rotatableLinear(const Node &node) {
  if (node.opId() != aten::linear_default || node.numOutputs() != 1 || !floatConstant2d(node.input(1)))
    return false;
  if (node.numArgs() > 2 && node.arg(2).isValue()) {
    const Value *bias = node.arg(2).asValue();
    if (!bias->isConstant() || bias->dtype() != DType::Float32)
      return false;
  }
  return node.output()->dtype() == DType::Float32;
}

bool staticLast(const Value *v) { return v->rank() >= 1 && v->shape().back().isStatic(); }

int64_t lastDim(const Value *v) { return v->shape().back().value(); }

// A graph input a rotated value may be written into (a cache): a float runtime input.
bool joinableInput(const Graph &graph, const Value *v) {
  if (v->producer() != nullptr || v->isConstant() || v->dtype() != DType::Float32 || !staticLast(v))
    return false;
  for (const GraphInput &input : graph.inputs())
    if (input.value == v)
      return input.kind == InputKind::User;
  return false;
}

bool isNumberArg(const Node &node, std::size_t index) {
  return index < node.numArgs() && node.arg(index).isNumber();
}

class PathWalk {
public:
  PathWalk(const Graph &graph, const Node &producer) : graph_(graph), producer_(producer) {}

  // The group, or the reason there is none.
  bool run(HeadRotationGroup &group, std::string &why) {
    add(producer_.output());
    while (!queue_.empty() && why_.empty()) {
      const Value *v = queue_.front();
      queue_.pop_front();
      visit(v);
    }
    for (const auto &[node, needed] : need_)
      for (const Value *v : needed)
        if (why_.empty() && !in_.count(v))
          why_ = node->name() + " combines a rotated value with '" + v->name() + "', which is not";
    if (why_.empty() && consumers_.empty())
      why_ = "no linear reads it";
    int64_t block = 0;
    for (const Value *v : in_)
      if (why_.empty())
        block = block == 0 ? lastDim(v) : std::min(block, lastDim(v));
    for (const Value *v : in_)
      if (why_.empty() && lastDim(v) % block != 0)
        why_ = "'" + v->name() + "' has a last dimension of " + std::to_string(lastDim(v)) + ", not a multiple of " +
               std::to_string(block);
    if (!why_.empty()) {
      why = why_;
      return false;
    }
    group.producer = &producer_;
    group.consumers.assign(consumers_.begin(), consumers_.end());
    group.state_inputs = states_;
    group.block = block;
    return true;
  }

private:
  void fail(const std::string &why) {
    if (why_.empty())
      why_ = why;
  }

  void add(const Value *v) {
    if (!in_.insert(v).second)
      return;
    if (!staticLast(v) || v->dtype() != DType::Float32)
      return fail("'" + v->name() + "' has no static float last dimension");
    queue_.push_back(v);
  }

  // A value some node combines with a rotated one: a cache input joins, anything else must turn
  // out rotated by the end of the walk.
  void require(const Node &node, const Value *v) {
    if (in_.count(v))
      return;
    if (joinableInput(graph_, v)) {
      states_.push_back(v);
      add(v);
      return;
    }
    for (auto &[n, values] : need_)
      if (n == &node) {
        values.push_back(v);
        return;
      }
    need_.push_back({&node, {v}});
  }

  int64_t normalized(const Node &node, const char *name, int64_t rank) {
    return normalizeDim(node.arg(name).asInt(), rank);
  }

  void visit(const Value *v) {
    if (graph_.isGraphOutput(v)) {
      // Only an updated cache whose input holds rotated values too may leave the graph.
      const Node *p = v->producer();
      if (p == nullptr || p->opId() != aten::index_copy_default ||
          std::find(states_.begin(), states_.end(), p->input(0)) == states_.end())
        return fail("'" + v->name() + "' is a graph output");
    }
    const int64_t rank = v->rank();
    for (const Node *user : v->users()) {
      const OpId op = user->opId();
      // The rotated value must sit in the operand position the rule is about.
      const bool first = user->numArgs() > 0 && user->arg(0).isValue() && user->arg(0).asValue() == v;
      if (op == aten::linear_default) {
        if (!first || !floatConstant2d(user->input(1)) || user->input(1)->constant()->sizes[1] != lastDim(v) ||
            (user->numArgs() > 2 && user->arg(2).isValue() && user->arg(2).asValue() == v))
          return fail(user->name() + " reads it other than as its input");
        if (std::find(consumers_.begin(), consumers_.end(), user) == consumers_.end())
          consumers_.push_back(user);
        continue;
      }
      if (op == aten::reshape_default || op == aten::view_default || op == aten::_unsafe_view_default ||
          op == aten::clone_default || op == aten::alias_default || op == aten::contiguous_default) {
        if (!first)
          return fail(user->name() + " reads it as a size");
        add(user->output());
        continue;
      }
      if (op == aten::transpose_int && first) {
        if (normalized(*user, "dim0", rank) == rank - 1 || normalized(*user, "dim1", rank) == rank - 1)
          return fail(user->name() + " moves the rotated last dimension");
        add(user->output());
        continue;
      }
      if (op == aten::permute_default && first) {
        const std::vector<int64_t> perm = user->arg("dims").asInts();
        if (perm.empty() || normalizeDim(perm.back(), rank) != rank - 1)
          return fail(user->name() + " moves the rotated last dimension");
        add(user->output());
        continue;
      }
      if (op == aten::expand_default && first) {
        if (!staticLast(user->output()) || lastDim(user->output()) != lastDim(v))
          return fail(user->name() + " expands the rotated last dimension");
        add(user->output());
        continue;
      }
      if ((op == aten::slice_Tensor || op == aten::select_int) && first) {
        if (normalized(*user, "dim", rank) == rank - 1)
          return fail(user->name() + " cuts the rotated last dimension");
        add(user->output());
        continue;
      }
      if ((op == aten::mul_Tensor || op == aten::div_Tensor) && first && isNumberArg(*user, 1)) {
        add(user->output());
        continue;
      }
      if ((op == aten::mul_Tensor) && !first && user->arg(0).isNumber()) {
        add(user->output());
        continue;
      }
      if ((op == aten::mul_Scalar || op == aten::div_Scalar) && first) {
        add(user->output());
        continue;
      }
      if (op == aten::matmul_default && !first && rank >= 2) {
        // probabilities @ V: each output row mixes whole rows of V.
        if (in_.count(user->input(0)))
          return fail(user->name() + " multiplies two rotated values");
        add(user->output());
        continue;
      }
      if (op == aten::index_copy_default) {
        const Value *self = user->input(0);
        const Value *source = user->input("source");
        if ((self != v && source != v) || normalized(*user, "dim", rank) == rank - 1)
          return fail(user->name() + " indexes the rotated last dimension");
        require(*user, self);
        require(*user, source);
        add(user->output());
        continue;
      }
      if (op == aten::cat_default) {
        const int64_t dim = normalizeDim(user->arg(1).asInt(), rank);
        if (dim == rank - 1)
          return fail(user->name() + " concatenates along the rotated last dimension");
        for (const Value *part : user->arg(0).asValues())
          require(*user, part);
        add(user->output());
        continue;
      }
      return fail("it reaches " + user->name() + " (" + user->op().str() + "), which may not commute with a rotation");
    }
  }

  const Graph &graph_;
  const Node &producer_;
  std::set<const Value *> in_;
  std::deque<const Value *> queue_;
  std::vector<const Node *> consumers_;
  std::vector<const Value *> states_;
  std::vector<std::pair<const Node *, std::vector<const Value *>>> need_;
  std::string why_;
};

} // namespace

std::vector<HeadRotationGroup> findHeadRotations(const Graph &graph, std::vector<std::string> &skipped) {
  std::vector<HeadRotationGroup> groups;
  for (const auto &node : graph.nodes()) {
    if (!rotatableLinear(*node))
      continue;
    HeadRotationGroup group;
    std::string why;
    if (PathWalk(graph, *node).run(group, why))
      groups.push_back(std::move(group));
    else
      skipped.push_back(node->name() + ": " + why);
  }
  return groups;
}

} // namespace tico::rotate
