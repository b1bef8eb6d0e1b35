// einsum as bmm products: two operands ("bhqd,bhkd->bhqk") are one bmm, where each letter is
// a batch dim (both operands and the output), a contracted dim (both operands only), a free
// dim of one operand (that operand and the output) or a dim summed away up front (one operand
// only). Each operand is permuted and reshaped to [batch, free, contracted] (the right one to
// [batch, contracted, free]), multiplied with bmm, and the product reshaped back and permuted
// into the output's letter order. More operands are multiplied left to right, each product
// keeping the letters the output or a later operand needs; one operand is summed and
// permuted. A letter repeated in one operand ("ii->i", "iji->j") reads its diagonal first; an
// equation without "->" has NumPy's implicit output (the letters seen once, alphabetically).
// Needs static shapes with equal sizes for a shared letter; ellipses are left alone.
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

// left x right as one bmm, the result's letters in `output` (each letter of output is in
// left or right; letters in neither output nor the other operand are summed away first).
Value *contractPair(Builder &b, Operand left, Operand right, const std::string &output) {
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
    return nullptr;
  Value *bmm = b.make("aten::bmm.default", {A(lhs), A(rhs)});
  std::vector<int64_t> sizes;
  for (char c : batch + left_free)
    sizes.push_back(sizeOf(left, c));
  for (char c : right_free)
    sizes.push_back(sizeOf(right, c));
  Value *unpacked = reshapeTo(b, bmm, sizes);
  if (unpacked == nullptr)
    return nullptr;
  return arrange(b, Operand{unpacked, batch + left_free + right_free}, output);
}

// `op` with each letter repeated in it (a diagonal, "ii->i") read once: the diagonal of the
// two dims, which diagonalOf() moves last.
std::optional<Operand> takeDiagonals(Builder &b, Operand op) {
  for (std::size_t i = 0; i < op.letters.size(); ++i) {
    const std::size_t j = op.letters.find(op.letters[i], i + 1);
    if (j == std::string::npos)
      continue;
    if (sizeOf(op, op.letters[i]) != op.value->shape()[j].value())
      return std::nullopt;
    Value *diagonal = diagonalOf(b, op.value, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));
    if (diagonal == nullptr)
      return std::nullopt;
    const char letter = op.letters[i];
    op.letters.erase(j, 1);
    op.letters.erase(i, 1);
    op = Operand{diagonal, op.letters + letter};
    i = static_cast<std::size_t>(-1); // start again: the letters moved
  }
  return op;
}

Replacement einsum(Builder &b, Node &n) {
  std::string equation;
  for (char c : n.arg("equation").asString())
    if (c != ' ')
      equation += c;
  const std::vector<Value *> &tensors = n.arg("tensors").asValues();
  if (tensors.empty() || contains(equation, '.'))
    return std::nullopt;
  const std::size_t arrow = equation.find("->");
  const std::string inputs = equation.substr(0, arrow);
  std::vector<std::string> terms{""};
  for (char c : inputs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back().push_back(c);
  }
  if (terms.size() != tensors.size())
    return std::nullopt;
  std::string output;
  if (arrow != std::string::npos) {
    output = equation.substr(arrow + 2);
  } else { // implicit: the letters seen once, in alphabetical order
    for (char c = 'A'; c <= 'z'; ++c)
      if (std::isalpha(static_cast<unsigned char>(c)) && std::count(inputs.begin(), inputs.end(), c) == 1)
        output += c;
  }
  std::vector<Operand> operands;
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    Operand op{tensors[t], terms[t]};
    if (static_cast<int64_t>(op.letters.size()) != op.value->rank())
      return std::nullopt;
    for (std::size_t i = 0; i < op.letters.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(op.letters[i])) || !op.value->shape()[i].isStatic())
        return std::nullopt;
    operands.push_back(op);
  }
  for (std::size_t i = 0; i < output.size(); ++i)
    if (output.find(output[i]) != i || !contains(inputs, output[i]))
      return std::nullopt;
  for (std::size_t x = 0; x < operands.size(); ++x)
    for (std::size_t y = x; y < operands.size(); ++y)
      for (std::size_t i = 0; i < operands[x].letters.size(); ++i)
        for (std::size_t j = 0; j < operands[y].letters.size(); ++j)
          if (operands[x].letters[i] == operands[y].letters[j] &&
              operands[x].value->shape()[i].value() != operands[y].value->shape()[j].value())
            return std::nullopt; // size-1 broadcasting of a shared letter is not handled
  for (Operand &op : operands) {
    auto single = takeDiagonals(b, op);
    if (!single)
      return std::nullopt;
    op = *single;
  }
  // Left to right, two operands at a time; each product keeps the letters the output or a
  // later operand needs.
  while (operands.size() > 1) {
    std::string needed = output;
    for (std::size_t k = 2; k < operands.size(); ++k)
      needed += operands[k].letters;
    std::string kept;
    for (char c : operands[0].letters + operands[1].letters)
      if (contains(needed, c) && !contains(kept, c))
        kept += c;
    Value *product = contractPair(b, operands[0], operands[1], kept);
    if (product == nullptr)
      return std::nullopt;
    operands.erase(operands.begin());
    operands[0] = Operand{product, kept};
  }
  Operand last = sumAway(b, operands[0], "", output);
  Value *result = arrange(b, last, output);
  if (result == tensors[0])
    result = b.make("aten::alias.default", {A(result)});
  return std::vector<Value *>{result};
}

} // namespace

std::vector<Rule> layoutEinsumRules() { return {{"aten::einsum.default", einsum}}; }

} // namespace tico::decompose
