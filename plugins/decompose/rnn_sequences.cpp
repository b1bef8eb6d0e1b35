// Full-sequence recurrent layers (nn.LSTM, nn.GRU, nn.RNN: aten::lstm.input, gru.input,
// rnn_tanh.input, rnn_relu.input) unrolled over a static sequence length into the cell
// formulas of rnn_cells.cpp, which every runtime here runs (Circle's sequence-LSTM operators
// have no kernel in onert 0.2 and none for GRU at all):
//
//   for each layer, for each direction (the backward one walks the steps in reverse):
//     X W_ih^T + b_ih for all steps at once (one FULLY_CONNECTED), then per step the recurrent
//     product h W_hh^T + b_hh and the gates; LSTM projections (proj_size) apply W_hr to h;
//   the layer's output is its steps' h stacked along time, both directions concatenated along
//   the features; h_n (and c_n) stack the last states of every layer and direction.
//
// Multi-layer, bidirectional, batch-first, given or zero initial states and projections are
// covered; an unbatched (2-D) input, a symbolic sequence length, or training-mode dropout
// between layers leave the node alone (reported as unsupported).
#include "decomposition.h"

#include "tico/ir/shape_utils.h"

namespace tico::decompose {

using passes::A;

namespace {

enum class Cell { Lstm, Gru, RnnTanh, RnnRelu };

int64_t gateCount(Cell cell) { return cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1; }

Value *linear(Builder &b, Value *x, Value *w, Value *bias) {
  return b.make("aten::linear.default", {A(x), A(w), bias ? A(bias) : Argument::none()});
}

Value *unary(Builder &b, const char *op, Value *x) { return b.make(std::string("aten::") + op + ".default", {A(x)}); }

// stack(values, 0) as unsqueezes and one cat (cat has a type rule and a Circle lowering).
Value *stacked(Builder &b, const std::vector<Value *> &values) {
  std::vector<Value *> rows;
  for (Value *v : values)
    rows.push_back(b.make("aten::unsqueeze.default", {A(v), A(int64_t{0})}));
  return rows.size() == 1 ? rows[0] : b.make("aten::cat.default", {Argument::values(rows), A(int64_t{0})});
}

Value *block(Builder &b, Value *v, int64_t index, int64_t width) {
  const auto dim = static_cast<int64_t>(v->rank()) - 1;
  return b.make("aten::slice.Tensor", {A(v), A(dim), A(index * width), A((index + 1) * width), A(int64_t{1})});
}

struct Weights {
  Value *w_ih = nullptr, *w_hh = nullptr, *b_ih = nullptr, *b_hh = nullptr, *w_hr = nullptr;
};

// One step of the cell: `xw` is this step's W_ih x + b_ih, h (and c) the state, updated in place.
void step(Builder &b, Cell cell, const Weights &w, Value *xw, Value *&h, Value *&c, int64_t hidden) {
  Value *hw = linear(b, h, w.w_hh, w.b_hh);
  switch (cell) {
  case Cell::RnnTanh:
  case Cell::RnnRelu:
    h = unary(b, cell == Cell::RnnTanh ? "tanh" : "relu", b.add(A(xw), A(hw)));
    return;
  case Cell::Gru: {
    // One node per statement: the order of a call's arguments is unspecified, the graph's must not be.
    Value *xr = block(b, xw, 0, hidden), *xz = block(b, xw, 1, hidden), *xn = block(b, xw, 2, hidden);
    Value *hr = block(b, hw, 0, hidden), *hz = block(b, hw, 1, hidden), *hn = block(b, hw, 2, hidden);
    Value *r = unary(b, "sigmoid", b.add(A(xr), A(hr)));
    Value *z = unary(b, "sigmoid", b.add(A(xz), A(hz)));
    Value *n = unary(b, "tanh", b.add(A(xn), A(b.mul(A(r), A(hn)))));
    h = b.add(A(n), A(b.mul(A(z), A(b.sub(A(h), A(n))))));
    return;
  }
  case Cell::Lstm: {
    Value *gates = b.add(A(xw), A(hw));
    Value *i = unary(b, "sigmoid", block(b, gates, 0, hidden));
    Value *f = unary(b, "sigmoid", block(b, gates, 1, hidden));
    Value *g = unary(b, "tanh", block(b, gates, 2, hidden));
    Value *o = unary(b, "sigmoid", block(b, gates, 3, hidden));
    Value *kept = b.mul(A(f), A(c));
    Value *written = b.mul(A(i), A(g));
    c = b.add(A(kept), A(written));
    h = b.mul(A(o), A(unary(b, "tanh", c)));
    if (w.w_hr)
      h = linear(b, h, w.w_hr, nullptr);
    return;
  }
  }
}

Replacement sequence(Builder &b, Node &n, Cell cell) {
  Value *x = n.input("input");
  const bool has_biases = n.arg("has_biases").asBool();
  const int64_t layers = n.arg("num_layers").asInt();
  const bool train = n.arg("train").asBool();
  const bool bidirectional = n.arg("bidirectional").asBool();
  const bool batch_first = n.arg("batch_first").asBool();
  const double dropout = numberArg(n, "dropout", 0.0);
  if (x->rank() != 3 || layers < 1 || (train && dropout > 0.0 && layers > 1))
    return std::nullopt;
  const int64_t directions = bidirectional ? 2 : 1;
  const auto &params = n.arg("params").asValues();
  const int64_t per_direction = static_cast<int64_t>(params.size()) / (layers * directions);
  const int64_t plain = has_biases ? 4 : 2;
  const bool projected = cell == Cell::Lstm && per_direction == plain + 1;
  if (per_direction * layers * directions != static_cast<int64_t>(params.size()) || (per_direction != plain && !projected))
    return std::nullopt;
  const Dim &steps_dim = x->shape()[batch_first ? 1 : 0];
  if (!steps_dim.isStatic() || steps_dim.value() < 1)
    return std::nullopt;
  const int64_t steps = steps_dim.value();
  // Initial states [layers * directions, B, H]: hx is a list (h0, c0) for lstm, one tensor else.
  Value *h0 = nullptr, *c0 = nullptr;
  if (cell == Cell::Lstm) {
    const auto &hx = n.arg("hx").asValues();
    if (hx.size() != 2)
      return std::nullopt;
    h0 = hx[0];
    c0 = hx[1];
  } else {
    h0 = n.input("hx");
  }
  // Everything is checked before the first node is made (a rule that declines leaves no trace).
  if (n.numOutputs() != (cell == Cell::Lstm ? 3u : 2u))
    return std::nullopt;
  for (std::size_t k = 1; k < params.size(); k += static_cast<std::size_t>(per_direction)) {
    const Shape &rows = params[k]->shape(); // W_hh: [gates * hidden, hidden or proj]
    if (rows.empty() || !rows[0].isStatic() || rows[0].value() % gateCount(cell) != 0)
      return std::nullopt;
  }
  // Time first: [T, B, F].
  Value *seq = batch_first ? b.permute(x, {1, 0, 2}) : x;
  std::vector<Value *> last_h, last_c;
  Value *layer_input = seq;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Value *> direction_outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t index = layer * directions + d;
      const std::size_t base = static_cast<std::size_t>(index * per_direction);
      Weights w;
      w.w_ih = params[base];
      w.w_hh = params[base + 1];
      if (has_biases) {
        w.b_ih = params[base + 2];
        w.b_hh = params[base + 3];
      }
      if (projected)
        w.w_hr = params[base + static_cast<std::size_t>(plain)];
      const int64_t hidden = w.w_hh->shape()[0].value() / gateCount(cell);
      Value *h = b.make("aten::select.int", {A(h0), A(int64_t{0}), A(index)});
      Value *c = c0 ? b.make("aten::select.int", {A(c0), A(int64_t{0}), A(index)}) : nullptr;
      Value *xw = linear(b, layer_input, w.w_ih, w.b_ih); // every step's input product at once
      std::vector<Value *> outputs(static_cast<std::size_t>(steps));
      for (int64_t k = 0; k < steps; ++k) {
        const int64_t t = d == 0 ? k : steps - 1 - k;
        step(b, cell, w, b.make("aten::select.int", {A(xw), A(int64_t{0}), A(t)}), h, c, hidden);
        outputs[static_cast<std::size_t>(t)] = h;
      }
      direction_outputs.push_back(stacked(b, outputs));
      last_h.push_back(h);
      if (c)
        last_c.push_back(c);
    }
    layer_input = directions == 1 ? direction_outputs[0]
                                  : b.make("aten::cat.default", {Argument::values(direction_outputs), A(int64_t{2})});
  }
  Value *output = batch_first ? b.permute(layer_input, {1, 0, 2}) : layer_input;
  std::vector<Value *> results{output, stacked(b, last_h)};
  if (cell == Cell::Lstm)
    results.push_back(stacked(b, last_c));
  return results;
}

} // namespace

std::vector<Rule> rnnSequenceRules() {
  return {{"aten::lstm.input", [](Builder &b, Node &n) { return sequence(b, n, Cell::Lstm); }},
          {"aten::gru.input", [](Builder &b, Node &n) { return sequence(b, n, Cell::Gru); }},
          {"aten::rnn_tanh.input", [](Builder &b, Node &n) { return sequence(b, n, Cell::RnnTanh); }},
          {"aten::rnn_relu.input", [](Builder &b, Node &n) { return sequence(b, n, Cell::RnnRelu); }}};
}

} // namespace tico::decompose
