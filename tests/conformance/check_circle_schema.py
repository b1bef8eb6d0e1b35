#!/usr/bin/env python3
"""Conformance of tico's Circle writer with an independent reader.

Runs the conformance writer (a C++ program linked to tico-core), then decodes every file it
wrote with the `circle_schema` package (Samsung ONE's generated Python reader of the Circle
0.10 schema) and compares each decoded field with expected.json:

- values recorded as enum *names* are resolved through circle_schema, so every enumerator,
  union discriminant and field id of our own schema is checked against the published one;
- a field the expectations do not mention must decode to the reader's default, so nothing
  stray is written;
- payloads are compared byte for byte: inline ones through Buffer.data (and their 16-byte
  alignment in the file), external ones at Buffer.offset/size.

Exit status 0 only when every file matches. A missing circle_schema package is a failure.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

try:
    from circle_schema.v0_10 import circle
except ImportError as error:  # never skip: the check is the point of this test
    sys.exit(
        "FAIL: the independent Circle reader is not installed ({}).\n"
        "Install it with:  {} -m pip install 'circle-schema==0.10.1'".format(error, sys.executable)
    )


def camel(snake):
    """flatc's Python object API spells fields in lowerCamelCase."""
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def enum_number(enum_name, value_name):
    module = getattr(circle, enum_name)
    return getattr(getattr(module, enum_name), value_name)


def as_list(value):
    if value is None:
        return None
    if hasattr(value, "tolist"):
        return value.tolist()
    return list(value)


def as_text(value):
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else value


def is_default(value, default):
    if default is None or isinstance(default, list):
        return as_list(value) == as_list(default)
    return value == default


class Checker:
    def __init__(self):
        self.errors = []
        self.compared = 0

    def fail(self, path, message):
        self.errors.append("{}: {}".format(path, message))

    def value(self, decoded, expected, path):
        self.compared += 1
        if expected is None:
            if decoded is not None:
                self.fail(path, "expected absent, decoded {!r}".format(decoded))
            return
        if isinstance(expected, dict) and "__enum__" in expected:
            try:
                number = enum_number(expected["__enum__"], expected["name"])
            except AttributeError:
                self.fail(path, "circle_schema has no {}.{}".format(expected["__enum__"], expected["name"]))
                return
            if decoded != number:
                self.fail(path, "expected {}.{} = {}, decoded {!r}".format(
                    expected["__enum__"], expected["name"], number, decoded))
            return
        if isinstance(expected, dict) and "__table__" in expected:
            want = expected["__table__"] + "T"
            if type(decoded).__name__ != want:
                self.fail(path, "expected a {}, decoded {}".format(want, type(decoded).__name__))
                return
            self.table(decoded, expected["fields"], path)
            return
        if isinstance(expected, dict):
            if decoded is None:
                self.fail(path, "expected a table, decoded nothing")
                return
            self.table(decoded, expected, path)
            return
        if isinstance(expected, list):
            items = as_list(decoded)
            if items is None:
                self.fail(path, "expected {} entries, decoded nothing".format(len(expected)))
                return
            if len(items) != len(expected):
                self.fail(path, "expected {} entries, decoded {}".format(len(expected), len(items)))
                return
            for i, (d, e) in enumerate(zip(items, expected)):
                self.value(d, e, "{}[{}]".format(path, i))
            return
        if isinstance(expected, str):
            if as_text(decoded) != expected:
                self.fail(path, "expected {!r}, decoded {!r}".format(expected, as_text(decoded)))
            return
        if isinstance(expected, bool):
            if decoded is not expected and decoded != expected:
                self.fail(path, "expected {}, decoded {!r}".format(expected, decoded))
            return
        if decoded != expected:  # ints, and floats recorded as exact float32 values
            self.fail(path, "expected {!r}, decoded {!r}".format(expected, decoded))

    def table(self, decoded, expected, path, checked_elsewhere=()):
        wanted = {camel(k): v for k, v in expected.items()}
        attributes = vars(decoded)
        for name in sorted(set(wanted) - set(attributes)):
            self.fail(path, "circle_schema's {} has no field '{}'".format(type(decoded).__name__, name))
        defaults = vars(type(decoded)())
        for name, value in attributes.items():
            if name in checked_elsewhere:
                continue
            field_path = "{}.{}".format(path, name)
            if name in wanted:
                self.value(value, wanted[name], field_path)
            else:
                self.compared += 1
                default = defaults.get(name)
                if not is_default(value, default):
                    self.fail(field_path, "not expected in the file, decoded {!r} (default {!r})".format(value, default))


def check_file(checker, out_dir, entry):
    path = out_dir / entry["path"]
    data = path.read_bytes()
    label = entry["path"]
    if data[4:8] != entry["identifier"].encode():
        checker.fail(label, "identifier {!r}, expected {!r}".format(data[4:8], entry["identifier"]))
    if entry["identifier"] == "CIR0" and not circle.Model.Model.ModelBufferHasIdentifier(data, 0):
        checker.fail(label, "circle_schema does not recognise the CIR0 identifier")

    model = circle.Model.ModelT.InitFromPackedBuf(data, 0)
    root = circle.Model.Model.GetRootAs(data, 0)
    expected = dict(entry["model"])
    buffers = expected.pop("buffers")
    # The legacy opcode byte follows from the full code by the format's rule (saturated at
    # PLACEHOLDER_FOR_GREATER_OP_CODES = 127, negative Circle codes unchanged).
    for code in expected["operator_codes"]:
        number = enum_number("BuiltinOperator", code["builtin_code"]["name"])
        code["deprecated_builtin_code"] = min(number, 127)
    checker.table(model, expected, label, checked_elsewhere={"buffers"})

    # Buffers: compared here because where the bytes are depends on the layout.
    if model.buffers is None or len(model.buffers) != len(buffers):
        checker.fail(label + ".buffers", "expected {} buffers".format(len(buffers)))
        return
    previous_end = 0
    for index, (buffer, want) in enumerate(zip(model.buffers, buffers)):
        where = "{}.buffers[{}]".format(label, index)
        checker.compared += 1
        payload = bytes.fromhex(want["__payload__"]) if want["__payload__"] is not None else None
        if payload is None:
            if buffer.data is not None or buffer.offset != 0 or buffer.size != 0:
                checker.fail(where, "expected an empty buffer")
            continue
        if entry["layout"] == "inline":
            if buffer.offset != 0 or buffer.size != 0:
                checker.fail(where, "inline buffer has offset/size {}/{}".format(buffer.offset, buffer.size))
            if bytes(as_list(buffer.data) or []) != payload:
                checker.fail(where, "payload differs")
            table = root.Buffers(index)._tab
            start = table.Vector(table.Offset(4))
            if start % 16 != 0:
                checker.fail(where, "payload starts at {}, not 16-byte aligned".format(start))
        else:
            if buffer.data is not None:
                checker.fail(where, "external buffer also has inline data")
            if buffer.offset <= 1 or buffer.offset % 16 != 0:
                checker.fail(where, "bad offset {}".format(buffer.offset))
            if buffer.size != len(payload):
                checker.fail(where, "size {}, expected {}".format(buffer.size, len(payload)))
            if buffer.offset < previous_end:
                checker.fail(where, "overlaps the previous payload")
            if data[buffer.offset:buffer.offset + buffer.size] != payload:
                checker.fail(where, "bytes at offset {} differ".format(buffer.offset))
            previous_end = buffer.offset + buffer.size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writer", required=True, help="the tico-circle-conformance-writer program")
    parser.add_argument("--out-dir", required=True, help="where to write and read the files")
    args = parser.parse_args()
    out_dir = Path(args.out_dir)

    subprocess.run([args.writer, str(out_dir)], check=True)
    expected = json.loads((out_dir / "expected.json").read_text())

    checker = Checker()
    for entry in expected["files"]:
        check_file(checker, out_dir, entry)

    files = len(expected["files"])
    if checker.errors:
        for line in checker.errors[:200]:
            print("MISMATCH " + line)
        print("FAIL: {} mismatches in {} files ({} fields compared)".format(len(checker.errors), files, checker.compared))
        return 1
    print("OK: {} files, {} fields compared with circle_schema {}".format(files, checker.compared, circle_version()))
    return 0


def circle_version():
    try:
        from importlib.metadata import version
        return version("circle-schema")
    except Exception:  # the version is informative only
        return "(unknown version)"


if __name__ == "__main__":
    sys.exit(main())
