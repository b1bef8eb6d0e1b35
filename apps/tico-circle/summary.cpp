// The model summary behind `tico-circle inspect` (and the Python package's CircleModel.inspect).
//
// Text and JSON are both printed from one JSON document, so they always show the same facts.
#include "summary.h"
#include "incremental_manifest.h"

#include "tico/circle/query.h"
#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace tico::circle_tool {

using nlohmann::json;

std::string tensorTypeText(const CircleTensor &tensor) {
  const char *type = circle::EnumNameTensorType(tensor.type);
  std::string text = type && *type ? type : "type" + std::to_string(static_cast<int>(tensor.type));
  for (auto &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  text += "[";
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    if (i)
      text += ",";
    const bool dynamic = i < tensor.shape_signature.size() && tensor.shape_signature[i] < 0;
    text += dynamic ? "?" : std::to_string(tensor.shape[i]);
  }
  return text + "]";
}

uint64_t tensorPayloadBytes(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer >= model.buffers.size() || !model.buffers[tensor.buffer].data)
    return 0;
  return model.buffers[tensor.buffer].data->nbytes();
}

namespace {

json tensorRef(const CircleSubGraph &sg, int64_t index) {
  json out = {{"tensor", index}};
  if (index < 0 || static_cast<uint64_t>(index) >= sg.tensors.size())
    return out;
  const CircleTensor &t = sg.tensors[index];
  out["name"] = t.name;
  const char *type = circle::EnumNameTensorType(t.type);
  out["type"] = type && *type ? type : std::to_string(static_cast<int>(t.type));
  out["shape"] = t.shape;
  if (!t.shape_signature.empty())
    out["shape_signature"] = t.shape_signature;
  out["text"] = tensorTypeText(t);
  return out;
}

// A float as the shortest decimal that reads back as the same float, so 0.1f shows as 0.1
// rather than the double nearest to it (0.10000000149011612).
double shortestFloat(float value) {
  if (!std::isfinite(value))
    return static_cast<double>(value);
  char buf[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buf, nullptr) == value)
      break;
  }
  return std::strtod(buf, nullptr);
}

json floatList(const std::vector<float> &values) {
  json out = json::array();
  for (float v : values)
    out.push_back(shortestFloat(v));
  return out;
}

// The tensor's QuantizationParameters, every field that is set.
json quantizationEntry(const circle::QuantizationParametersT &q) {
  json out = json::object();
  out["scale"] = floatList(q.scale);
  out["zero_point"] = q.zero_point;
  out["quantized_dimension"] = q.quantized_dimension;
  if (!q.min.empty() || !q.max.empty()) {
    out["min"] = floatList(q.min);
    out["max"] = floatList(q.max);
  }
  if (q.details.type != circle::QuantizationDetails::NONE) {
    const char *name = circle::EnumNameQuantizationDetails(q.details.type);
    out["details"] = name && *name ? name : std::to_string(static_cast<int>(q.details.type));
  }
  return out;
}

json tensorEntry(const CircleModel &model, const CircleSubGraph &sg, std::size_t index) {
  json out = tensorRef(sg, static_cast<int64_t>(index));
  const CircleTensor &t = sg.tensors[index];
  out["buffer"] = t.buffer;
  out["bytes"] = tensorPayloadBytes(model, t);
  if (t.is_variable)
    out["is_variable"] = true;
  const bool mx = t.type == circle::TensorType::MXINT8 || t.type == circle::TensorType::MXFP4;
  if (isQuantized(t) || (t.quantization && (!t.quantization->min.empty() || mx)))
    out["quantization"] = quantizationEntry(*t.quantization);
  return out;
}

json subgraphEntry(const CircleModel &model, std::size_t s, const SummaryOptions &request) {
  const CircleSubGraph &sg = model.subgraphs[s];
  json out = {{"index", s}, {"name", sg.name}, {"tensor_count", sg.tensors.size()},
              {"operator_count", sg.operators.size()}};
  out["inputs"] = json::array();
  for (int32_t t : sg.inputs)
    out["inputs"].push_back(tensorRef(sg, t));
  out["outputs"] = json::array();
  for (int32_t t : sg.outputs)
    out["outputs"].push_back(tensorRef(sg, t));
  std::map<std::string, std::size_t> histogram;
  for (const auto &op : sg.operators)
    ++histogram[operatorName(model, op)];
  out["operator_histogram"] = histogram;
  uint64_t constant_bytes = 0;
  for (const auto &t : sg.tensors)
    constant_bytes += tensorPayloadBytes(model, t);
  out["constant_bytes"] = constant_bytes;
  if (request.operators) {
    out["operators"] = json::array();
    for (std::size_t o = 0; o < sg.operators.size(); ++o) {
      const CircleOperator &op = sg.operators[o];
      json entry = {{"index", o}, {"op", operatorName(model, op)}, {"opcode_index", op.opcode_index},
                    {"inputs", op.inputs}, {"outputs", op.outputs}};
      if (op.builtin_options.type != circle::BuiltinOptions::NONE) {
        const char *name = circle::EnumNameBuiltinOptions(op.builtin_options.type);
        entry["options"] = name && *name ? name : std::to_string(static_cast<int>(op.builtin_options.type));
      }
      if (!op.custom_options.empty())
        entry["custom_options_bytes"] = op.custom_options.size();
      out["operators"].push_back(std::move(entry));
    }
  }
  if (request.tensors) {
    out["tensors"] = json::array();
    for (std::size_t t = 0; t < sg.tensors.size(); ++t)
      out["tensors"].push_back(tensorEntry(model, sg, t));
  }
  return out;
}

} // namespace

json summarizeModel(const CircleModel &model, const std::string &name, uint64_t file_bytes,
                    const SummaryOptions &request) {
  json doc;
  doc["file"] = name;
  doc["file_bytes"] = file_bytes;
  doc["version"] = model.version;
  doc["description"] = model.description;
  doc["operator_codes"] = json::array();
  for (std::size_t c = 0; c < model.operator_codes.size(); ++c) {
    const auto &code = model.operator_codes[c];
    json entry = {{"index", c}, {"name", operatorCodeName(model, static_cast<uint32_t>(c))},
                  {"builtin_code", code.builtin_code}, {"version", code.version}};
    if (!code.custom_code.empty())
      entry["custom_code"] = code.custom_code;
    doc["operator_codes"].push_back(std::move(entry));
  }
  doc["subgraph_count"] = model.subgraphs.size();
  doc["subgraphs"] = json::array();
  if (request.subgraph >= 0 && static_cast<std::size_t>(request.subgraph) >= model.subgraphs.size())
    throw Error("--subgraph " + std::to_string(request.subgraph) + " out of range (the model has " +
                std::to_string(model.subgraphs.size()) + " subgraphs)");
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s)
    if (request.subgraph < 0 || static_cast<std::size_t>(request.subgraph) == s)
      doc["subgraphs"].push_back(subgraphEntry(model, s, request));
  doc["signatures"] = json::array();
  for (const auto &signature : model.signatures) {
    json entry = {{"key", signature.key}, {"subgraph_index", signature.subgraph_index}};
    for (const auto &[field, maps] : {std::pair{"inputs", &signature.inputs}, std::pair{"outputs", &signature.outputs}}) {
      entry[field] = json::array();
      for (const auto &m : *maps)
        entry[field].push_back({{"name", m.name}, {"tensor_index", m.tensor_index}});
    }
    doc["signatures"].push_back(std::move(entry));
  }
  uint64_t payload = 0;
  std::size_t with_data = 0;
  json sizes = json::array();
  for (std::size_t b = 0; b < model.buffers.size(); ++b) {
    const auto &data = model.buffers[b].data;
    const uint64_t bytes = data ? data->nbytes() : 0;
    payload += bytes;
    with_data += bytes > 0;
    if (request.buffers && bytes > 0)
      sizes.push_back({{"index", b}, {"bytes", bytes}});
  }
  doc["buffers"] = {{"count", model.buffers.size()}, {"with_data", with_data}, {"payload_bytes", payload}};
  if (request.buffers)
    doc["buffers"]["sizes"] = std::move(sizes);
  doc["metadata"] = json::array();
  for (const auto &[name, buffer] : model.metadata) {
    const uint64_t bytes = buffer < model.buffers.size() && model.buffers[buffer].data
                               ? model.buffers[buffer].data->nbytes()
                               : 0;
    doc["metadata"].push_back({{"name", name}, {"buffer", buffer}, {"bytes", bytes}});
  }
  try {
    if (auto manifest = readIncrementalManifest(model))
      doc["incremental"] = summarizeIncrementalManifest(*manifest);
  } catch (const Error &e) {
    doc["incremental"] = {{"error", e.what()}};
  }
  if (request.verify) {
    auto diagnostics = verifyCircleModel(model);
    for (auto &d : checkIncrementalManifest(model))
      diagnostics.push_back(std::move(d));
    json list = json::array();
    for (const auto &d : diagnostics)
      list.push_back(d.str());
    doc["verify"] = {{"errors", countDiagnostics(diagnostics, CircleSeverity::Error)},
                     {"warnings", countDiagnostics(diagnostics, CircleSeverity::Warning)},
                     {"diagnostics", std::move(list)}};
  }
  return doc;
}

namespace {

// Names come from the file: control bytes (ESC sequences, NUL, newlines) are shown as \xNN so a
// crafted name cannot drive the terminal or fake lines of the summary.
std::string printable(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      const char *digits = "0123456789abcdef";
      out += {'\\', 'x', digits[u >> 4], digits[u & 15]};
    } else {
      out += c;
    }
  }
  return out;
}
std::string printable(const json &value) { return printable(value.get<std::string>()); }

std::string tensorLine(const json &ref) {
  std::string line = "tensor " + std::to_string(ref["tensor"].get<int64_t>());
  if (ref.contains("name"))
    line += " '" + printable(ref["name"]) + "': " + ref["text"].get<std::string>();
  else
    line += " (out of range)";
  return line;
}

// "[a, b, c]" from a JSON list, the first kShownValues entries and a count of the rest.
std::string valueList(const json &list) {
  constexpr std::size_t kShownValues = 8;
  std::string out = "[";
  for (std::size_t i = 0; i < list.size() && i < kShownValues; ++i)
    out += (i ? ", " : "") + list[i].dump();
  if (list.size() > kShownValues)
    out += ", ... (" + std::to_string(list.size()) + " values)";
  return out + "]";
}

// " q: scale=[...] zp=[...] axis=N min=[...] max=[...] details=X" (axis only per channel).
// MX tensors (MXINT8 / MXFP4: the type names the format): " q: mx axis=N", N = the dimension
// along which blocks of 32 elements share an exponent.
std::string quantizationText(const json &q) {
  if (q["scale"].empty() && q["zero_point"].empty() && !q.contains("min") && !q.contains("details"))
    return " q: mx axis=" + std::to_string(q["quantized_dimension"].get<int64_t>());
  std::string out = " q: scale=" + valueList(q["scale"]) + " zp=" + valueList(q["zero_point"]);
  if (q["scale"].size() > 1 || q["quantized_dimension"].get<int64_t>() != 0)
    out += " axis=" + std::to_string(q["quantized_dimension"].get<int64_t>());
  if (q.contains("min"))
    out += " min=" + valueList(q["min"]) + " max=" + valueList(q["max"]);
  if (q.contains("details"))
    out += " details=" + q["details"].get<std::string>();
  return out;
}

std::string indexList(const json &list) {
  std::string out;
  for (const auto &v : list)
    out += (out.empty() ? "" : ", ") + std::to_string(v.get<int64_t>());
  return "(" + out + ")";
}

} // namespace

void printSummary(const json &doc, std::ostream &os) {
  os << printable(doc["file"]) << ": Circle model version " << doc["version"] << ", description '"
     << printable(doc["description"]) << "', " << doc["file_bytes"] << " bytes\n";
  const json &buffers = doc["buffers"];
  os << "  " << doc["operator_codes"].size() << " operator codes, " << doc["subgraph_count"] << " subgraphs, "
     << buffers["count"] << " buffers (" << buffers["with_data"] << " with data, " << buffers["payload_bytes"]
     << " payload bytes), " << doc["signatures"].size() << " signatures\n";
  for (const auto &sg : doc["subgraphs"]) {
    os << "subgraph " << sg["index"] << " '" << printable(sg["name"]) << "': " << sg["tensor_count"]
       << " tensors, " << sg["operator_count"] << " operators, " << sg["constant_bytes"] << " constant bytes\n";
    for (const char *io : {"inputs", "outputs"}) {
      os << "  " << io << ":\n";
      for (std::size_t i = 0; i < sg[io].size(); ++i)
        os << "    [" << i << "] " << tensorLine(sg[io][i]) << "\n";
    }
    std::string histogram;
    for (const auto &[op, count] : sg["operator_histogram"].items())
      histogram += (histogram.empty() ? "" : ", ") + printable(op) + " x" + std::to_string(count.get<std::size_t>());
    os << "  operator counts: " << (histogram.empty() ? "none" : histogram) << "\n";
    if (sg.contains("operators")) {
      os << "  operators:\n";
      for (const auto &op : sg["operators"]) {
        os << "    #" << op["index"] << " " << printable(op["op"]) << " " << indexList(op["inputs"]) << " -> "
           << indexList(op["outputs"]);
        if (op.contains("options"))
          os << " [" << op["options"].get<std::string>() << "]";
        os << "\n";
      }
    }
    if (sg.contains("tensors")) {
      os << "  tensors:\n";
      for (const auto &t : sg["tensors"]) {
        os << "    " << tensorLine(t) << " buffer " << t["buffer"];
        if (t["bytes"].get<uint64_t>() > 0)
          os << " (" << t["bytes"] << " bytes)";
        if (t.contains("is_variable"))
          os << " variable";
        if (t.contains("quantization"))
          os << quantizationText(t["quantization"]);
        os << "\n";
      }
    }
  }
  for (const auto &signature : doc["signatures"]) {
    os << "signature '" << printable(signature["key"]) << "' -> subgraph " << signature["subgraph_index"];
    for (const char *io : {"inputs", "outputs"}) {
      os << "; " << io << ":";
      for (const auto &m : signature[io])
        os << " " << printable(m["name"]) << "=" << m["tensor_index"];
    }
    os << "\n";
  }
  if (buffers.contains("sizes")) {
    os << "buffers with data:\n";
    for (const auto &b : buffers["sizes"])
      os << "  buffer " << b["index"] << ": " << b["bytes"] << " bytes\n";
  }
  for (const auto &m : doc["metadata"])
    os << "metadata '" << printable(m["name"]) << "': buffer " << m["buffer"] << " (" << m["bytes"]
       << " bytes)\n";
  if (doc.contains("incremental")) {
    const json &inc = doc["incremental"];
    if (inc.contains("error")) {
      os << "incremental manifest: " << printable(inc["error"]) << "\n";
    } else {
      std::string groups;
      for (const auto &g : inc["groups"])
        groups += (groups.empty() ? "" : ", ") + printable(g);
      os << "incremental manifest: groups " << groups << "; " << inc["callables"].size() << " callables, "
         << inc["retained"].size() << " retained tensors (" << inc["retained_bytes"] << " bytes), "
         << inc["strategies"].size() << " strategies, " << inc["rejected"] << " rejected candidates\n";
      for (const auto &c : inc["callables"])
        os << "  callable '" << printable(c["signature"]) << "' (" << c["kind"].get<std::string>()
           << ", support " << c["support"].dump() << "): " << c["est_macs"] << " MACs\n";
      for (const auto &s : inc["strategies"]) {
        std::string steps;
        for (const auto &st : s["steps"])
          steps += (steps.empty() ? "" : " -> ") + printable(st);
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.4f", s["mac_ratio"].get<double>());
        os << "  strategy '" << printable(s["name"]) << "' changed " << s["changed"].dump() << ": " << steps
           << " (MAC ratio " << ratio << ")\n";
      }
    }
  }
  if (doc.contains("verify")) {
    const json &v = doc["verify"];
    os << "verify: " << v["errors"] << " errors, " << v["warnings"] << " warnings\n";
    for (const auto &d : v["diagnostics"])
      os << "  " << printable(d) << "\n";
  }
}

} // namespace tico::circle_tool
