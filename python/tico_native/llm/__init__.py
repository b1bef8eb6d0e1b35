"""LLMs on device (docs/llm.md): export a decoder LLM with prefill and decode signatures over a
KV cache, generate and evaluate on the built-in runtime, and the trained-model fixture.

    from tico_native import llm
    path = llm.gemma3_270m(install=True)            # float32 Gemma 3 270M checkpoint (cached)
    circle = llm.export(path, "gemma.circle", max_context=512, prefill_len=128)
    print(circle.tokenizer.decode(circle.generate("The capital of France is", 16)))
"""

from .cache_module import CachedCausalLM, LlmExportError
from .checkpoints import CheckpointError, gemma3_270m, gemma3_270m_gguf, load_causal_lm
from .export import export

__all__ = [
    "export",
    "CachedCausalLM",
    "LlmExportError",
    "CheckpointError",
    "gemma3_270m",
    "gemma3_270m_gguf",
    "load_causal_lm",
]
