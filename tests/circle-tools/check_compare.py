"""Checks the numbers of `tico-circle compare` reports for the MLPs of compare_test_models.h.

    check_compare.py identical REPORT.json
    check_compare.py healthy REPORT.json Y_RUN.npy Y_REF.npy
    check_compare.py defect REPORT.json float|quant
    check_compare.py html REPORT.html DIVERGENCE
    check_compare.py encodings-html REPORT.html
"""
import json
import math
import re
import sys

import numpy as np

THRESHOLD = 20.0
# Scaling a weight by 4 leaves an error of 3x the weight: 10*log10(1/9).
FOUR_TIMES_DB = 10 * math.log10(1 / 9)


def db(value):
    return float(value)  # numbers, or the strings "inf" / "-inf"


def fail(message, report=None):
    sys.exit(message + ("" if report is None else "\n" + json.dumps(report, indent=1)[:4000]))


def rows_by_name(report):
    return {row["tensor"]: row for row in report["rows"]}


def check_identical(report):
    rows = report["rows"]
    if [r["tensor"] for r in rows] != ["x", "h1", "h2", "y"]:
        fail(f"rows should be x, h1, h2, y in execution order, got {[r['tensor'] for r in rows]}", report)
    for row in rows:
        if db(row["sqnr_db"]) != math.inf or row["cosine"] != 1.0 or db(row["max_abs"]) != 0 or db(row["mean_abs"]) != 0:
            fail(f"identical models: '{row['tensor']}' should be exact", report)
    if report["divergence"] is not None or report["summary"]["first_divergence"] is not None:
        fail("identical models have no divergence", report)
    if [r["op"] for r in rows] != [-1, 0, 1, 2] or rows[1]["op_name"] != "FULLY_CONNECTED":
        fail("producing operators should be input, #0, #1, #2 FULLY_CONNECTED", report)


def sqnr(reference, test):
    reference = reference.astype(np.float64)
    noise = np.sum((reference - test.astype(np.float64)) ** 2)
    return math.inf if noise == 0 else 10 * math.log10(np.sum(reference**2) / noise)


def check_healthy(report, y_run_path, y_ref_path):
    rows = rows_by_name(report)
    if report["divergence"] is not None:
        fail("the healthy quantized model must not diverge at 20 dB", report)
    if db(rows["x"]["sqnr_db"]) != math.inf:
        fail("both models read the same float input x", report)
    for name in ("h1", "h2", "y"):
        value = db(rows[name]["sqnr_db"])
        if not THRESHOLD < value < 60:
            fail(f"'{name}': uint8 quantization should give 20..60 dB, got {value}", report)
        if rows[name]["type_b"].split()[0] not in ("uint8", "float32"):
            fail(f"'{name}': unexpected B type {rows[name]['type_b']}", report)
    if not rows["h1"]["type_b"].startswith("uint8 (q"):
        fail("h1 is a quantized uint8 tensor in B", report)
    # Independent check of the metric: SQNR of the quantized model's output (tico-circle run)
    # against y computed in double precision by the generator.
    expected = sqnr(np.load(y_ref_path), np.load(y_run_path))
    got = db(rows["y"]["sqnr_db"])
    if abs(expected - got) > 0.05:
        fail(f"SQNR of y: report {got:.4f} dB, NumPy {expected:.4f} dB", report)
    y_ref, y_run = np.load(y_ref_path).astype(np.float64), np.load(y_run_path).astype(np.float64)
    max_abs = float(np.max(np.abs(y_ref - y_run)))
    if abs(db(rows["y"]["max_abs"]) - max_abs) > 1e-4:
        fail(f"max |a-b| of y: report {rows['y']['max_abs']}, NumPy {max_abs}", report)
    cosine = float(np.sum(y_ref * y_run) / math.sqrt(np.sum(y_ref**2) * np.sum(y_run**2)))
    if abs(rows["y"]["cosine"] - cosine) > 1e-5:
        fail(f"cosine of y: report {rows['y']['cosine']}, NumPy {cosine}", report)
    print(f"healthy: h1 {rows['h1']['sqnr_db']:.1f} dB, h2 {rows['h2']['sqnr_db']:.1f} dB, y {got:.2f} dB (NumPy {expected:.2f})")


def check_defect(report, reference):
    rows = report["rows"]
    summary = report["summary"]
    divergence = report["divergence"]
    if summary["first_divergence"] != "h2" or divergence is None or divergence["tensor"] != "h2":
        fail("the planted defect (fc2's weight scales x4) must make h2 the first divergence", report)
    op = 1 if reference == "float" else 2  # the quantized model starts with a QUANTIZE
    if divergence["op"] != op or divergence["op_name"] != "FULLY_CONNECTED":
        fail(f"h2 is written by A's operator #{op} FULLY_CONNECTED", report)
    index = [r["tensor"] for r in rows].index("h2")
    for row in rows[:index]:
        if db(row["sqnr_db"]) < THRESHOLD:
            fail(f"'{row['tensor']}' comes before the divergence and must be above the threshold", report)
    h2 = db(rows[index]["sqnr_db"])
    if h2 > 10:
        fail(f"h2 should have collapsed (saturated codes), got {h2} dB", report)
    inputs = {i["tensor"]: i for i in divergence["inputs"]}
    h1 = db(rows_by_name(report)["h1"]["sqnr_db"])
    if db(inputs["h1"]["sqnr_db"]) != h1 or inputs["h1"]["constant"]:
        fail("the divergence lists its activation input h1 with h1's SQNR", report)
    if reference == "quant" and h1 != math.inf:
        fail("quantized vs defective: everything before fc2 is identical", report)
    weight = inputs["fc2.weight" if reference == "float" else "fc2.weight_codes"]
    tolerance = 0.5 if reference == "float" else 0.01  # float: plus the weights' own rounding error
    if not weight["constant"] or abs(db(weight["sqnr_db"]) - FOUR_TIMES_DB) > tolerance:
        fail(f"fc2's weight should be at {FOUR_TIMES_DB:.2f} dB, got {weight['sqnr_db']}", report)
    expected_summary = f"'h2' (FULLY_CONNECTED #{op}): inputs at {'inf' if h1 == math.inf else f'{h1:.1f}'} dB, output at {h2:.1f} dB"
    if divergence["summary"] != expected_summary:
        fail(f"summary '{divergence['summary']}', expected '{expected_summary}'", report)
    print(f"defect ({reference}): {divergence['summary']}; weight at {weight['sqnr_db']:.2f} dB")


def check_html(path, name):
    text = open(path, encoding="utf-8").read()
    for needle in ("<!DOCTYPE html>", "<svg class=\"chart\"", "<polyline", "<table>", "class=\"divergence\"",
                   f"<b id=\"first-divergence\">{name}</b>", f"first divergence: {name}</text>"):
        if needle not in text:
            sys.exit(f"{path}: '{needle}' missing")
    for forbidden in ("<script", "src=", "href=", "@import", "url("):
        if forbidden in text:
            sys.exit(f"{path}: not self-contained ('{forbidden}')")
    print(f"html: {len(text)} bytes, divergence {name}")


def check_encodings_html(path):
    text = open(path, encoding="utf-8").read()
    # One bar per layer of error_ratio (fc1..fc3), one histogram per role (activation, bias, weight).
    bars = text.count('<rect class="bar" ')
    histograms = text.count('<svg class="histogram"')
    if bars != 3 or histograms != 3 or ">fc2</text>" not in text or "<script" in text:
        sys.exit(f"{path}: expected 3 error_ratio bars and 3 scale histograms, got {bars} and {histograms}")
    # The 40 weight scales (16 + 16 + 8 channels) are all in the weight histogram.
    weight = text[text.index("<h4>weight</h4>"):]
    weight = weight[:weight.index("</svg>")]
    counted = sum(int(n) for n in re.findall(r"\): (\d+)</title>", weight))
    if counted != 40:
        sys.exit(f"{path}: the weight histogram holds {counted} scales, expected 40")
    print(f"encodings html: {bars} bars, {histograms} histograms, 40 weight scales")


def main():
    case = sys.argv[1]
    if case == "html":
        check_html(sys.argv[2], sys.argv[3])
        return
    if case == "encodings-html":
        check_encodings_html(sys.argv[2])
        return
    report = json.load(open(sys.argv[2]))
    if report.get("format") != "tico.compare" or report.get("version") != 1:
        fail("not a tico.compare v1 report", report)
    if case == "identical":
        check_identical(report)
    elif case == "healthy":
        check_healthy(report, sys.argv[3], sys.argv[4])
    elif case == "defect":
        check_defect(report, sys.argv[3])
    else:
        sys.exit(f"unknown case {case}")
    print(f"{case}: ok")


main()
