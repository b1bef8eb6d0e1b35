// FlatBuffer -> CircleModel.
//
// Operator options and quantization records are decoded with the generated object API; buffer
// payloads become views of the source bytes (no copy). Parts of the format the object model
// cannot hold are refused with an error naming them instead of being dropped: the StableHLO
// options union, sparse and variant tensors, compressed tensors, operator intermediates.
// Purely informational fields are not kept: Tensor.has_rank, the debug-metadata indices,
// Operator.mutating_variable_inputs and the deprecated Model.metadata_buffer.

#include "reader_detail.h"

#include "tico/support/error.h"

#include <flatbuffers/flatbuffers.h>

#include <cstdint>

namespace tico::circle_reader {
namespace {

using flatbuffers::Table;
using flatbuffers::voffset_t;

// vtable slot of field id N (the generated code does not name deprecated fields).
constexpr voffset_t slot(int id) { return static_cast<voffset_t>(4 + 2 * id); }
constexpr voffset_t kTensorSparsity = slot(6);
constexpr voffset_t kTensorVariantTensors = slot(9);
constexpr voffset_t kOperatorOptions2Type = slot(11);
constexpr voffset_t kOperatorOptions2 = slot(12);

// The generated table types derive privately from flatbuffers::Table and add no members, so a
// pointer to one is a pointer to its Table (the same cast the generated accessors use).
template <typename T> const Table *asTable(const T *table) { return reinterpret_cast<const Table *>(table); }

// An empty table: a 4-byte vtable (no fields) followed by the table's offset to it. Unpacking
// any table type from it yields that type's defaults; used when an options type is given but
// its table is absent, so the model never holds a union with a type and no value.
alignas(8) constexpr uint8_t kEmptyTable[8] = {4, 0, 4, 0, 4, 0, 0, 0};

[[noreturn]] void fail(const std::string &path, const std::string &message) { throw Error(path + ": " + message); }

std::string item(const std::string &list, std::size_t i) { return list + "[" + std::to_string(i) + "]"; }

class Converter {
public:
  Converter(const Source &source, Budget &budget) : source_(source), budget_(budget) {}

  CircleModel model(const circle::Model &root) {
    CircleModel out;
    out.version = root.version();
    out.description = string(root.description());
    if (const auto *codes = root.operator_codes())
      for (flatbuffers::uoffset_t i = 0; i < codes->size(); ++i)
        out.operator_codes.push_back(operatorCode(*codes->Get(i), item("model.operator_codes", i)));
    out.buffers.clear();
    if (const auto *buffers = root.buffers())
      for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i)
        out.buffers.push_back(buffer(*buffers->Get(i), item("model.buffers", i)));
    if (const auto *subgraphs = root.subgraphs())
      for (flatbuffers::uoffset_t i = 0; i < subgraphs->size(); ++i)
        out.subgraphs.push_back(subgraph(*subgraphs->Get(i), item("model.subgraphs", i)));
    if (const auto *signatures = root.signature_defs())
      for (flatbuffers::uoffset_t i = 0; i < signatures->size(); ++i)
        out.signatures.push_back(signature(*signatures->Get(i)));
    if (const auto *metadata = root.metadata())
      for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i) {
        const auto *entry = metadata->Get(i);
        out.metadata.emplace_back(string(entry->name()), entry->buffer());
      }
    return out;
  }

private:
  std::string string(const flatbuffers::String *s) {
    if (!s)
      return {};
    budget_.charge(s->size());
    return s->str();
  }

  template <typename T> std::vector<T> vector(const flatbuffers::Vector<T> *v) {
    if (!v)
      return {};
    budget_.charge(uint64_t{v->size()} * sizeof(T));
    return std::vector<T>(v->begin(), v->end());
  }

  CircleOperatorCode operatorCode(const circle::OperatorCode &code, const std::string &path) {
    CircleOperatorCode out;
    const int32_t full = static_cast<int32_t>(code.builtin_code());
    const int32_t legacy = code.deprecated_builtin_code();
    // The 32-bit code superseded the legacy byte; files of either age (and writers that fill
    // only one of them) resolve to the same operator. 127 in the byte means "see the full code".
    if (legacy == full || legacy == 0 || (legacy == 127 && full >= 127))
      out.builtin_code = full;
    else if (full == 0)
      out.builtin_code = legacy;
    else
      fail(path, "builtin_code " + std::to_string(full) + " contradicts deprecated_builtin_code " +
                     std::to_string(legacy));
    out.custom_code = string(code.custom_code());
    out.version = code.version();
    return out;
  }

  CircleBuffer buffer(const circle::Buffer &buffer, const std::string &path) {
    const auto *data = buffer.data();
    const uint64_t offset = buffer.offset(), size = buffer.size();
    // offset 0 means "no external payload"; 1 is a placeholder some exporters write before they
    // know the real position, so a file that still holds it was never finished.
    if (offset == 1)
      fail(path, "external payload has the placeholder offset 1 (the file was not completely written)");
    if (offset > 1) {
      if (data && data->size() > 0)
        fail(path, "has both inline data and an external payload (offset " + std::to_string(offset) + ")");
      if (size > source_.size || offset > source_.size - size)
        fail(path, "external payload [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                       std::to_string(size) + ") lies outside the file (" + std::to_string(source_.size) + " bytes)");
      return CircleBuffer{view(offset, size)};
    }
    if (size != 0)
      fail(path, "has an external payload size (" + std::to_string(size) + ") but no offset");
    if (!data || data->size() == 0)
      return CircleBuffer{};
    return CircleBuffer{view(static_cast<uint64_t>(data->Data() - source_.bytes), data->size())};
  }

  std::shared_ptr<const TensorData> view(uint64_t offset, uint64_t size) {
    if (size == 0)
      return nullptr;
    auto data = std::make_shared<TensorData>();
    data->storage = source_.storage;
    data->dtype = DType::UInt8;
    data->sizes = {static_cast<int64_t>(size)};
    data->strides = {1};
    data->storage_offset = static_cast<int64_t>(offset);
    return data;
  }

  CircleSubGraph subgraph(const circle::SubGraph &sg, const std::string &path) {
    CircleSubGraph out;
    out.name = string(sg.name());
    if (const auto *tensors = sg.tensors()) {
      out.tensors.reserve(tensors->size());
      for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i)
        out.tensors.push_back(tensor(*tensors->Get(i), item(path + ".tensors", i)));
    }
    out.inputs = vector(sg.inputs());
    out.outputs = vector(sg.outputs());
    if (const auto *ops = sg.operators()) {
      out.operators.reserve(ops->size());
      for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i)
        out.operators.push_back(op(*ops->Get(i), item(path + ".operators", i)));
    }
    return out;
  }

  CircleTensor tensor(const circle::Tensor &t, const std::string &path) {
    const Table *table = asTable(&t);
    if (table->CheckField(kTensorSparsity))
      fail(path, "is a sparse tensor (Tensor.sparsity), which tico does not support");
    if (table->CheckField(kTensorVariantTensors))
      fail(path, "has variant sub-types (Tensor.variant_tensors), which tico does not support");
    if (t.compression_type() != circle::CompressionType::NONE)
      fail(path, std::string("has compressed data (compression_type ") +
                     circle::EnumNameCompressionType(t.compression_type()) + "), which tico does not support");
    const char *type_name = circle::EnumNameTensorType(t.type());
    if (!type_name || !*type_name)
      fail(path + ".type", "unknown tensor type " + std::to_string(static_cast<int>(t.type())));
    CircleTensor out;
    out.shape = vector(t.shape());
    out.shape_signature = vector(t.shape_signature());
    out.type = t.type();
    out.buffer = t.buffer();
    out.name = string(t.name());
    out.is_variable = t.is_variable();
    if (const auto *q = t.quantization())
      out.quantization = quantization(*q, path + ".quantization");
    return out;
  }

  std::shared_ptr<const circle::QuantizationParametersT> quantization(const circle::QuantizationParameters &q,
                                                                      const std::string &path) {
    // Charge the vectors before unpacking them.
    for (const auto *v : {q.min(), q.max(), q.scale()})
      if (v)
        budget_.charge(uint64_t{v->size()} * sizeof(float));
    if (const auto *zero_point = q.zero_point()) {
      budget_.charge(uint64_t{zero_point->size()} * sizeof(int64_t));
      // The FlatBuffers verifier checks the 4-byte length prefix, not the alignment of 8-byte
      // elements; reading them misaligned is undefined behaviour (found by the circle-reader
      // fuzzer). Writers align them, so a misaligned vector means a damaged file.
      if (zero_point->size() > 0 && reinterpret_cast<std::uintptr_t>(zero_point->Data()) % alignof(int64_t) != 0)
        fail(path + ".zero_point", "the 64-bit zero points are not 8-byte aligned (damaged file)");
    }
    if (const auto *custom = q.details_as_CustomQuantization(); custom && custom->custom())
      budget_.charge(custom->custom()->size());

    const auto type = q.details_type();
    const char *type_name = circle::EnumNameQuantizationDetails(type);
    if (!type_name || !*type_name)
      fail(path + ".details_type", "unknown quantization details type " + std::to_string(static_cast<int>(type)));
    std::shared_ptr<circle::QuantizationParametersT> out(q.UnPack());
    if (type != circle::QuantizationDetails::NONE && !out->details.value) {
      out->details.type = type;
      out->details.value = circle::QuantizationDetailsUnion::UnPack(kEmptyTable + 4, type, nullptr);
    }
    return out;
  }

  CircleOperator op(const circle::Operator &op, const std::string &path) {
    const Table *table = asTable(&op);
    if (table->GetField<uint8_t>(kOperatorOptions2Type, 0) != 0 || table->CheckField(kOperatorOptions2))
      fail(path, "uses the second options union (builtin_options_2, StableHLO operators), which tico does not "
                 "support");
    if (op.intermediates() && op.intermediates()->size() > 0)
      fail(path, "has intermediate tensors (Operator.intermediates), which tico does not support");
    CircleOperator out;
    out.opcode_index = op.opcode_index();
    out.inputs = vector(op.inputs());
    out.outputs = vector(op.outputs());
    out.custom_options = vector(op.custom_options());
    if (op.large_custom_options_offset() > 1 || op.large_custom_options_size() > 0)
      out.custom_options = largeCustomOptions(op, path);
    out.builtin_options = options(op, path);
    return out;
  }

  std::vector<uint8_t> largeCustomOptions(const circle::Operator &op, const std::string &path) {
    const uint64_t offset = op.large_custom_options_offset(), size = op.large_custom_options_size();
    if (op.custom_options() && op.custom_options()->size() > 0)
      fail(path, "has both inline custom options and large custom options");
    if (offset <= 1)
      fail(path, "has large custom options of " + std::to_string(size) + " bytes but no valid offset");
    if (size > source_.size || offset > source_.size - size)
      fail(path, "large custom options [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                     std::to_string(size) + ") lie outside the file (" + std::to_string(source_.size) + " bytes)");
    budget_.charge(size);
    return std::vector<uint8_t>(source_.bytes + offset, source_.bytes + offset + size);
  }

  circle::BuiltinOptionsUnion options(const circle::Operator &op, const std::string &path) {
    circle::BuiltinOptionsUnion out;
    const auto type = op.builtin_options_type();
    if (type == circle::BuiltinOptions::NONE)
      return out;
    const char *type_name = circle::EnumNameBuiltinOptions(type);
    if (!type_name || !*type_name)
      fail(path + ".builtin_options_type", "options type " + std::to_string(static_cast<int>(type)) +
                                               " is not a member of the Circle 0.10 BuiltinOptions union");
    chargeOptionVectors(op);
    const void *table = op.builtin_options() ? op.builtin_options() : kEmptyTable + 4;
    out.type = type;
    out.value = circle::BuiltinOptionsUnion::UnPack(table, type, nullptr);
    return out;
  }

  // The option tables that hold vectors or strings.
  void chargeOptionVectors(const circle::Operator &op) {
    auto charge = [&](const auto *v, uint64_t element) {
      if (v)
        budget_.charge(uint64_t{v->size()} * element);
    };
    if (const auto *o = op.builtin_options_as_ReshapeOptions())
      charge(o->new_shape(), 4);
    else if (const auto *o = op.builtin_options_as_SqueezeOptions())
      charge(o->squeeze_dims(), 4);
    else if (const auto *o = op.builtin_options_as_ConcatEmbeddingsOptions()) {
      charge(o->num_columns_per_channel(), 4);
      charge(o->embedding_dim_per_channel(), 4);
    } else if (const auto *o = op.builtin_options_as_BucketizeOptions())
      charge(o->boundaries(), 4);
    else if (const auto *o = op.builtin_options_as_VarHandleOptions()) {
      charge(o->container(), 1);
      charge(o->shared_name(), 1);
    } else if (const auto *o = op.builtin_options_as_RunModelOptions()) {
      charge(o->location(), 1);
      charge(o->signature(), 1);
    }
  }

  CircleSignature signature(const circle::SignatureDef &def) {
    CircleSignature out;
    out.key = string(def.signature_key());
    out.subgraph_index = def.subgraph_index();
    auto maps = [&](const flatbuffers::Vector<flatbuffers::Offset<circle::TensorMap>> *v) {
      std::vector<CircleTensorMap> result;
      if (v)
        for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i)
          result.push_back({string(v->Get(i)->name()), v->Get(i)->tensor_index()});
      return result;
    };
    out.inputs = maps(def.inputs());
    out.outputs = maps(def.outputs());
    return out;
  }

  const Source &source_;
  Budget &budget_;
};

} // namespace

void Budget::charge(uint64_t bytes) {
  // Every container also costs its bookkeeping; counting it keeps empty vectors from being free.
  bytes += 32;
  if (bytes > remaining_)
    throw Error("model: decoding would need more memory than a file of this size can describe (tables shared "
                "many times over); the file is malformed");
  remaining_ -= bytes;
}

CircleModel convertModel(const circle::Model &root, const Source &source, Budget &budget) {
  return Converter(source, budget).model(root);
}

} // namespace tico::circle_reader
