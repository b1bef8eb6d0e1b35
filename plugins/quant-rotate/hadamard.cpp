#include "hadamard.h"

#include <tico/support/error.h>

#include <cmath>
#include <random>
#include <string>

namespace tico::rotate {
namespace {

bool isPrime(int64_t q) {
  if (q < 2)
    return false;
  for (int64_t d = 2; d * d <= q; ++d)
    if (q % d == 0)
      return false;
  return true;
}

// Paley's first construction: for a prime q = 3 (mod 4), H = I + S of order q + 1 with S the
// skew-symmetric [[0, 1^T], [-1, Q]], Q the Jacobsthal matrix Q_ij = chi(j - i) (chi: the quadratic
// character mod q).
Eigen::MatrixXd paley(int64_t q) {
  std::vector<int> chi(static_cast<std::size_t>(q), -1);
  chi[0] = 0;
  for (int64_t x = 1; x < q; ++x)
    chi[static_cast<std::size_t>((x * x) % q)] = 1;
  const Eigen::Index n = static_cast<Eigen::Index>(q + 1);
  Eigen::MatrixXd h = Eigen::MatrixXd::Identity(n, n);
  for (Eigen::Index j = 1; j < n; ++j) {
    h(0, j) += 1.0;
    h(j, 0) -= 1.0;
  }
  for (int64_t i = 0; i < q; ++i)
    for (int64_t j = 0; j < q; ++j)
      h(i + 1, j + 1) += chi[static_cast<std::size_t>(((j - i) % q + q) % q)];
  return h;
}

} // namespace

std::optional<int64_t> hadamardCore(int64_t n) {
  if (n < 1)
    return std::nullopt;
  int64_t odd = n;
  while (odd % 2 == 0)
    odd /= 2;
  // The candidates are odd * 2^j for j = 0 .. (power of two in n); the smallest that is 1 or a
  // Paley order wins, so the rest of n is a Sylvester power of two.
  for (int64_t m = odd; m <= n; m *= 2) {
    if (m == 1 || (m > 2 && (m - 1) % 4 == 3 && isPrime(m - 1)))
      return m;
    if (n % (m * 2) != 0)
      break;
  }
  return std::nullopt;
}

Eigen::MatrixXd normalizedHadamard(int64_t n) {
  const std::optional<int64_t> core = hadamardCore(n);
  if (!core)
    throw Error("no Hadamard matrix of order " + std::to_string(n) +
                " here (orders m * 2^k with m = 1 or a prime q = 3 mod 4 plus 1)");
  Eigen::MatrixXd h = *core == 1 ? Eigen::MatrixXd::Ones(1, 1) : paley(*core - 1);
  while (h.rows() < n) {
    const Eigen::Index k = h.rows();
    Eigen::MatrixXd next(2 * k, 2 * k);
    next << h, h, h, -h;
    h = std::move(next);
  }
  return h / std::sqrt(static_cast<double>(n));
}

Eigen::MatrixXd randomOrthogonal(int64_t n, uint64_t seed) {
  // The Gaussian draws come from the engine through Box-Muller so the matrix depends only on the
  // seed, not on the standard library's normal_distribution.
  std::mt19937_64 engine(seed);
  const auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
  const Eigen::Index size = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd g(size, size);
  for (Eigen::Index i = 0; i < size; ++i)
    for (Eigen::Index j = 0; j < size; ++j)
      g(i, j) = std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * M_PI * uniform());
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ();
  const Eigen::MatrixXd r = qr.matrixQR().triangularView<Eigen::Upper>();
  for (Eigen::Index j = 0; j < size; ++j)
    if (r(j, j) < 0)
      q.col(j) *= -1.0;
  return q;
}

} // namespace tico::rotate
