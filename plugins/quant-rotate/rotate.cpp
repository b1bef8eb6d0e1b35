#include "rotate.h"

#include "hadamard.h"
#include "head_rotations.h"
#include "layers.h"

#include <tico/ops/torch_ops.h>
#include <tico/quant/graph_edits.h>
#include <tico/rewrite/builder.h>
#include <tico/support/error.h>
#include <tico/support/log.h>

#include <cmath>
#include <map>

namespace tico::rotate {
namespace {

using gptq_plugin::floatsOf;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrix matrixOf(const TensorData &t) {
  const std::vector<float> v = floatsOf(t);
  const Eigen::Index rows = t.sizes.size() == 2 ? t.sizes[0] : 1;
  const Eigen::Index cols = t.sizes.back();
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), rows, cols)
      .cast<double>();
}

std::shared_ptr<TensorData> tensorOf(const RowMatrix &m, const std::vector<int64_t> &sizes) {
  std::vector<float> v(static_cast<std::size_t>(m.size()));
  Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), m.rows(), m.cols()) =
      m.cast<float>();
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, sizes, v));
}

// Replaces argument `index` of `node` (a constant) by a new constant: a constant shared with
// another reader (tied weights) keeps its value for that reader.
void replaceConstant(Graph &graph, Node &node, std::size_t index, const RowMatrix &m) {
  Value *old = node.input(index);
  Value *fresh = graph.addConstant(old->name() + "_rotated", tensorOf(m, old->constant()->sizes));
  node.replaceInput(old, fresh);
}

Eigen::MatrixXd blockMatrix(int64_t block, const Settings &settings, bool &hadamard) {
  hadamard = settings.rotation == "hadamard" && hadamardCore(block).has_value();
  return hadamard ? normalizedHadamard(block) : randomOrthogonal(block, settings.seed);
}

// n = a * b with a holding hadamardCore(n) and b a power of two, a <= b as near as possible:
// the two matmuls then cost n (a + b) per row. A Paley order with nothing left for b (n = 12) is
// one matmul: (1, n).
std::pair<int64_t, int64_t> kroneckerFactors(int64_t n) {
  int64_t a = *hadamardCore(n);
  while (a * a < n && (n / a) % 2 == 0 && a * 2 <= n / (a * 2))
    a *= 2;
  return a == n ? std::pair<int64_t, int64_t>{1, n} : std::pair<int64_t, int64_t>{a, n / a};
}

// A glob matching any of the node's selector names (its name, its weight's name and parameter target,
// the module path: '*down_proj*' matches model.layers.0.mlp.down_proj's linear).
bool selected(const std::vector<std::string> &globs, const quant::SelectorNames &names, const Node &node) {
  for (const std::string &name : names.of(node))
    if (gptq_plugin::globMatch(globs, name))
      return true;
  return false;
}

Node *mutableNode(Graph &graph, const Node *node) {
  Node *found = graph.findNode(node->name());
  if (found == nullptr)
    throw Error("rotate: node '" + node->name() + "' is gone before convert");
  return found;
}

void applyHeadRotation(Graph &graph, const HeadRotationGroup &group, const Eigen::MatrixXd &R) {
  const Eigen::Index b = R.rows();
  Node *producer = mutableNode(graph, group.producer);
  RowMatrix w = matrixOf(*producer->input(1)->constant());
  for (Eigen::Index r = 0; r < w.rows(); r += b)
    w.middleRows(r, b) = R.transpose() * w.middleRows(r, b);
  replaceConstant(graph, *producer, 1, w);
  if (producer->numArgs() > 2 && producer->arg(2).isValue()) {
    RowMatrix bias = matrixOf(*producer->input(2)->constant());  // [1, out]
    for (Eigen::Index c = 0; c < bias.cols(); c += b)
      bias.middleCols(c, b) = bias.middleCols(c, b) * R;
    replaceConstant(graph, *producer, 2, bias);
  }
  for (const Node *reader : group.consumers) {
    Node *consumer = mutableNode(graph, reader);
    RowMatrix wc = matrixOf(*consumer->input(1)->constant());
    for (Eigen::Index c = 0; c < wc.cols(); c += b)
      wc.middleCols(c, b) = wc.middleCols(c, b) * R;
    replaceConstant(graph, *consumer, 1, wc);
  }
}

// x' = x (Ha (x) Hb), inserted before `before`. Reading x's last dimension as [a, b] (row-major),
// x (Ha (x) Hb) = Ha^T X Hb: a matmul by Hb, a transpose, a matmul by Ha, a transpose (a = 1: one
// matmul). Returns x', or null with `why` set.
Value *onlineRotation(Graph &graph, Node &before, Value *x, const Eigen::MatrixXd &Ha, const Eigen::MatrixXd &Hb,
                      std::string &why) {
  const int64_t a = Ha.rows(), b = Hb.rows();
  const OpKey matmul = OpKey::parseOrThrow("aten::matmul.default");
  const OpKey transpose = OpKey::parseOrThrow("aten::transpose.int");
  const std::string prefix = (x->producer() != nullptr ? x->producer()->name() : x->name()) + "_online_hadamard";
  rewrite::Builder build(graph, &before, prefix);
  using rewrite::A;
  Shape split = x->shape();
  split.back() = Dim(b);
  split.insert(split.end() - 1, Dim(a));
  Value *input = a == 1 ? x : build.reshape(x, split);
  if (input == nullptr) {
    why = "its input's shape cannot be split into [" + std::to_string(a) + ", " + std::to_string(b) + "]";
    return nullptr;
  }
  Value *hb = build.constant(tensorOf(Hb, {b, b}), "_b");
  Value *y = build.value(matmul, {A(input), A(hb)}, DType::Float32, input->shape(), "_matmul_b");
  if (a == 1)
    return y;
  Shape swapped = split;
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  Value *ha = build.constant(tensorOf(Ha, {a, a}), "_a");
  Value *t = build.value(transpose, {A(y), A(int64_t{-1}), A(int64_t{-2})}, DType::Float32, swapped, "_transpose");
  Value *m = build.value(matmul, {A(t), A(ha)}, DType::Float32, swapped, "_matmul_a");
  Value *back =
      build.value(transpose, {A(m), A(int64_t{-1}), A(int64_t{-2})}, DType::Float32, split, "_transpose_back");
  Value *out = build.reshape(back, x->shape());
  if (out == nullptr)
    why = "its input's shape cannot be restored after the split";
  return out;
}

// An online Hadamard rotation of `linear`'s input and W' = W (Ha (x) Hb). Linears reading the same
// input share one rotation (`rotated`: input -> its rotation). Returns the reason it cannot, or "".
std::string applyOnlineHadamard(Graph &graph, Node &linear, std::map<const Value *, Value *> &rotated) {
  Value *x = linear.input(0);
  const Value *weight = linear.input(1);
  if (!weight->isConstant() || weight->dtype() != DType::Float32 || weight->constant()->sizes.size() != 2)
    return "its weight is not a float constant";
  if (x->dtype() != DType::Float32 || x->rank() < 1 || !x->shape().back().isStatic())
    return "its input has no static float last dimension";
  const int64_t n = x->shape().back().value();
  if (weight->constant()->sizes[1] != n)
    return "its weight has " + std::to_string(weight->constant()->sizes[1]) + " input columns for an input of " +
           std::to_string(n);
  if (!hadamardCore(n))
    return "no Hadamard matrix of order " + std::to_string(n) + " (docs/quantizers.md, \"Rotations\")";
  const auto [a, b] = kroneckerFactors(n);
  const Eigen::MatrixXd Ha = normalizedHadamard(a), Hb = normalizedHadamard(b);
  auto it = rotated.find(x);
  if (it == rotated.end()) {
    std::string why;
    Value *y = onlineRotation(graph, linear, x, Ha, Hb, why);
    if (y == nullptr)
      return why;
    it = rotated.emplace(x, y).first;
  }
  // The weight changes only once the rotation is in place: a failure above leaves the layer as it was.
  RowMatrix w = matrixOf(*weight->constant());
  for (Eigen::Index r = 0; r < w.rows(); ++r) {
    RowMatrix X = Eigen::Map<RowMatrix>(w.row(r).data(), a, b);
    const RowMatrix Y = Ha.transpose() * X * Hb;
    w.row(r) = Eigen::Map<const Eigen::RowVectorXd>(Y.data(), n);
  }
  replaceConstant(graph, linear, 1, w);
  linear.replaceInput(x, it->second);
  return "";
}

} // namespace

std::vector<OptionSpec> Settings::specs() {
  return {
      {"head_rotation", OptionType::Bool, true,
       "rotate each head of a value projection and counter-rotate the output projection reading it (R2, offline)"},
      {"online", OptionType::StringList, std::vector<std::string>{},
       "linear node-name globs that get an online Hadamard rotation of their input (R4, e.g. '*down_proj*'), "
       "emitted as two small matmuls"},
      {"rotation", OptionType::String, std::string("hadamard"),
       "hadamard (random orthogonal where no Hadamard matrix of the size exists) or random (seeded)"},
      {"seed", OptionType::Int, int64_t{0}, "seed of the random rotations"},
      {"exclude", OptionType::StringList, std::vector<std::string>{}, "linear node-name globs left unrotated"},
  };
}

Settings Settings::from(const Options &o) {
  Settings s;
  s.head_rotation = o.getBool("head_rotation");
  s.online = o.getStringList("online");
  s.rotation = o.getString("rotation");
  if (s.rotation != "hadamard" && s.rotation != "random")
    throw Error("rotate: rotation must be hadamard or random, got '" + s.rotation + "'");
  const int64_t seed = o.getInt("seed");
  if (seed < 0)
    throw Error("rotate: seed must be >= 0, got " + std::to_string(seed));
  s.seed = static_cast<uint64_t>(seed);
  s.exclude = o.getStringList("exclude");
  return s;
}

bool Rotate::convert(Graph &graph, QuantizeContext &context) {
  bool changed = false;
  // Both selections are made on the graph as given: a rotated weight is a new constant without
  // the parameter target a glob may name.
  const quant::SelectorNames names(graph);
  std::vector<Node *> linears;
  for (const auto &node : graph.nodes())
    if (!settings_.online.empty() && node->opId() == ops::aten::linear_default &&
        selected(settings_.online, names, *node) && !selected(settings_.exclude, names, *node))
      linears.push_back(node.get());
  if (settings_.head_rotation) {
    std::vector<std::string> skipped;
    for (const HeadRotationGroup &group : findHeadRotations(graph, skipped)) {
      bool excluded = selected(settings_.exclude, names, *group.producer);
      for (const Node *consumer : group.consumers)
        excluded = excluded || selected(settings_.exclude, names, *consumer);
      if (excluded)
        continue;
      bool hadamard = false;
      const Eigen::MatrixXd R = blockMatrix(group.block, settings_, hadamard);
      const std::string subject = group.producer->name();
      applyHeadRotation(graph, group, R);
      context.report(subject, "rotate_head_block", static_cast<double>(group.block));
      context.report(subject, "rotate_head_hadamard", hadamard ? 1.0 : 0.0);
      std::string readers;
      for (const Node *consumer : group.consumers)
        readers += (readers.empty() ? "" : ", ") + consumer->name();
      std::string caches;
      for (const Value *state : group.state_inputs)
        caches += (caches.empty() ? "" : ", ") + state->name();
      TICO_DEBUG << "rotate: " << subject << " rotated in blocks of " << group.block << " ("
                 << (hadamard ? "Hadamard" : "random") << "), counter-rotated in " << readers
                 << (caches.empty() ? std::string() : "; caches holding rotated values: " + caches);
      changed = true;
    }
    for (const std::string &line : skipped)
      TICO_DEBUG << "rotate: no head rotation after " << line;
  }
  if (!settings_.online.empty()) {
    std::map<const Value *, Value *> rotated;
    for (Node *linear : linears) {
      const std::string why = applyOnlineHadamard(graph, *linear, rotated);
      if (!why.empty()) {
        TICO_WARN << "rotate: no online Hadamard before " << linear->name() << ": " << why;
        continue;
      }
      // The order rotated: the weight's input width (checked equal to the input's last dimension).
      context.report(linear->name(), "rotate_online_order",
                     static_cast<double>(linear->input(1)->constant()->sizes[1]));
      changed = true;
    }
    if (linears.empty())
      TICO_WARN << "rotate: no linear layer matches online globs; nothing rotated online";
  }
  graph.removeUnusedConstants();
  return changed;
}

} // namespace tico::rotate
