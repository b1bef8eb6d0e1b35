// Reading the torch.export JSON dialect (torch/_export/serde/schema.py, export schema 8):
// checked field access, union variants, float spellings, and the schema's enum numbering.
//
// Helpers throw tico::Error whose message says where in the document the problem is; the
// frontend prefixes the file name.
#pragma once

#include "tico/ir/argument.h"
#include "tico/ir/dtype.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tico::pt2 {

using Json = nlohmann::json;

// Largest JSON entry parsed (the program, tensor configs). The DOM costs several times the
// text, so an unbounded entry could exhaust memory before anything is checked. The largest
// program of the models suite (MobileViT, decomposed: 674 nodes) has 2.3 MiB of JSON, about
// 3.5 KiB per node: the limit leaves room for some 300,000 nodes.
constexpr std::size_t kMaxJsonBytes = std::size_t{1} << 30;

// Parses JSON text that lives in the mapped archive. `what` names the entry in messages.
// Refuses text longer than `max_bytes`.
Json parseJson(std::string_view text, const std::string &what, std::size_t max_bytes = kMaxJsonBytes);

// Member `key` of object `obj`; throws "<context>: missing field 'key'" when absent or null.
const Json &field(const Json &obj, std::string_view key, const std::string &context);
// Member `key`, or null when absent or JSON null (dataclass fields may be either).
const Json *optionalField(const Json &obj, std::string_view key);

int64_t asInt(const Json &value, const std::string &context);
bool asBool(const Json &value, const std::string &context);
// Numbers, and the strings "Infinity", "-Infinity", "NaN" the serializer writes for them.
double asFloat(const Json &value, const std::string &context);
const std::string &asString(const Json &value, const std::string &context);
const Json &asArray(const Json &value, const std::string &context);
const Json &asObject(const Json &value, const std::string &context);

// A schema union is an object with exactly one member {"<variant>": value}.
std::pair<std::string, const Json *> unionVariant(const Json &value, const std::string &context);

// Schema enum codes -> IR enums, by name (the schema numbers differ from c10's).
DType scalarTypeFromCode(int64_t code, const std::string &context);
Layout layoutFromCode(int64_t code, const std::string &context);
MemoryFormat memoryFormatFromCode(int64_t code, const std::string &context);

// A SymInt that must be concrete ({"as_int": n}); e.g. sizes of saved weights.
int64_t concreteSymInt(const Json &value, const std::string &context);
std::vector<int64_t> concreteSymInts(const Json &list, const std::string &context);

// Export schema version this reader understands.
constexpr int kSchemaMajor = 8;
constexpr int kSchemaMinorWritten = 20; // what PyTorch 2.13 writes

} // namespace tico::pt2
