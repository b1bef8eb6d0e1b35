// Element conversions between float32, float16 and bfloat16 (tensor_data.h): what converted
// storages and the Circle writer use to widen half-precision weights to float32, or to store
// bfloat16 weights as float16, while they stream gigabytes of them.
//
// Speed matters here: a 1 B-parameter bfloat16 checkpoint is 1.2 G elements, and conversion has
// to stay within a quarter of the time it takes to copy its bytes. Where the CPU has F16C and
// AVX2 (every x86-64 since 2013), eight elements convert per instruction; the portable loops
// below are the fallback and the reference (tests compare the two on every 16-bit pattern).
#include "tico/ir/tensor_data.h"

#include "element_conversion.h"

#include "tico/ir/float16_range.h"

#include "tico/support/error.h"
#include "tico/support/half.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TICO_HAVE_F16C_PATH 1
#include <immintrin.h>
#endif

namespace tico {
namespace {

uint16_t load16(const std::byte *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store16(std::byte *p, uint16_t v) { std::memcpy(p, &v, sizeof v); }

void bfloat16ToFloat16Portable(const std::byte *in, std::byte *out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    store16(out + 2 * i, floatToHalf(bfloat16ToFloat(load16(in + 2 * i))));
}

// bfloat16 magnitudes (sign bit cleared) at and above this are beyond float16's largest finite
// value, 65504: bfloat16 0x4780 is 65536, and 0x477f (65280) is the last that fits.
constexpr uint16_t kFirstOverflow = 0x4780;
// float16's smallest normal magnitude, 2^-14, as a bfloat16 pattern: below it float16 keeps
// fewer significant bits than bfloat16's eight.
constexpr uint16_t kFloat16NormalMin = 0x3880;
constexpr uint16_t kInfinity = 0x7f80;

// Whether a nonzero bfloat16 magnitude below 2^-14 lands exactly on float16's subnormal grid
// (multiples of 2^-24).
bool subnormalIsExact(uint16_t magnitude) {
  const int exponent = magnitude >> 7; // biased by 127
  if (exponent == 0)
    return false; // a bfloat16 subnormal (below 2^-126): far below 2^-24
  const uint32_t significand = 0x80u | (magnitude & 0x7fu); // value = significand * 2^(exponent - 134)
  const int shift = exponent - 134 + 24;                      // significand * 2^shift multiples of 2^-24
  if (shift >= 0)
    return true;
  return shift > -8 && (significand & ((1u << -shift) - 1)) == 0;
}

void accumulateRangePortable(const std::byte *in, std::size_t count, Float16Range &range) {
  for (std::size_t i = 0; i < count; ++i) {
    const uint16_t magnitude = load16(in + 2 * i) & 0x7fffu;
    if (magnitude >= kFirstOverflow && magnitude < kInfinity)
      range.fits = false;
    else if (magnitude != 0 && magnitude < kFloat16NormalMin && !subnormalIsExact(magnitude))
      ++range.rounded;
  }
}

#ifdef TICO_HAVE_F16C_PATH
bool hasF16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}

__attribute__((target("avx2,f16c"))) void bfloat16ToFloat16F16c(const std::byte *in, std::byte *out,
                                                                  std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + 2 * i));
    const __m256i wide = _mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16); // bfloat16 -> float32 bits
    const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(wide), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 2 * i), h);
  }
  bfloat16ToFloat16Portable(in + 2 * i, out + 2 * i, count - i);
}

// The same conversion, and whether no finite value overflowed: an output lane is float16's
// inf (0x7c00 once the sign is cleared) where the input lane was not bfloat16's inf / nan.
__attribute__((target("avx2,f16c"))) bool bfloat16ToFloat16CheckedF16c(const std::byte *in, std::byte *out,
                                                                       std::size_t count) {
  const __m128i magnitude_mask = _mm_set1_epi16(0x7fff);
  const __m128i half_infinity = _mm_set1_epi16(0x7c00);
  const __m128i infinity = _mm_set1_epi16(static_cast<short>(kInfinity));
  __m128i overflow = _mm_setzero_si128();
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + 2 * i));
    const __m256i wide = _mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16);
    const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(wide), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 2 * i), h);
    const __m128i became_infinite = _mm_cmpeq_epi16(_mm_and_si128(h, magnitude_mask), half_infinity);
    // Magnitudes fit 15 bits: signed compares are exact. inf / nan inputs stay inf / nan.
    const __m128i was_finite = _mm_cmpgt_epi16(infinity, _mm_and_si128(b, magnitude_mask));
    overflow = _mm_or_si128(overflow, _mm_and_si128(became_infinite, was_finite));
  }
  Float16Range tail;
  accumulateRangePortable(in + 2 * i, count - i, tail);
  bfloat16ToFloat16Portable(in + 2 * i, out + 2 * i, count - i);
  return _mm_testz_si128(overflow, overflow) && tail.fits;
}

__attribute__((target("avx2,f16c"))) void float16ToFloat32F16c(const std::byte *in, float *out, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + 2 * i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < count; ++i)
    out[i] = halfToFloat(load16(in + 2 * i));
}

// Blocks of 16 magnitudes: the largest one and how many are nonzero and below 2^-14. Only the
// blocks that have such small values are looked at element by element (they are rare in
// trained weights: a fraction of a percent).
__attribute__((target("avx2"))) void accumulateRangeAvx2(const std::byte *in, std::size_t count, Float16Range &range) {
  const __m256i magnitude_mask = _mm256_set1_epi16(0x7fff);
  const __m256i normal_min = _mm256_set1_epi16(static_cast<short>(kFloat16NormalMin));
  const __m256i infinity = _mm256_set1_epi16(static_cast<short>(kInfinity));
  const __m256i zero = _mm256_setzero_si256();
  __m256i largest = zero;
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + 2 * i)), magnitude_mask);
    // Magnitudes fit 15 bits, so signed 16-bit comparisons are exact. inf and nan stay inf and
    // nan in float16: they do not count towards the largest magnitude.
    const __m256i finite = _mm256_and_si256(v, _mm256_cmpgt_epi16(infinity, v));
    largest = _mm256_max_epi16(largest, finite);
    const __m256i small = _mm256_andnot_si256(_mm256_cmpeq_epi16(v, zero), _mm256_cmpgt_epi16(normal_min, v));
    if (!_mm256_testz_si256(small, small))
      accumulateRangePortable(in + 2 * i, 16, range);
  }
  alignas(32) uint16_t lanes[16];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), largest);
  for (uint16_t lane : lanes)
    if (lane >= kFirstOverflow)
      range.fits = false;
  accumulateRangePortable(in + 2 * i, count - i, range);
}
#endif

} // namespace

void widenToFloat32(DType from, const std::byte *in, float *out, std::size_t count) {
  if (from == DType::BFloat16) {
    for (std::size_t i = 0; i < count; ++i)
      out[i] = bfloat16ToFloat(load16(in + 2 * i)); // bfloat16 is float32's upper half
    return;
  }
  if (from != DType::Float16)
    throw Error("cannot widen " + std::string(dtypeName(from)) + " elements to float32 (float16 and bfloat16 only)");
#ifdef TICO_HAVE_F16C_PATH
  if (hasF16c()) {
    float16ToFloat32F16c(in, out, count);
    return;
  }
#endif
  for (std::size_t i = 0; i < count; ++i)
    out[i] = halfToFloat(load16(in + 2 * i));
}

bool isElementConversion(DType from, DType to) {
  return ((from == DType::Float16 || from == DType::BFloat16) && to == DType::Float32) ||
         (from == DType::BFloat16 && to == DType::Float16);
}

void convertElements(DType from, DType to, const std::byte *in, std::byte *out, std::size_t count) {
  if (to == DType::Float32 && (from == DType::Float16 || from == DType::BFloat16)) {
    if (reinterpret_cast<std::uintptr_t>(out) % alignof(float) == 0) {
      widenToFloat32(from, in, reinterpret_cast<float *>(out), count);
      return;
    }
    // Bytes that are not float-aligned: widen through an aligned chunk.
    constexpr std::size_t kChunk = 4096;
    float chunk[kChunk];
    for (std::size_t done = 0; done < count;) {
      const std::size_t n = std::min(count - done, kChunk);
      widenToFloat32(from, in + 2 * done, chunk, n);
      std::memcpy(out + 4 * done, chunk, n * sizeof(float));
      done += n;
    }
    return;
  }
  if (from == DType::BFloat16 && to == DType::Float16) {
#ifdef TICO_HAVE_F16C_PATH
    if (hasF16c()) {
      bfloat16ToFloat16F16c(in, out, count);
      return;
    }
#endif
    bfloat16ToFloat16Portable(in, out, count);
    return;
  }
  throw Error("cannot convert " + std::string(dtypeName(from)) + " elements to " + std::string(dtypeName(to)) +
              " (float16 and bfloat16 to float32, bfloat16 to float16 only)");
}

bool bfloat16ToFloat16Fits(const std::byte *in, std::byte *out, std::size_t count) {
#ifdef TICO_HAVE_F16C_PATH
  if (hasF16c())
    return bfloat16ToFloat16CheckedF16c(in, out, count);
#endif
  Float16Range range;
  accumulateRangePortable(in, count, range);
  bfloat16ToFloat16Portable(in, out, count);
  return range.fits;
}

Float16Range float16Range(const std::byte *bfloat16_elements, std::size_t count) {
  Float16Range range;
#ifdef TICO_HAVE_F16C_PATH
  if (hasF16c()) {
    accumulateRangeAvx2(bfloat16_elements, count, range);
    return range;
  }
#endif
  accumulateRangePortable(bfloat16_elements, count, range);
  return range;
}

Float16Range float16RangeOf(const TensorData &bfloat16_view) {
  if (!bfloat16_view.isContiguous()) {
    const std::vector<std::byte> bytes = bfloat16_view.contiguousBytes();
    return float16Range(bytes.data(), bytes.size() / 2);
  }
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const auto count = static_cast<std::size_t>(bfloat16_view.numel());
  const std::byte *elements = bfloat16_view.data();
  const MappedFile *file = bfloat16_view.storage->file();
  const std::size_t start =
      bfloat16_view.storage->fileOffset() + 2 * static_cast<std::size_t>(bfloat16_view.storage_offset);
  Float16Range total;
  for (std::size_t done = 0; done < count; done += kChunk) {
    const std::size_t n = std::min(count - done, kChunk);
    const Float16Range part = float16Range(elements + 2 * done, n);
    total.fits = total.fits && part.fits;
    total.rounded += part.rounded;
    if (file != nullptr)
      file->release(start + 2 * done, 2 * n);
  }
  return total;
}

} // namespace tico
