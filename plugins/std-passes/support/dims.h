// Arithmetic on shape dimensions that may be symbolic ("s0", "4*s0").
//
// Rewrites that merge or split dimensions (a reshape to [-1, D], the packed shape of a group
// norm) need products and exact quotients of dims. A dim is treated as a monomial: an integer
// coefficient times a multiset of opaque symbolic factors ("s0", "s1 + 1"). Products and
// quotients of monomials are exact; anything else (a quotient that does not cancel) is
// reported as unknown rather than guessed. Expressions are written the way the .pt2 importer
// writes sympy products (coefficient first, then factors in name order: "4*s0*s1"), so a dim
// computed here compares equal to the same dim read from a file.
#pragma once

#include "tico/ir/shape.h"

#include <optional>
#include <vector>

namespace tico::passes {

// a * b.
Dim mulDims(const Dim &a, const Dim &b);
// Product of dims[begin, end); 1 for an empty range.
Dim productOf(const Shape &dims, std::size_t begin, std::size_t end);
inline Dim productOf(const Shape &dims) { return productOf(dims, 0, dims.size()); }
// a / b when the division is exact as monomials, else nullopt.
std::optional<Dim> divDims(const Dim &a, const Dim &b);

// Whether the two shapes have the same number of elements (symbolically).
bool sameNumel(const Shape &a, const Shape &b);

} // namespace tico::passes
