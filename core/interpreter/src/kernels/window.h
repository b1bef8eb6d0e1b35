// Output size and leading padding of a sliding window (convolution, pooling) along one axis,
// with TFLite's SAME/VALID rules.
#pragma once

#include "kernel.h"

#include <algorithm>

namespace tico::interp {

struct WindowAxis {
  int64_t out = 0;        // output size
  int64_t pad_before = 0; // implicit zero (or -inf) rows before the input
};

inline WindowAxis windowAxis(int64_t in, int64_t filter, int64_t stride, int64_t dilation, circle::Padding padding,
                             const char *axis) {
  check(stride > 0, std::string("stride along ") + axis + " must be positive, got " + std::to_string(stride));
  check(dilation > 0, std::string("dilation along ") + axis + " must be positive, got " + std::to_string(dilation));
  check(filter > 0, std::string("filter size along ") + axis + " must be positive, got " + std::to_string(filter));
  const int64_t effective = (filter - 1) * dilation + 1;
  WindowAxis w;
  if (padding == circle::Padding::SAME)
    w.out = (in + stride - 1) / stride;
  else
    w.out = in >= effective ? (in - effective) / stride + 1 : 0;
  const int64_t total = std::max<int64_t>((w.out - 1) * stride + effective - in, 0);
  w.pad_before = padding == circle::Padding::SAME ? total / 2 : 0;
  return w;
}

} // namespace tico::interp
