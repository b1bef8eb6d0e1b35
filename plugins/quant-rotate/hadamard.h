// Orthogonal matrices for rotations (docs/quantizers.md, "Rotations"): normalised Hadamard
// matrices, whose entries all have the same magnitude 1/sqrt(n) (so a rotated weight's outliers are
// spread evenly over every column it mixes), and seeded random orthogonal matrices for sizes no
// Hadamard construction here reaches.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <optional>

namespace tico::rotate {

// n = m * 2^k with m = 1 (Sylvester) or m = q + 1 for a prime q = 3 (mod 4) (Paley I), the
// smallest such m; nullopt when n has no such form (e.g. 5, 9, 28 = 27 + 1 with 27 not prime).
// Covers every power of two and 12, 20, 24, 40, 44, 48, 60, 80, 96, 640, ...
std::optional<int64_t> hadamardCore(int64_t n);

// The n x n Hadamard matrix divided by sqrt(n) (orthogonal, symmetric when n is a power of two);
// throws tico::Error when hadamardCore(n) is nullopt.
Eigen::MatrixXd normalizedHadamard(int64_t n);

// A Haar-distributed n x n orthogonal matrix from `seed` (QR of a Gaussian matrix, signs fixed so
// the result depends only on the seed).
Eigen::MatrixXd randomOrthogonal(int64_t n, uint64_t seed);

} // namespace tico::rotate
