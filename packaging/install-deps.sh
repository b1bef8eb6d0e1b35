#!/usr/bin/env bash
# Installs everything tico needs on a fresh Debian bookworm machine:
#   - Debian packages: compiler, CMake/Ninja, FlatBuffers, Boost.DLL, yaml-cpp, spdlog,
#     GoogleTest, CLI11, nlohmann-json, Eigen (the GPTQ solver), LLVM FileCheck/lit, Graphviz,
#     clang + libFuzzer;
#   - a Python virtual environment (default: <repo>/.venv) with PyTorch 2.13.0 (CPU; its wheel
#     also provides LibTorch for the evaluator plugin), NumPy, pytest, the onert runtime,
#     the independent circle-schema reader, Hugging Face transformers (the real-model suite
#     builds its architectures from small configs, no weights are downloaded; models for the
#     Python package's tests), the pinned build requirements of the Python package
#     (nanobind, scikit-build-core; the same pins as pyproject.toml), and the original
#     converter's Python package (tico==0.3.0: the e2e suite exports programs with its
#     circle_custom:: ops, the quantization suite quantizes with its quantizer), torchao
#     (the quantization suite's PT2E models), and timm with torchvision and pillow in a
#     directory of their own, <venv>/timm-packages (the real-model suite's vision zoo).
# Idempotent: re-running skips what is already there.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"

apt_packages=(
  build-essential cmake ninja-build pkg-config git
  python3-venv python3-dev
  flatbuffers-compiler libflatbuffers-dev
  libboost-dev libboost-filesystem-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libeigen3-dev
  # oneDNN for the interpreter; its CMake package needs OpenCL's, which libdnnl-dev only recommends
  libdnnl-dev ocl-icd-opencl-dev
  # ICU: the LLM tokenizer's Unicode regular expressions and normalization (core/llm)
  libicu-dev
  # Python's documentation sources: the LLM tests' calibration (tutorial/) and evaluation
  # (reference/) text, kept apart
  python3.11-doc
  llvm-14-tools graphviz time
  clang libclang-rt-14-dev
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[install-deps] apt-get install ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python_bin="${PYTHON:-python3}"
if [[ ! -x "$venv/bin/python" ]]; then
  echo "[install-deps] creating virtual environment $venv"
  "$python_bin" -m venv "$venv"
fi
# pytest stays below 9: pytest-xdist 3.8 groups tests (--dist loadgroup, used by the e2e, model and
# quantization suites so that a case is exported and converted on one worker) by rewriting an item
# attribute pytest 9 no longer reads, and the grouping silently stops (tests/e2e/harness.py,
# require_working_loadgroup, fails a run where that happens).
# torch is pinned: an unpinned request would download a multi-GB CUDA build. tico==0.3.0 asks
# for an unpinned torch (and circle-schema, pyyaml, packaging, tqdm); requested in the same
# command as the pinned torch, it is satisfied by 2.13.0 and adds only itself. It also puts its
# own console scripts pt2-to-circle and tico-circle into $venv/bin: tico's tools are always run
# from the build tree by path (the tests take them from TICO_RUN / TICO_CIRCLE), never from PATH.
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  "torch==2.13.0" "numpy>=1.24" "pytest>=7,<9" "circle-schema==0.10.1" "pyyaml>=6" "pytest-xdist>=3" \
  "nanobind==3.1.0" "scikit-build-core==1.1.2" "transformers==5.24.0" "tico==0.3.0"
# torchao (PT2E quantization: the quantization suite's prepare_pt2e/convert_pt2e models) depends
# on torch without pinning it; --no-deps keeps it from touching the pinned torch.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps "torchao==0.18.0"
# Resemblyzer ships a trained 3-layer LSTM speaker encoder (pretrained.pt) that the model suite
# converts (tests/models/test_trained_lstm.py); only the weights file is read, so its audio
# dependencies (librosa, webrtcvad) are not installed.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps "resemblyzer==0.1.4"
# timm (the model suite's vision zoo, tests/models/timm_zoo.py) needs torchvision, whose release
# for torch 2.13.0 (0.28.0) is on PyPI only as a CUDA build: its C++ operator library needs
# libc10_cuda.so and does not load next to the CPU torch, and `import torchvision` then fails
# ("operator torchvision::nms does not exist"); tests/models/timm_support.py declares the two
# operator schemas it needs first (timm's classification models never call them). Installed
# outside site-packages, into $venv/timm-packages, which only timm_support.py puts on sys.path:
# in the venv, the failing torchvision would break every process that imports transformers'
# vision models (they import torchvision whenever it is installed). --no-deps: with --target pip
# installs every requirement again into that directory, ignoring the venv's, torch (PyPI's CUDA
# build) among them; the venv has timm's others (huggingface_hub, safetensors, pyyaml, from
# transformers above), and pillow, torchvision's only other one, is named here.
if [[ ! -d "$venv/timm-packages/timm-1.0.31.dist-info" || ! -d "$venv/timm-packages/torchvision-0.28.0.dist-info" ||
      ! -d "$venv/timm-packages/pillow-13.0.0.dist-info" ]]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --upgrade --target "$venv/timm-packages" \
    "torchvision==0.28.0" "timm==1.0.31" "pillow==13.0.0"
fi
# onert only publishes pre-releases; pin the one the suite is validated with.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --pre "onert==0.2.0.dev250922"

"$venv/bin/python" - <<'PY'
import os, torch
inc = os.path.join(os.path.dirname(torch.__file__), "include")
missing = [d for d in ("c10", "ATen", "torch/csrc") if not os.path.isdir(os.path.join(inc, d))]
if missing:
    raise SystemExit(f"torch {torch.__version__} wheel lacks C++ headers {missing}; see docs/build.md")
print(f"[install-deps] torch {torch.__version__}, LibTorch headers present")
PY
echo "[install-deps] done (python: $venv/bin/python)"
