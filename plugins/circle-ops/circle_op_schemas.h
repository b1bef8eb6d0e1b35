// Schemas of the `circle::` IR ops: Circle operators (or Circle-specific layouts of ATen
// operators) that legalization passes create and that lower 1:1 to one Circle operator
// (plus the PAD/SLICE/RESHAPE the Circle operator needs to express PyTorch's attributes).
//
// Layout-sensitive ops take and return channels-last tensors (NHWC) and channels-last
// weights; docs/lowering.md §4 documents every argument. Both the lowering plugin (which
// lowers them) and the legalization plugin (which creates them) register these schemas;
// the registry accepts the same schema from two plugins.
#pragma once

#include "tico/plugin/registry.h"

#include <array>
#include <string_view>

namespace tico::circle_ops {

inline constexpr std::array<std::string_view, 16> kSchemas = {
    // NHWC input, OHWI weight, NHWC output. `padding` is PyTorch's symmetric [pad_h, pad_w].
    "circle::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
    "int[2] dilation=1) -> Tensor",
    // The same with a padding mode: "valid", or "same" as TFLite's SAME (the output has ceil(in /
    // stride) elements, the padding is split with the odd element after), which for stride 1 is
    // PyTorch's padding="same".
    "circle::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "str padding=\"valid\", int[2] dilation=1) -> Tensor",
    // NHWC input, [1, KH, KW, C*M] weight (M = depth multiplier, one filter group per channel).
    "circle::depthwise_conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "int[2] padding=0, int[2] dilation=1) -> Tensor",
    "circle::depthwise_conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "str padding=\"valid\", int[2] dilation=1) -> Tensor",
    // NHWC input, OHWI weight (O = output channels), PyTorch's conv_transpose2d geometry.
    "circle::transpose_conv(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "int[2] padding=0, int[2] output_padding=0) -> Tensor",
    // NHWC pooling with PyTorch's attributes (an empty stride means the kernel size).
    "circle::maxpool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "circle::avgpool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    // Channels-last instance normalisation: statistics over every dim but the first and last.
    "circle::instance_norm(Tensor input, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
    // x >= 0 ? x : weight * x, `weight` broadcast from the right (channels last).
    "circle::prelu(Tensor input, Tensor weight) -> Tensor",
    // NHWC resizing to size = [H, W].
    "circle::resize_nearest_neighbor(Tensor input, int[2] size, bool align_corners=False, "
    "bool half_pixel_centers=False) -> Tensor",
    "circle::resize_bilinear(Tensor input, int[2] size, bool align_corners=False, "
    "bool half_pixel_centers=False) -> Tensor",
    // x / sqrt(mean(x^2, last dim) + eps) * weight (weight absent: 1).
    "circle::rms_norm(Tensor input, Tensor? weight=None, float eps=1e-06) -> Tensor",
    // Rotary embedding of a rank-4 input over its last dim D; `sin` and `cos` hold one row of D
    // values (every leading dim 1). mode 0 = GPT-NeoX (rotate_half).
    "circle::rope(Tensor input, Tensor sin, Tensor cos, int mode=0) -> Tensor",
    // onert's fused decoder attention (see docs/lowering.md for its restrictions).
    "circle::attention(Tensor hidden_states, Tensor wq, Tensor wk, Tensor wv, Tensor wo, "
    "Tensor position_cos, Tensor position_sin, Tensor attention_mask, Tensor past_key, "
    "Tensor past_value, Tensor cache_position) -> Tensor",
    // The runtime shape of `input` as an int32 vector.
    "circle::shape(Tensor input) -> Tensor",
    // TFLite GatherNd: out[i..] = params[indices[i.., :]] (the last index dim picks leading dims).
    "circle::gather_nd(Tensor params, Tensor indices) -> Tensor",
};

// The original converter's `circle_custom::` ops are in circle_custom_ops.h.

// Registers the schemas of both namespaces. Every plugin that creates, reads or lowers these
// ops calls it, so their schemas are known whichever of them is loaded (the registry accepts
// the same schema from two plugins).
void registerSchemas(Registrar &registrar);

} // namespace tico::circle_ops
