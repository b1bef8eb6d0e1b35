// einsum of two operands with an explicit output ("bhqd,bhkd->bhqk") as one bmm: each letter
// is a batch dim (both operands and the output), a contracted dim (both operands only), a
// free dim of one operand (that operand and the output) or a dim summed away up front (one
// operand only). Each operand is permuted and reshaped to [batch, free, contracted] (the
// right one to [batch, contracted, free]), multiplied with bmm, and the product reshaped back
// and permuted into the output's letter order. Needs static shapes with equal sizes for a
// shared letter; ellipses, repeated letters in one operand (diagonals) and other operand
// counts are left alone.
#include "layout_rules.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

struct Operand {
  Value *value;
  std::string letters; // one per dim of value
};

int64_t sizeOf(const Operand &op, char letter) {
  return op.value->shape()[op.letters.find(letter)].value();
}

bool contains(const std::string &text, char c) { return text.find(c) != std::string::npos; }

// `op` with the dims of `letters` summed away.
Operand sumAway(Builder &b, Operand op, const std::string &other, const std::string &output) {
  std::vector<int64_t> dims;
  std::string kept;
  for (std::size_t i = 0; i < op.letters.size(); ++i) {
    if (contains(other, op.letters[i]) || contains(output, op.letters[i]))
      kept += op.letters[i];
    else
      dims.push_back(static_cast<int64_t>(i));
  }
  if (dims.empty())
    return op;
  return {b.make("aten::sum.dim_IntList", {A(op.value), Ints(dims)}), kept};
}

// `op` permuted so its letters read `order` (no node when they already do).
Value *arrange(Builder &b, const Operand &op, const std::string &order) {
  std::vector<int64_t> perm;
  for (char c : order)
    perm.push_back(static_cast<int64_t>(op.letters.find(c)));
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  return identity ? op.value : b.permute(op.value, perm);
}

int64_t product(const Operand &op, const std::string &letters) {
  int64_t p = 1;
  for (char c : letters)
    p *= sizeOf(op, c);
  return p;
}

// x reshaped to `sizes` (no node when it already has them).
Value *reshapeTo(Builder &b, Value *x, const std::vector<int64_t> &sizes) {
  Shape target;
  for (int64_t s : sizes)
    target.push_back(Dim(s));
  return x->shape() == target ? x : b.reshape(x, target);
}

Replacement einsum(Builder &b, Node &n) {
  std::string equation;
  for (char c : n.arg("equation").asString())
    if (c != ' ')
      equation += c;
  const std::vector<Value *> &tensors = n.arg("tensors").asValues();
  const std::size_t comma = equation.find(',');
  const std::size_t arrow = equation.find("->");
  if (tensors.size() != 2 || comma == std::string::npos || arrow == std::string::npos || arrow < comma ||
      contains(equation, '.'))
    return std::nullopt;
  Operand left{tensors[0], equation.substr(0, comma)};
  Operand right{tensors[1], equation.substr(comma + 1, arrow - comma - 1)};
  const std::string output = equation.substr(arrow + 2);
  for (const Operand *op : {&left, &right}) {
    if (static_cast<int64_t>(op->letters.size()) != op->value->rank())
      return std::nullopt;
    for (std::size_t i = 0; i < op->letters.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(op->letters[i])) || !op->value->shape()[i].isStatic() ||
          op->letters.find(op->letters[i]) != i)
        return std::nullopt;
  }
  for (std::size_t i = 0; i < output.size(); ++i)
    if (output.find(output[i]) != i || (!contains(left.letters, output[i]) && !contains(right.letters, output[i])))
      return std::nullopt;
  for (char c : left.letters)
    if (contains(right.letters, c) && sizeOf(left, c) != sizeOf(right, c))
      return std::nullopt; // size-1 broadcasting of a shared letter is not handled

  std::string batch, contracted, left_free, right_free;
  for (char c : left.letters) {
    if (contains(right.letters, c))
      (contains(output, c) ? batch : contracted) += c;
    else if (contains(output, c))
      left_free += c;
  }
  for (char c : right.letters)
    if (!contains(left.letters, c) && contains(output, c))
      right_free += c;
  left = sumAway(b, left, right.letters, output);
  right = sumAway(b, right, left.letters, output);

  const int64_t nb = product(left, batch), nc = product(left, contracted);
  const int64_t nl = product(left, left_free), nr = product(right, right_free);
  Value *lhs = reshapeTo(b, arrange(b, left, batch + left_free + contracted), {nb, nl, nc});
  Value *rhs = reshapeTo(b, arrange(b, right, batch + contracted + right_free), {nb, nc, nr});
  if (lhs == nullptr || rhs == nullptr)
    return std::nullopt;
  Value *bmm = b.make("aten::bmm.default", {A(lhs), A(rhs)});
  std::vector<int64_t> sizes;
  for (char c : batch + left_free)
    sizes.push_back(sizeOf(left, c));
  for (char c : right_free)
    sizes.push_back(sizeOf(right, c));
  Value *unpacked = reshapeTo(b, bmm, sizes);
  if (unpacked == nullptr)
    return std::nullopt;
  return std::vector<Value *>{arrange(b, Operand{unpacked, batch + left_free + right_free}, output)};
}

} // namespace

std::vector<Rule> layoutEinsumRules() { return {{"aten::einsum.default", einsum}}; }

} // namespace tico::decompose
