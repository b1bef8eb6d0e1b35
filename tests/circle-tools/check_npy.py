"""Checks a tico-circle run output against NumPy for the models of make_circle_test_models."""
import sys

import numpy as np

out, case, x_path = sys.argv[1], sys.argv[2], sys.argv[3]
got = np.load(out)
x = np.load(x_path)
if case == "linear":
    w = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)
    t = x + w
    expected = t * x + t
elif case == "if_true":
    expected = x + x
elif case == "if_false":
    expected = x * x
else:
    sys.exit(f"unknown case {case}")
if got.dtype != expected.dtype or got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-5, atol=1e-5):
    sys.exit(f"{case}: got {got.dtype}{got.shape} {got}, expected {expected.dtype}{expected.shape} {expected}")
print(f"{case}: ok {got}")
