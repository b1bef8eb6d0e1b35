// Raising the package's exception classes (tico_native/errors.py) from C++.
//
// The classes live in Python so that their hierarchy is plain to read and document; C++ picks
// the class by name. Every message is the text the CLI prints after "tico-run: error: ".
#pragma once

#include "tico/circle/serializer.h"
#include "tico/support/error.h"

#include <nanobind/nanobind.h>

#include <string>

namespace tico::python {

// Sets the Python error to tico_native.errors.<kind>(message) and throws nb::python_error.
// Needs the GIL.
[[noreturn]] void throwPython(const char *kind, const std::string &message);
// A path from Python goes to the C library as a C string, where an embedded NUL would cut it
// short ("a\0b" naming "a"): raises ValueError("<what>: embedded null byte"), as open() does.
// Returns `path`.
const std::string &requireNoNul(const std::string &path, const char *what);
// Text that may hold bytes from a file (tensor and signature names, metadata, messages quoting
// them) as a Python str: UTF-8, with invalid bytes shown as \xNN (errors="backslashreplace").
// Names and messages are plain UTF-8 almost always; a crafted file must still give a str, not a
// UnicodeDecodeError.
nanobind::str decodedText(const std::string &text);
// A name Python code may hand back (signature keys, tensor names): invalid bytes become lone
// surrogates (errors="surrogateescape", os.fsdecode's convention), so it compares equal to
// itself and name.encode("utf-8", "surrogateescape") gives the bytes back.
nanobind::str decodedName(const std::string &name);
// UnsupportedOpsError with its `ops` attribute (op, count, nodes, reason per missing op).
[[noreturn]] void throwUnsupported(const UnsupportedOpsError &error);

} // namespace tico::python
