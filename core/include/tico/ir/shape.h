// Shapes with optional symbolic dimensions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico {

// One dimension: either a fixed size or a symbolic expression over export-time symbols
// ("s0", "2*s0", "s0 + 1") together with the example value PyTorch recorded as its hint.
class Dim {
public:
  Dim() = default;
  Dim(int64_t fixed) : value_(fixed) {} // NOLINT: implicit on purpose, shapes read like {2, 3}
  static Dim symbolic(std::string expr, int64_t hint) {
    Dim d(hint);
    d.expr_ = std::move(expr);
    return d;
  }

  bool isStatic() const { return expr_.empty(); }
  bool isSymbolic() const { return !expr_.empty(); }
  // The fixed size, or the hint of a symbolic dimension.
  int64_t value() const { return value_; }
  // Expression text of a symbolic dimension; empty when static.
  const std::string &expr() const { return expr_; }

  bool operator==(const Dim &other) const {
    return expr_ == other.expr_ && (isSymbolic() || value_ == other.value_);
  }
  bool operator!=(const Dim &other) const { return !(*this == other); }

private:
  int64_t value_ = 0;
  std::string expr_;
};

using Shape = std::vector<Dim>;

bool isStatic(const Shape &shape);
// Product of dims using hints for symbolic ones.
int64_t numElementsHint(const Shape &shape);
// Concrete sizes using hints for symbolic dims.
std::vector<int64_t> hintSizes(const Shape &shape);
Shape staticShape(const std::vector<int64_t> &sizes);
// "[2, s0, 4]"
std::string shapeString(const Shape &shape);

// Inclusive value range of an export-time symbol (torch.export range_constraints).
struct SymbolRange {
  int64_t min = 0;
  std::optional<int64_t> max; // nullopt = unbounded
};

} // namespace tico
