// tico-gemm-libraries: times C[M,N] = A[M,K] * B[N,K]^T (FULLY_CONNECTED's layout) on the
// interpreter's shapes with each packaged library the built-in runtime could use, so the choice in
// core/interpreter/src/gemm.cpp can be checked again on another machine (docs/interpreter.md).
//
//   tico-gemm-libraries [threads]
//
// Prints the median of repeated runs per shape and library, and each library's largest
// difference from oneDNN's result (summation order differs; all are float32 accumulations).
#include <Eigen/Core>
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int); // OpenBLAS's own control (not in cblas.h)

namespace {

struct Shape {
  const char *what;
  int M, N, K;
};

// The products the bench_interpreter.py networks and a Llama-style 110 M model run.
const Shape kShapes[] = {
    {"transformer FFN up   128x256 -> 1024", 128, 1024, 256},
    {"transformer FFN down 128x1024 -> 256", 128, 256, 1024},
    {"MLP layer            64x1024 -> 1024", 64, 1024, 1024},
    {"Llama q/k/v/o        128x768 -> 768", 128, 768, 768},
    {"Llama gate/up        128x768 -> 2048", 128, 2048, 768},
    {"Llama down           128x2048 -> 768", 128, 768, 2048},
    {"decode step          1x768 -> 2048", 1, 2048, 768},
    {"conv 3x3 im2col      1024x576 -> 64", 1024, 64, 576},
    {"conv 3x3 im2col      256x1152 -> 128", 256, 128, 1152},
    {"conv stem            4096x27 -> 32", 4096, 32, 27},
    {"attention QK^T       128x128, k 64", 128, 128, 64},
};

template <class F> double medianMs(F run, int repeats) {
  run(); // warm-up: JIT code generation, first-touch of the output
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

} // namespace

int main(int argc, char **argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  omp_set_num_threads(threads); // oneDNN and Eigen (both OpenMP here)
  openblas_set_num_threads(threads);
  Eigen::setNbThreads(threads);

  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::printf("threads %d; median ms per product; ratio = library / oneDNN\n", threads);
  std::printf("%-38s %9s %9s %9s %8s %8s %11s\n", "shape", "oneDNN", "OpenBLAS", "Eigen", "OB/dnnl", "Eig/dnnl",
              "max |diff|");
  for (const Shape &s : kShapes) {
    std::vector<float> A(std::size_t(s.M) * s.K), B(std::size_t(s.N) * s.K);
    for (float &x : A)
      x = uniform(rng);
    for (float &x : B)
      x = uniform(rng);
    std::vector<float> c_dnnl(std::size_t(s.M) * s.N), c_blas = c_dnnl, c_eigen = c_dnnl;
    const int repeats = std::clamp(static_cast<int>(4e9 / (2.0 * s.M * s.N * s.K)), 5, 200);

    const double dnnl = medianMs(
        [&] { dnnl_sgemm('N', 'T', s.M, s.N, s.K, 1.0f, A.data(), s.K, B.data(), s.K, 0.0f, c_dnnl.data(), s.N); },
        repeats);
    // OpenBLAS 0.3.21 sends M = 1 through its general kernel; sgemv is the call a user would make.
    const double blas = medianMs(
        [&] {
          if (s.M == 1)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, s.N, s.K, 1.0f, B.data(), s.K, A.data(), 1, 0.0f, c_blas.data(), 1);
          else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.M, s.N, s.K, 1.0f, A.data(), s.K, B.data(), s.K,
                        0.0f, c_blas.data(), s.N);
        },
        repeats);
    Eigen::Map<const RowMajor> a(A.data(), s.M, s.K), b(B.data(), s.N, s.K);
    Eigen::Map<RowMajor> c(c_eigen.data(), s.M, s.N);
    const double eigen = medianMs([&] { c.noalias() = a * b.transpose(); }, repeats);

    std::printf("%-38s %9.3f %9.3f %9.3f %8.2f %8.2f %11.1e\n", s.what, dnnl, blas, eigen, blas / dnnl, eigen / dnnl,
                std::max(maxAbsDiff(c_dnnl, c_blas), maxAbsDiff(c_dnnl, c_eigen)));
  }
  return 0;
}
