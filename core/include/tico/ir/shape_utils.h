// The one set of shape utilities passes, type rules, lowerings and kernels share: dim
// normalisation, broadcasting (symbolic and static), element counts, and exact arithmetic on
// dims that may be symbolic ("s0", "4*s0").
//
// Symbolic arithmetic treats a dim as a monomial: an integer coefficient times a multiset of
// opaque symbolic factors ("s0", "s1 + 1"). Products and quotients of monomials are exact;
// anything else (a quotient that does not cancel) is reported as unknown rather than guessed.
// Expressions are written the way the .pt2 importer writes sympy products (coefficient first,
// then factors in name order: "4*s0*s1"), so a dim computed here compares equal to the same dim
// read from a file.
#pragma once

#include "tico/ir/shape.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tico {

// ---- dims --------------------------------------------------------------------------------------

// `dim` in [-rank, rank) mapped to [0, rank), PyTorch's dim wrapping (a rank-0 tensor counts as
// rank 1, so 0 and -1 are valid for it); nullopt when out of range.
std::optional<int64_t> tryNormalizeDim(int64_t dim, int64_t rank);
// The same, throwing tico::Error "dimension D is out of range for a tensor of rank R".
int64_t normalizeDim(int64_t dim, int64_t rank);
// Every dim of `dims` normalised, in the given order; throws tico::Error when one is out of range
// or two name the same dim ("dimension D appears more than once").
std::vector<int64_t> normalizeDims(const std::vector<int64_t> &dims, int64_t rank);

// ---- broadcasting ------------------------------------------------------------------------------

// NumPy-style broadcast of two shapes, aligned to the right. Equal dims and size-1 dims
// broadcast as usual; a symbolic dim against a static size other than 1 takes the static size
// (the program is only valid when they agree); two different symbolic dims keep the first
// unless the second is the one that is not 1. nullopt when two static sizes disagree.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);
// Broadcast of any number of static shapes ({} for none); nullopt when two sizes disagree.
std::optional<std::vector<int64_t>> broadcastSizes(const std::vector<std::vector<int64_t>> &shapes);

// ---- element counts ----------------------------------------------------------------------------

// a * b for sizes; throws tico::Error when the product overflows int64 (or a size is negative).
// (The non-throwing overflow primitives are tico/support/checked.h; this is the size form.)
int64_t checkedSizeMul(int64_t a, int64_t b);
// Product of static sizes (1 for none) with the same checks.
int64_t checkedProduct(const std::vector<int64_t> &sizes);

// ---- symbolic dim arithmetic -------------------------------------------------------------------

// a * b (static products are overflow-checked).
Dim mulDims(const Dim &a, const Dim &b);
// Product of dims[begin, end); 1 for an empty range.
Dim productOf(const Shape &dims, std::size_t begin, std::size_t end);
inline Dim productOf(const Shape &dims) { return productOf(dims, 0, dims.size()); }
// a / b when the division is exact as monomials, else nullopt.
std::optional<Dim> divDims(const Dim &a, const Dim &b);
// Whether the two shapes have the same number of elements (symbolically).
bool sameNumel(const Shape &a, const Shape &b);

} // namespace tico
