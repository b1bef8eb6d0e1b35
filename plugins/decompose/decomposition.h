// The decomposition table and the pass that applies part of it.
//
// A decomposition rewrites one node of a composite op into simpler ops, inserted before it
// with the SDK's node builder (tico/rewrite/builder.h); the rules of each op make one rewrite
// pattern (tico/rewrite/pattern.h). Each pass of this plugin applies the rules of a set of op
// families; every pass takes the option `preserve`, a list of op keys it must leave alone
// (e.g. an op a vendor lowering takes as a whole).
#pragma once

#include "pass_support.h"

#include "tico/ir/graph.h"
#include "tico/plugin/registry.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tico::decompose {

using passes::Builder;

// The replacement of each output of the node; a null entry means the output has no
// replacement and must be unused. nullopt: the rule does not apply to this node (left as is).
using Replacement = std::optional<std::vector<Value *>>;
using Rewrite = std::function<Replacement(Builder &, Node &)>;

struct Rule {
  std::string op; // canonical op key, "aten::layer_norm.default"
  Rewrite rewrite;
};

// The rule families, one per source file.
std::vector<Rule> addmmRules();
std::vector<Rule> sliceScatterRules();
std::vector<Rule> normRules();      // layer_norm, group_norm and their native_ forms
std::vector<Rule> batchNormRules(); // batch_norm (eval), _native_batch_norm_legit_no_training
std::vector<Rule> attentionRules(); // scaled_dot_product_attention
std::vector<Rule> dropoutRules();   // dropout family: identity in eval mode, error in training
std::vector<Rule> activationRules(); // mish, softplus, log_sigmoid, celu, selu, glu, ...
std::vector<Rule> chunkRules();      // chunk, unsafe_chunk
std::vector<Rule> repeatInterleaveRules(); // repeat_interleave with a static int count
std::vector<Rule> rnnCellRules();    // rnn_tanh_cell, rnn_relu_cell, gru_cell, lstm_cell
std::vector<Rule> rnnSequenceRules(); // lstm, gru, rnn_tanh, rnn_relu over a whole sequence (rnn_sequences.cpp)
std::vector<Rule> mathRules();       // ops with no Circle counterpart rewritten from ones that have (math_rules.cpp)
std::vector<Rule> layoutRules();     // raw view/layout/matmul-family ops (layout_rules.cpp)
std::vector<Rule> windowRules();     // pooling, padding and transposed-conv cases Circle lacks (window_rules.cpp)
std::vector<Rule> cumsumRules();     // cumsum as a product with a triangular matrix (math_cumsum.cpp)
std::vector<Rule> aliasRules();    // multiply, subtract, clip, concat, arccos, special_*, ... (aliases.cpp)
std::vector<Rule> rank0Rules();    // index_select, gather, max.dim, topk, scatter, softmax of a 0-d tensor; zero, heaviside, ... (rank0_ops.cpp)
std::vector<Rule> mathCompositeRules(); // std_mean, nansum, multi_dot, matrix_power, fftshift, cross, ... (math_composites.cpp)
std::vector<Rule> arrayOpRules();  // ravel, rot90, meshgrid, broadcast_tensors, diag_embed, block_diag, ... (array_ops.cpp)
std::vector<Rule> convenienceRules(); // numpy_T, mT, reshape_as, addcmul, lerp, logsumexp, ... (convenience.cpp)

// Registers a pass named `name` applying `rules`, with the `preserve` option.
void registerDecomposePass(Registrar &registrar, std::string name, std::string summary, std::vector<Rule> rules);

// ---- helpers shared by the rules ----

// The replacement of a one-output node: `v`, or "the rule does not apply" when `v` is null (a
// builder helper that could not build it).
inline Replacement one(Value *v) { return v ? Replacement(std::vector<Value *>{v}) : std::nullopt; }

// The number in `node`'s argument `name`, or `fallback` when it is None.
double numberArg(const Node &node, std::string_view name, double fallback);
// The value of a Tensor? argument, or null when it is None.
Value *optionalValue(const Node &node, std::string_view name);
// Whether every output but the first is unused (the auxiliary outputs of native_* ops).
bool onlyFirstOutputUsed(const Graph &graph, const Node &node);

} // namespace tico::decompose
