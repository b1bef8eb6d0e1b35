// The operator table of the installed PyTorch release, generated at build time by
// tools/gen_op_schemas.py. It lives in this plugin, not the core: the .pt2 format omits
// default arguments, so its reader is what needs them, and keeping it here lets the core build
// without Python. The plugin registers it at load; the unit tests link it directly.
#pragma once

#include <cstddef>
#include <string_view>

namespace tico {
class OpSchemaRegistry;
class Registrar;
} // namespace tico

namespace tico::pt2 {

extern const char *const kTorchOpTableVersion; // torch.__version__ of the build
extern const std::string_view kTorchSchemas[]; // PyTorch schema text, sorted
extern const std::size_t kTorchSchemaCount;
// Python operators torch.export records on symbolic values ("_operator::add.default",
// "math::trunc.default", "torch::sym_max.default"): ops without a schema.
extern const std::string_view kTorchSchemalessOps[];
extern const std::size_t kTorchSchemalessOpCount;

// Registers the schemas (as a table other plugins may redefine entries of) and the
// schema-less operators.
void registerTorchOpTable(Registrar &registrar);

// A registry holding just the table, parsed once (for tests and tools that build graphs
// without loading plugins).
const OpSchemaRegistry &torchOpSchemas();

} // namespace tico::pt2
