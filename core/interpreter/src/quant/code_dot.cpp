// Code dot products (code_dot.h). The AVX2 bodies are compiled for that target only and
// called when __builtin_cpu_supports says the CPU has it, so the library still runs on any
// x86-64 (and builds elsewhere, where only the loops exist).
#include "quant/code_dot.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TICO_CODE_DOT_AVX2 1
#endif

namespace tico::interp::quant {
namespace {

template <typename W> float dotFloatLoop(const float *x, const W *w, int32_t zero, int64_t n) {
  float sum = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += x[k] * static_cast<float>(static_cast<int32_t>(w[k]) - zero);
  return sum;
}

template <typename W> int64_t dotInt16Loop(const int16_t *x, const W *w, int32_t zero, int64_t n) {
  int64_t sum = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += static_cast<int64_t>(x[k]) * (static_cast<int32_t>(w[k]) - zero);
  return sum;
}

#ifdef TICO_CODE_DOT_AVX2
bool hasAvx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

// Eight codes widened to int32.
__attribute__((target("avx2"))) inline __m256i widen8(const uint8_t *w) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(w)));
}
__attribute__((target("avx2"))) inline __m256i widen8(const int8_t *w) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(w)));
}
// Sixteen codes widened to int16.
__attribute__((target("avx2"))) inline __m256i widen16(const uint8_t *w) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(w)));
}
__attribute__((target("avx2"))) inline __m256i widen16(const int8_t *w) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(w)));
}

__attribute__((target("avx2,fma"))) float dotFloatFloatAvx2(const float *x, const float *w, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(w + k), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), _mm256_loadu_ps(w + k + 8), a1);
  }
  for (; k + 8 <= n; k += 8)
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(w + k), a0);
  const __m256 a = _mm256_add_ps(a0, a1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  float sum = _mm_cvtss_f32(s);
  for (; k < n; ++k)
    sum += x[k] * w[k];
  return sum;
}

template <typename W>
__attribute__((target("avx2,fma"))) float dotFloatAvx2(const float *x, const W *w, int32_t zero, int64_t n) {
  const __m256i z = _mm256_set1_epi32(zero);
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m256 w0 = _mm256_cvtepi32_ps(_mm256_sub_epi32(widen8(w + k), z));
    const __m256 w1 = _mm256_cvtepi32_ps(_mm256_sub_epi32(widen8(w + k + 8), z));
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), w0, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), w1, a1);
  }
  for (; k + 8 <= n; k += 8)
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_cvtepi32_ps(_mm256_sub_epi32(widen8(w + k), z)), a0);
  const __m256 a = _mm256_add_ps(a0, a1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  float sum = _mm_cvtss_f32(s);
  for (; k < n; ++k)
    sum += x[k] * static_cast<float>(static_cast<int32_t>(w[k]) - zero);
  return sum;
}

template <typename W>
__attribute__((target("avx2"))) int64_t dotInt16Avx2(const int16_t *x, const W *w, int32_t zero, int64_t n) {
  // (w − zero) fits int16 for 8-bit codes; madd adds pairs of int16 products into int32, each
  // pair at most 2 · 32768 · 255 in magnitude, so 64 blocks of 16 stay inside int32 before they
  // are widened into the int64 total.
  const __m256i z = _mm256_set1_epi16(static_cast<int16_t>(zero));
  int64_t total = 0;
  int64_t k = 0;
  while (k + 16 <= n) {
    __m256i acc = _mm256_setzero_si256();
    const int64_t stop = std::min<int64_t>(n - 15, k + 64 * 16);
    for (; k < stop; k += 16) {
      const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + k));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(xs, _mm256_sub_epi16(widen16(w + k), z)));
    }
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), acc);
    for (int32_t lane : lanes)
      total += lane;
  }
  for (; k < n; ++k)
    total += static_cast<int64_t>(x[k]) * (static_cast<int32_t>(w[k]) - zero);
  return total;
}
__attribute__((target("avx2"))) int64_t dotInt16Avx2(const int16_t *x, const int16_t *w, int64_t n) {
  // Each madd lane sums two products of at most 2^15 · 2^9 in magnitude (widened 8-bit codes
  // minus a zero point): 64 blocks stay inside int32 before they are widened.
  int64_t total = 0;
  int64_t k = 0;
  while (k + 16 <= n) {
    __m256i acc = _mm256_setzero_si256();
    const int64_t stop = std::min<int64_t>(n - 15, k + 64 * 16);
    for (; k < stop; k += 16)
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + k)),
                                                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(w + k))));
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), acc);
    for (int32_t lane : lanes)
      total += lane;
  }
  for (; k < n; ++k)
    total += static_cast<int64_t>(x[k]) * w[k];
  return total;
}
#endif

template <typename W> float dotFloat(const float *x, const W *w, int32_t zero, int64_t n) {
#ifdef TICO_CODE_DOT_AVX2
  if (hasAvx2())
    return dotFloatAvx2(x, w, zero, n);
#endif
  return dotFloatLoop(x, w, zero, n);
}

template <typename W> int64_t dotInt16Codes8(const int16_t *x, const W *w, int32_t zero, int64_t n) {
#ifdef TICO_CODE_DOT_AVX2
  // (w − zero) must fit int16: true for 8-bit codes with a zero point in their range.
  if (hasAvx2() && zero >= -255 && zero <= 255)
    return dotInt16Avx2(x, w, zero, n);
#endif
  return dotInt16Loop(x, w, zero, n);
}

template <typename W> void widen(const W *w, int32_t zero, int16_t *w16, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    w16[k] = static_cast<int16_t>(static_cast<int32_t>(w[k]) - zero);
}

} // namespace

void widenCodes(const uint8_t *w, int32_t zero, int16_t *w16, int64_t n) { widen(w, zero, w16, n); }
void widenCodes(const int8_t *w, int32_t zero, int16_t *w16, int64_t n) { widen(w, zero, w16, n); }

int64_t dotInt16(const int16_t *x, const int16_t *w16, int64_t n) {
#ifdef TICO_CODE_DOT_AVX2
  if (hasAvx2())
    return dotInt16Avx2(x, w16, n);
#endif
  int64_t total = 0;
  for (int64_t k = 0; k < n; ++k)
    total += static_cast<int64_t>(x[k]) * w16[k];
  return total;
}

float dotFloat(const float *x, const float *w, int64_t n) {
#ifdef TICO_CODE_DOT_AVX2
  if (hasAvx2())
    return dotFloatFloatAvx2(x, w, n);
#endif
  float sum = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += x[k] * w[k];
  return sum;
}

float dotFloatCodes(const float *x, const uint8_t *w, int32_t zero, int64_t n) { return dotFloat(x, w, zero, n); }
float dotFloatCodes(const float *x, const int8_t *w, int32_t zero, int64_t n) { return dotFloat(x, w, zero, n); }
int64_t dotInt16Codes(const int16_t *x, const uint8_t *w, int32_t zero, int64_t n) { return dotInt16Codes8(x, w, zero, n); }
int64_t dotInt16Codes(const int16_t *x, const int8_t *w, int32_t zero, int64_t n) { return dotInt16Codes8(x, w, zero, n); }

} // namespace tico::interp::quant
