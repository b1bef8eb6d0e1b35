// Recurrent cells torch.export records as one op (nn.RNNCell, nn.GRUCell, nn.LSTMCell, and
// the loops users write around them) become linear layers and gates, PyTorch's formulas:
//   rnn:  h' = act(W_ih x + b_ih + W_hh h + b_hh)
//   gru:  r = σ(i_r + h_r), z = σ(i_z + h_z), n = tanh(i_n + r * h_n), h' = n + z * (h - n)
//         with [i_r, i_z, i_n] = W_ih x + b_ih and [h_r, h_z, h_n] = W_hh h + b_hh
//   lstm: [i, f, g, o] = W_ih x + b_ih + W_hh h + b_hh
//         c' = σ(f) * c + σ(i) * tanh(g), h' = σ(o) * tanh(c')
// The gate blocks are slices of the last dim.
#include "decomposition.h"

namespace tico::decompose {

using passes::A;

namespace {

Value *linear(Builder &b, Value *x, Value *w, Value *bias) {
  return b.make("aten::linear.default", {A(x), A(w), bias ? A(bias) : Argument::none()});
}

Value *unary(Builder &b, const char *op, Value *x) { return b.make(std::string("aten::") + op + ".default", {A(x)}); }

// The `count` equal blocks of the last dim of v.
std::optional<std::vector<Value *>> gateBlocks(Builder &b, Value *v, int64_t count) {
  const Dim &last = v->shape().back();
  if (!last.isStatic() || last.value() % count != 0)
    return std::nullopt;
  const int64_t width = last.value() / count;
  const auto dim = static_cast<int64_t>(v->rank()) - 1;
  std::vector<Value *> blocks;
  for (int64_t i = 0; i < count; ++i)
    blocks.push_back(b.make("aten::slice.Tensor", {A(v), A(dim), A(i * width), A((i + 1) * width), A(int64_t{1})}));
  return blocks;
}

Replacement rnnCell(Builder &b, Node &n, const char *activation) {
  // Operands built one statement at a time: argument evaluation order is unspecified, and the
  // printed graph should not depend on the compiler.
  Value *from_input = linear(b, n.input("input"), n.input("w_ih"), optionalValue(n, "b_ih"));
  Value *from_state = linear(b, n.input("hx"), n.input("w_hh"), optionalValue(n, "b_hh"));
  Value *pre = b.add(A(from_input), A(from_state));
  return std::vector<Value *>{unary(b, activation, pre)};
}

Replacement gruCell(Builder &b, Node &n) {
  Value *h = n.input("hx");
  Value *gi = linear(b, n.input("input"), n.input("w_ih"), optionalValue(n, "b_ih"));
  Value *gh = linear(b, h, n.input("w_hh"), optionalValue(n, "b_hh"));
  auto i = gateBlocks(b, gi, 3);
  auto g = gateBlocks(b, gh, 3);
  if (!i || !g)
    return std::nullopt;
  Value *r = unary(b, "sigmoid", b.add(A((*i)[0]), A((*g)[0])));
  Value *z = unary(b, "sigmoid", b.add(A((*i)[1]), A((*g)[1])));
  Value *cand = unary(b, "tanh", b.add(A((*i)[2]), A(b.mul(A(r), A((*g)[2])))));
  return std::vector<Value *>{b.add(A(cand), A(b.mul(A(z), A(b.sub(A(h), A(cand))))))};
}

Replacement lstmCell(Builder &b, Node &n) {
  const std::vector<Value *> &state = n.arg("hx").asValues();
  if (state.size() != 2)
    return std::nullopt;
  Value *from_input = linear(b, n.input("input"), n.input("w_ih"), optionalValue(n, "b_ih"));
  Value *from_state = linear(b, state[0], n.input("w_hh"), optionalValue(n, "b_hh"));
  Value *gates = b.add(A(from_input), A(from_state));
  auto blocks = gateBlocks(b, gates, 4);
  if (!blocks)
    return std::nullopt;
  Value *in = unary(b, "sigmoid", (*blocks)[0]);
  Value *forget = unary(b, "sigmoid", (*blocks)[1]);
  Value *cell = unary(b, "tanh", (*blocks)[2]);
  Value *out = unary(b, "sigmoid", (*blocks)[3]);
  Value *kept = b.mul(A(forget), A(state[1]));
  Value *written = b.mul(A(in), A(cell));
  Value *c = b.add(A(kept), A(written));
  Value *h = b.mul(A(out), A(unary(b, "tanh", c)));
  return std::vector<Value *>{h, c};
}

} // namespace

std::vector<Rule> rnnCellRules() {
  return {
      {"aten::rnn_tanh_cell.default", [](Builder &b, Node &n) { return rnnCell(b, n, "tanh"); }},
      {"aten::rnn_relu_cell.default", [](Builder &b, Node &n) { return rnnCell(b, n, "relu"); }},
      {"aten::gru_cell.default", gruCell},
      {"aten::lstm_cell.default", lstmCell},
  };
}

} // namespace tico::decompose
