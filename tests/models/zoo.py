"""Real architectures from Hugging Face ``transformers``, random-initialised from small configs.

Every entry builds a model the way a user gets one (``AutoModel``-style classes with a config,
eval mode, caches off) and the example inputs that model takes.  The suite exports each model as
users export it (``torch.export.export`` of the model itself, and the same program after
``run_decompositions()``), converts it with tico-run, and runs the Circle file on onert and on the
built-in interpreter against eager PyTorch.

Sizes are tiny (hidden size 32-64, two layers) so the whole zoo converts and runs in a few
minutes, but every architectural feature of the family is there: rotary embeddings, grouped-query
attention, sliding windows, soft-capping, ALiBi, relative position buckets, layer/RMS/group norms,
depthwise and grouped convolutions, patch embeddings, feature extractors over raw audio, dual
towers.  Weights are drawn from a fixed seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch
import transformers as tf
from torch import nn
from torch.export import Dim

VOCAB = 128
SEQ = 8


@dataclass(frozen=True)
class ExpectedFailure:
    """A known gap of one entry: ``stage`` fails, for ``reason`` (strict: an unexpected pass fails)."""

    stage: str  # "conversion", "onert" or "interpreter"
    # For a conversion: what tico-run's error says, verbatim, or "OP has no Circle lowering: WHY"
    # for one line of the unsupported-op list.
    reason: str
    variants: tuple[str, ...] = ("export", "decomposed")


@dataclass
class ModelCase:
    name: str
    family: str  # llm, encoder, seq2seq, vision, audio, multimodal
    build: Callable[[], nn.Module]
    # Positional inputs and keyword inputs for a (batch, length) pair; length is the sequence length,
    # the image side or the audio length depending on the family.
    inputs: Callable[[int, int], tuple[tuple, dict]]
    size: tuple[int, int] = (1, SEQ)
    # Dynamic dims as (input name -> {dim index: Dim}); None for a static export. The second size
    # checks an unseen shape on the converted model.
    dynamic: Callable[[], dict] | None = None
    second_size: tuple[int, int] | None = None
    rtol: float = 1e-4
    atol: float = 1e-4
    expected_failures: tuple[ExpectedFailure, ...] = ()
    # Keyword arguments that are not model inputs but fixed call options (use_cache=False, ...).
    options: dict = field(default_factory=dict)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def token_ids(batch: int, length: int, *, seed: int = 1, vocab: int = VOCAB) -> torch.Tensor:
    # Ids from 4 upwards: small ids are pad/bos/eos in several configs, and a pad id inside the
    # sequence changes what some models compute (position ids from non-pad tokens).
    return torch.randint(4, vocab, (batch, length), generator=_gen(seed))


def ids_only(batch: int, length: int):
    return (token_ids(batch, length),), {}


def ids_and_mask(batch: int, length: int):
    ids = token_ids(batch, length)
    return (), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def pixels(side: int, channels: int = 3):
    def make(batch: int, _length: int):
        return (torch.randn(batch, channels, side, side, generator=_gen(2)),), {}

    return make


def audio(batch: int, length: int):
    return (torch.randn(batch, length, generator=_gen(3)),), {}


def seeded(factory: Callable[[], nn.Module], *, lively: bool = False) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        torch.manual_seed(0)
        model = factory()
        if lively:
            wake(model)
        return model.eval()

    return build


@torch.no_grad()
def wake(model: nn.Module) -> None:
    """Weights that keep activations alive through a deep CNN.

    Hugging Face initialises convolutions with a small normal (std 0.02): fifty layers later
    the activations of MobileNetV2 or EfficientNet are below 1e-24 and every output matches
    anything. He initialisation and batch-norm statistics away from the identity give outputs
    of order one, and exercise the batch-norm folding with real statistics.
    """
    for m in model.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv2d)):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        elif isinstance(m, nn.BatchNorm2d):
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.2, 0.2)
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)


def experts_as(model: nn.Module, implementation: str) -> nn.Module:
    model.set_experts_implementation(implementation)
    return model


def llm_config(config_class, **extra):
    """A two-layer decoder with grouped-query attention where the family supports it."""
    base = dict(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        use_cache=False,
    )
    base.update(extra)
    return config_class(**base)


def seq_dynamic(*names: str, batch: bool = False):
    def make():
        spec = {}
        for name in names:
            dims = {1: Dim("seq", min=2, max=32)}
            if batch:
                dims[0] = Dim("batch", min=1, max=8)
            spec[name] = dims
        return spec

    return make


def _llm(name, config_class, model_class=None, dynamic=True, **extra) -> ModelCase:
    model_class = model_class or getattr(tf, config_class.__name__.replace("Config", "ForCausalLM"))
    return ModelCase(
        name=name,
        family="llm",
        build=seeded(lambda: model_class(llm_config(config_class, **extra))),
        inputs=ids_only,
        dynamic=seq_dynamic("input_ids") if dynamic else None,
        second_size=(1, 5) if dynamic else None,
    )


CASES: list[ModelCase] = [
    # ---------------------------------------------------------------- LLM decoders
    _llm("llama", tf.LlamaConfig),
    _llm("mistral", tf.MistralConfig, sliding_window=4),
    _llm("qwen2", tf.Qwen2Config),
    _llm("qwen3", tf.Qwen3Config, head_dim=8),
    _llm("gemma", tf.GemmaConfig, head_dim=8),
    _llm("gemma2", tf.Gemma2Config, head_dim=8, sliding_window=4),
    _llm("gemma3-text", tf.Gemma3TextConfig, tf.Gemma3ForCausalLM, head_dim=8, sliding_window=4),
    _llm("phi3", tf.Phi3Config, pad_token_id=0),
    _llm("granite", tf.GraniteConfig),
    _llm("olmo2", tf.Olmo2Config),
    _llm("smollm3", tf.SmolLM3Config, pad_token_id=0),
    _llm("starcoder2", tf.Starcoder2Config),
    ModelCase(
        name="phi",
        family="llm",
        build=seeded(lambda: tf.PhiForCausalLM(llm_config(tf.PhiConfig, partial_rotary_factor=0.5))),
        inputs=ids_only,
        dynamic=seq_dynamic("input_ids"),
        second_size=(1, 5),
    ),
    ModelCase(
        name="gpt2",
        family="llm",
        build=seeded(lambda: tf.GPT2LMHeadModel(tf.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, use_cache=False))),
        inputs=ids_only,
        dynamic=seq_dynamic("input_ids"),
        second_size=(1, 5),
    ),
    ModelCase(
        name="gpt-neox",
        family="llm",
        build=seeded(lambda: tf.GPTNeoXForCausalLM(llm_config(tf.GPTNeoXConfig, num_key_value_heads=None, rotary_pct=0.5))),
        inputs=ids_only,
        dynamic=seq_dynamic("input_ids"),
        second_size=(1, 5),
    ),
    ModelCase(
        name="opt",
        family="llm",
        build=seeded(
            lambda: tf.OPTForCausalLM(
                tf.OPTConfig(vocab_size=VOCAB, hidden_size=32, ffn_dim=64, num_hidden_layers=2, num_attention_heads=4, word_embed_proj_dim=32, max_position_embeddings=64, use_cache=False)
            )
        ),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="bloom",
        family="llm",
        build=seeded(lambda: tf.BloomForCausalLM(tf.BloomConfig(vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=4, use_cache=False))),
        inputs=ids_only,
    ),
    ModelCase(
        name="falcon",
        family="llm",
        build=seeded(lambda: tf.FalconForCausalLM(tf.FalconConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, use_cache=False, new_decoder_architecture=True, num_kv_heads=2))),
        inputs=ids_only,
    ),
    # Mixture of experts with the experts computed as batched matmuls over every expert
    # (transformers' "batched_mm"): the router's topk is the only op beyond a dense decoder.
    ModelCase(
        name="mixtral-moe",
        family="llm",
        build=seeded(lambda: experts_as(tf.MixtralForCausalLM(llm_config(tf.MixtralConfig, num_local_experts=4, num_experts_per_tok=2)), "batched_mm")),
        inputs=ids_only,
    ),
    # transformers' default experts implementation sorts the routed tokens, counts them with
    # histc and calls its own custom op transformers::grouped_mm_fallback: data-dependent
    # grouping that a static Circle graph does not express.
    ModelCase(
        name="mixtral-moe-grouped",
        family="llm",
        build=seeded(lambda: tf.MixtralForCausalLM(llm_config(tf.MixtralConfig, num_local_experts=4, num_experts_per_tok=2))),
        inputs=ids_only,
        expected_failures=(
            ExpectedFailure("conversion", "transformers::grouped_mm_fallback.default has no Circle lowering: no lowering registered"),
            ExpectedFailure("conversion", "aten::histc.default has no Circle lowering: no lowering registered"),
        ),
    ),
    # ---------------------------------------------------------------- encoders
    ModelCase(
        name="bert",
        family="encoder",
        build=seeded(lambda: tf.BertModel(tf.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
        dynamic=seq_dynamic("input_ids", "attention_mask", batch=True),
        size=(2, SEQ),
        second_size=(3, 5),
        expected_failures=(
            ExpectedFailure(
                "onert",
                "run_decompositions() flattens each linear's input to [batch*seq, hidden]; splitting batch*seq back into "
                "two dynamic dims for the attention heads is a RESHAPE to a shape computed at run time, which onert 0.2 "
                "cannot infer (\"num_elements() cannot calculate when any dimension is unspecified\"); the export form "
                "and the built-in interpreter run and match eager",
                ("decomposed",),
            ),
        ),
    ),
    ModelCase(
        name="roberta",
        family="encoder",
        build=seeded(lambda: tf.RobertaModel(tf.RobertaConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="distilbert",
        family="encoder",
        build=seeded(lambda: tf.DistilBertModel(tf.DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="albert",
        family="encoder",
        build=seeded(lambda: tf.AlbertModel(tf.AlbertConfig(vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="electra",
        family="encoder",
        build=seeded(lambda: tf.ElectraModel(tf.ElectraConfig(vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="deberta-v2",
        family="encoder",
        build=seeded(lambda: tf.DebertaV2Model(tf.DebertaV2Config(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64, relative_attention=True, position_buckets=16, pos_att_type=["p2c", "c2p"]))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="modernbert",
        family="encoder",
        build=seeded(lambda: tf.ModernBertModel(tf.ModernBertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64, local_attention=4, global_attn_every_n_layers=2, pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2))),
        inputs=ids_and_mask,
    ),
    ModelCase(
        name="mpnet",
        family="encoder",
        build=seeded(lambda: tf.MPNetModel(tf.MPNetConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=64))),
        inputs=ids_and_mask,
    ),
    # ---------------------------------------------------------------- sequence to sequence
    ModelCase(
        name="t5-encoder",
        family="seq2seq",
        build=seeded(lambda: tf.T5EncoderModel(tf.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, relative_attention_num_buckets=8, use_cache=False))),
        inputs=ids_only,
        dynamic=seq_dynamic("input_ids"),
        second_size=(1, 5),
    ),
    ModelCase(
        name="bart",
        family="seq2seq",
        build=seeded(
            lambda: tf.BartModel(
                tf.BartConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64, use_cache=False)
            )
        ),
        inputs=ids_only,
    ),
    # ---------------------------------------------------------------- vision
    ModelCase(
        name="vit",
        family="vision",
        build=seeded(lambda: tf.ViTModel(tf.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64))),
        inputs=pixels(32),
        dynamic=lambda: {"pixel_values": {0: Dim("batch", min=1, max=8)}},
        size=(2, 32),
        second_size=(3, 32),
    ),
    ModelCase(
        name="deit",
        family="vision",
        build=seeded(lambda: tf.DeiTModel(tf.DeiTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="dinov2",
        family="vision",
        build=seeded(lambda: tf.Dinov2Model(tf.Dinov2Config(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="swin",
        family="vision",
        build=seeded(lambda: tf.SwinModel(tf.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="resnet",
        family="vision",
        build=seeded(lambda: tf.ResNetModel(tf.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="bottleneck"))),
        inputs=pixels(32),
        dynamic=lambda: {"pixel_values": {0: Dim("batch", min=1, max=8)}},
        size=(2, 32),
        second_size=(3, 32),
    ),
    ModelCase(
        name="convnext",
        family="vision",
        build=seeded(lambda: tf.ConvNextModel(tf.ConvNextConfig(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="mobilenet-v2",
        family="vision",
        build=seeded(lambda: tf.MobileNetV2Model(tf.MobileNetV2Config(image_size=32, depth_multiplier=0.35)), lively=True),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="efficientnet",
        family="vision",
        build=seeded(lambda: tf.EfficientNetModel(tf.EfficientNetConfig(image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320)), lively=True),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="regnet",
        family="vision",
        build=seeded(lambda: tf.RegNetModel(tf.RegNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="mobilevit",
        family="vision",
        build=seeded(lambda: tf.MobileViTModel(tf.MobileViTConfig(image_size=32, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32])), lively=True),
        inputs=pixels(32),
        size=(1, 32),
    ),
    ModelCase(
        name="segformer",
        family="vision",
        build=seeded(lambda: tf.SegformerModel(tf.SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], num_attention_heads=[1, 2], mlp_ratios=[2, 2], patch_sizes=[7, 3], strides=[4, 2]))),
        inputs=pixels(32),
        size=(1, 32),
    ),
    # ---------------------------------------------------------------- audio
    ModelCase(
        name="wav2vec2",
        family="audio",
        build=seeded(
            lambda: tf.Wav2Vec2Model(
                tf.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
            )
        ),
        inputs=audio,
        size=(1, 400),
    ),
    ModelCase(
        name="hubert",
        family="audio",
        build=seeded(
            lambda: tf.HubertModel(
                tf.HubertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
            )
        ),
        inputs=audio,
        size=(1, 400),
    ),
    ModelCase(
        name="whisper-encoder",
        family="audio",
        build=seeded(
            lambda: tf.WhisperModel(
                tf.WhisperConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16, max_target_positions=16, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
            ).get_encoder()
        ),
        inputs=lambda batch, _length: ((torch.randn(batch, 16, 32, generator=_gen(4)),), {}),
        size=(1, 32),
    ),
    ModelCase(
        name="audio-spectrogram-transformer",
        family="audio",
        build=seeded(lambda: tf.ASTModel(tf.ASTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_mel_bins=16, max_length=32, patch_size=8, frequency_stride=8, time_stride=8))),
        inputs=lambda batch, _length: ((torch.randn(batch, 32, 16, generator=_gen(5)),), {}),
        size=(1, 32),
    ),
    # ---------------------------------------------------------------- multimodal
    ModelCase(
        name="clip",
        family="multimodal",
        build=seeded(
            lambda: tf.CLIPModel(
                tf.CLIPConfig(
                    text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=16),
                    vision_config=dict(image_size=32, patch_size=8, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4),
                    projection_dim=16,
                )
            )
        ),
        inputs=lambda batch, length: ((), {"input_ids": token_ids(batch, length), "pixel_values": torch.randn(batch, 3, 32, 32, generator=_gen(6))}),
    ),
    ModelCase(
        name="siglip",
        family="multimodal",
        build=seeded(
            lambda: tf.SiglipModel(
                tf.SiglipConfig(
                    text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=16),
                    vision_config=dict(image_size=32, patch_size=8, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4),
                )
            )
        ),
        inputs=lambda batch, length: ((), {"input_ids": token_ids(batch, length), "pixel_values": torch.randn(batch, 3, 32, 32, generator=_gen(7))}),
    ),
]

BY_NAME = {case.name: case for case in CASES}
if len(BY_NAME) != len(CASES):
    raise ValueError("duplicate model names in the zoo")
