#!/usr/bin/env python3
"""Small tokenizers for the C++ tokenizer's tests, trained offline with Hugging Face `tokenizers`.

No model hub is reachable from the test machines, so instead of downloading real tokenizers this
trains tiny ones (a few hundred merges) on local text, configured like the LLM families the C++
side supports:

  gemma          SentencePiece-style BPE as Gemma: Replace(' ' -> '▁'), Split(' ',
                 MergedWithPrevious), byte_fallback, "<bos> $A", decoder Replace/ByteFallback/Fuse
  llama2         Prepend('▁') + Replace normalizers, no pre-tokenizer, byte_fallback, decoder
                 Replace/ByteFallback/Fuse/Strip, normalized added tokens
  metaspace      Metaspace pre-tokenizer (prepend_scheme "first") and decoder, unk_token without
                 fusing, added tokens with lstrip/rstrip/single_word/normalized
  metaspace_nfkc NFKC normalizer, Metaspace "always" without split, byte_fallback
  gpt2           ByteLevel pre-tokenizer (GPT-2 regex), ByteLevel decoder and post-processor
  gpt2_prefix    the same with add_prefix_space
  llama3         Split(llama-3 regex) + ByteLevel(use_regex=False), ignore_merges,
                 Sequence[ByteLevel, "<|begin_of_text|> $A"]
  qwen2          NFC, Split(qwen2 regex) + ByteLevel, ByteLevel post-processor
  wordpiece_like continuing_subword_prefix "##" + end_of_word_suffix "</w>", Split variants
                 (Removed, MergedWithNext, Contiguous, inverted, ^/$ anchors), regex Replace and
                 NFD normalizers, BPEDecoder + regex Replace decoders, "[CLS] $A [SEP]"
  no_decoder     no decoder (tokens joined with spaces), no post-processor, NFKD, fused unk
  deepseek_like  DeepSeek-LLM's pre-tokenizer: regex Splits with punctuation and CJK ranges, Digits,
                 ByteLevel
  strip_both     Strip decoders before and after Fuse, Metaspace "never", regex Replace
                 normalizer

`python tests/llm/make_tokenizer_fixtures.py` writes tests/llm/data/<name>.json (the tokenizer)
and tests/llm/data/<name>.expected.json (texts with the ids `tokenizers` gives, id lists with the
text it decodes them to), which tests/unit/llm_tokenizer_test.cpp checks the C++ side against.
check_tokenizer.py imports build_tokenizers() to make the same tokenizers when it is given none.
"""

from __future__ import annotations

import json
import os
import random
import sys
import sysconfig
from pathlib import Path

# The library's Strip decoder can panic (see library_decode); keep that to one line on stderr.
os.environ["RUST_BACKTRACE"] = "0"

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

DATA_DIR = Path(__file__).resolve().parent / "data"

GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# A little text in several scripts, so that training sees them without depending on files that
# only some machines have.
MULTILINGUAL = [
    "Der schnelle braune Fuchs springt über den faulen Hund. Größe, Maße, Straße.",
    "Le cœur a ses raisons que la raison ne connaît point. Ça été déjà vu à Noël.",
    "El niño comió paella en Sevilla; ¿dónde está la estación? ¡Qué día!",
    "Быстрая коричневая лиса прыгает через ленивую собаку. Привет, мир!",
    "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.",
    "日本語の文章をトークン化します。東京は日本の首都です。",
    "中文分词测试：我们今天去北京大学看看。你好，世界！",
    "한국어 텍스트를 토큰화합니다. 안녕하세요, 세계!",
    "مرحبا بالعالم. هذه جملة باللغة العربية للاختبار.",
    "שלום עולם, זה משפט בעברית.",
    "हिन्दी में एक वाक्य। नमस्ते दुनिया!",
    "ภาษาไทยเป็นภาษาที่ไม่มีช่องว่างระหว่างคำ",
    "Emoji: 😀 👍🏽 👨‍👩‍👧 🇫🇷 ❤️ ✨ — and “quotes”, ‘single’, …",
    "Numbers: 3.14159 2718281828 1,000,000 $12.50 42% x² ½ ٣٤٥ １２３",
]


def training_text() -> list[str]:
    """Lines of local text: some of Python's own sources plus the multilingual sentences."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lines: list[str] = []
    for name in ["textwrap.py", "json/decoder.py", "string.py", "this.py", "heapq.py", "bisect.py"]:
        path = stdlib / name
        if path.exists():
            lines += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines += MULTILINGUAL * 3
    return lines


def byte_tokens() -> list[str]:
    return [f"<0x{b:02X}>" for b in range(256)]


def add_byte_tokens(tok: Tokenizer) -> Tokenizer:
    """Appends the <0xNN> tokens byte_fallback needs to the model vocabulary (as SentencePiece
    conversions have them), keeping the ids of everything else."""
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    next_id = max(list(vocab.values()) + [t["id"] for t in data["added_tokens"]]) + 1
    for token in byte_tokens():
        if token not in vocab:
            vocab[token] = next_id
            next_id += 1
    return Tokenizer.from_str(json.dumps(data))


def train(
    tok: Tokenizer, vocab_size: int, special: list[str], limit_alphabet: int | None = None, **kwargs
) -> Tokenizer:
    if limit_alphabet is not None:
        kwargs["limit_alphabet"] = limit_alphabet
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special, show_progress=False, **kwargs)
    tok.train_from_iterator(training_text(), trainer=trainer)
    return tok


def template(bos: str, tok: Tokenizer) -> processors.TemplateProcessing:
    return processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, tok.token_to_id(bos))])


def build_gemma() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Replace(" ", "▁")
    tok.pre_tokenizer = pre_tokenizers.Split(" ", "merged_with_previous")
    train(tok, 420, ["<pad>", "<eos>", "<bos>", "<unk>"], limit_alphabet=120)
    tok = add_byte_tokens(tok)
    tok.add_special_tokens(["<start_of_turn>", "<end_of_turn>"])
    tok.add_tokens([AddedToken("[multimodal]", normalized=False, special=False)])
    tok.post_processor = template("<bos>", tok)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    return tok


def build_llama2() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    train(tok, 400, ["<unk>", "<s>", "</s>"], limit_alphabet=100)
    tok = add_byte_tokens(tok)
    # Normalized added tokens are matched (and decoded) in their normalized form, "▁<extra>".
    tok.add_tokens([AddedToken("<extra>", normalized=True, special=False), AddedToken("▁x▁", normalized=False)])
    tok.add_special_tokens([AddedToken("<ns>", normalized=True, special=True)])
    tok.post_processor = template("<s>", tok)
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    return tok


def build_metaspace() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    train(tok, 380, ["<unk>", "<s>", "</s>"], limit_alphabet=90)
    tok.add_special_tokens(
        [
            AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True),
            AddedToken("<sep>", lstrip=False, rstrip=True, normalized=False, special=True),
        ]
    )
    tok.add_tokens(
        [
            AddedToken("[WORD]", single_word=True, normalized=False, special=False),
            AddedToken("new token", normalized=True, special=False),
            AddedToken("été", normalized=True, single_word=True, special=False),
        ]
    )
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    return tok


def build_metaspace_nfkc() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=False)
    train(tok, 380, ["<unk>", "<s>", "</s>"], limit_alphabet=100)
    tok = add_byte_tokens(tok)
    tok.decoder = decoders.Sequence(
        [decoders.ByteFallback(), decoders.Metaspace(replacement="▁", prepend_scheme="always", split=False)]
    )
    return tok


def build_gpt2(add_prefix_space: bool = False) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    train(tok, 520, ["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.add_tokens(["hello world", " spaced", AddedToken("<|fim|>", lstrip=True, rstrip=True, normalized=False)])
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.decoder = decoders.ByteLevel()
    return tok


def build_llama3() -> Tokenizer:
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    special = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    train(tok, 560, special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.Sequence(
        [processors.ByteLevel(trim_offsets=False), template("<|begin_of_text|>", tok)]
    )
    tok.decoder = decoders.ByteLevel()
    return tok


def build_qwen2() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_PATTERN), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    train(tok, 540, special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def build_wordpiece_like() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Replace(Regex(r"[\t\r]+"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"\s+"), "removed"),
            pre_tokenizers.Split("-", "merged_with_next"),
            pre_tokenizers.Split(Regex(r"\d"), "contiguous"),
            pre_tokenizers.Split(Regex(r"[.,;:!?]"), "isolated", invert=True),
            pre_tokenizers.Split(Regex(r"^\(|\)$"), "isolated"),
        ]
    )
    special = ["[UNK]", "[CLS]", "[SEP]"]
    train(tok, 420, special, limit_alphabet=110, continuing_subword_prefix="##", end_of_word_suffix="</w>")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    tok.decoder = decoders.Sequence([decoders.BPEDecoder(suffix="</w>"), decoders.Replace(Regex("#+"), "")])
    return tok


def build_no_decoder() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True))
    tok.normalizer = normalizers.NFKD()
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+"), "isolated")
    train(tok, 300, ["<unk>"], limit_alphabet=80)
    return tok


def build_deepseek_like() -> Tokenizer:
    """DeepSeek-LLM's pre-tokenizer: several regex Splits (punctuation, CJK ranges), Digits, ByteLevel."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"[\r\n]"), "isolated"),
            pre_tokenizers.Split(Regex(r"\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯＡ-Ｚａ-ｚ]+"), "isolated"),
            pre_tokenizers.Split(Regex(r"\s?[!-/:-~！-／：-～‘-‟　-。]+"), "isolated"),
            pre_tokenizers.Split(Regex(r"\s+$"), "isolated"),
            pre_tokenizers.Split(Regex(r"[一-龥ࠀ-一가-퟿]+"), "isolated"),
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    special = ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"]
    train(tok, 520, special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.Sequence(
        [processors.ByteLevel(trim_offsets=False), template("<｜begin▁of▁sentence｜>", tok)]
    )
    tok.decoder = decoders.ByteLevel()
    return tok


def build_strip_both() -> Tokenizer:
    """Strip decoders before Fuse (per token) and after it (whole text, trailing characters too),
    with a Metaspace pre-tokenizer that never prepends and a regex Replace normalizer."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Replace(Regex(r"[ \t]{2,}"), " ")
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    train(tok, 400, ["<unk>", "<s>", "</s>"], limit_alphabet=100)
    tok = add_byte_tokens(tok)
    tok.decoder = decoders.Sequence(
        [
            decoders.Strip("▁", 1, 1),
            decoders.Metaspace(replacement="▁", prepend_scheme="never", split=True),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 2, 1),
        ]
    )
    return tok


BUILDERS = {
    "gemma": build_gemma,
    "llama2": build_llama2,
    "metaspace": build_metaspace,
    "metaspace_nfkc": build_metaspace_nfkc,
    "gpt2": build_gpt2,
    "gpt2_prefix": lambda: build_gpt2(add_prefix_space=True),
    "llama3": build_llama3,
    "qwen2": build_qwen2,
    "wordpiece_like": build_wordpiece_like,
    "no_decoder": build_no_decoder,
    "strip_both": build_strip_both,
    "deepseek_like": build_deepseek_like,
}


def build_tokenizers(directory: Path) -> dict[str, Path]:
    """Trains every tokenizer and saves it (compact JSON) as directory/<name>.json."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, build in BUILDERS.items():
        path = directory / f"{name}.json"
        path.write_text(build().to_str(), encoding="utf-8")
        paths[name] = path
    return paths


# Texts for the fixtures: each family's corner cases, small enough to read in a failure message.
FIXTURE_TEXTS = [
    "",
    " ",
    "   ",
    "Hello world",
    " Hello world",
    "Hello  world  ",
    "\tTabs\tand\nnewlines\n\n",
    "it's I'M we'LL they'Re ſ's",
    "def f(x):\n    return x ** 2  # square\n",
    "Numbers 1234567890 and 3.14159, 2,718 x² ½ ٣٤٥ １２３",
    "Größe Straße déjà vu — naïve café",
    "日本語の文章。中文字符。한국어 텍스트.",
    "مرحبا بالعالم",
    "Emoji 😀👍🏽 👨‍👩‍👧 🇫🇷 ❤️✨",
    "<bos>Hi<eos> <start_of_turn>user\nhello<end_of_turn>",
    "<extra> x<extra>y <ns>z ▁x▁ hello world, hello  world spaced  <|fim|>  fim\u3000<|fim|>\u3000",
    "<s>[INST] hi [/INST]</s>",
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\n",
    "a <mask> b<mask>c  <mask>  d <sep>  e<sep>f",
    "[WORD] x[WORD] [WORD]y [WORD].",
    "new token and new  token, été étés l'été",
    "[multimodal] <0x41> <unk> [UNK]",
    "well-known pre-trained 2024-01-02 (parenthesised) a,b;c",
    "ｆｕｌｌｗｉｄｔｈ ﬁ ligature Ⅻ ①",
    "e\u0301 cafe\u0301 A\u030a",
    "line\r\nwindows\rmac\u2028sep\x85nel\x0bvt",
    "    indented code\n\t\tmore",
    "trailing spaces   \n   leading",
    "😀" * 3 + "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠀀",
]


def random_id_lists(tok: Tokenizer, rnd: random.Random, count: int) -> list[list[int]]:
    """Arbitrary id sequences for decoding: random ids (special and byte tokens included)."""
    size = tok.get_vocab_size(with_added_tokens=True)
    lists = []
    for _ in range(count):
        lists.append([rnd.randrange(size) for _ in range(rnd.randint(1, 12))])
    return lists


def library_decode(tok: Tokenizer, ids: list[int], skip: bool) -> str | None:
    """tok.decode(), or None where the library panics: its Strip decoder indexes out of bounds on
    a token shorter than `stop` characters (the C++ side returns the clamped result there)."""
    try:
        return tok.decode(ids, skip_special_tokens=skip)
    except BaseException as error:  # pyo3_runtime.PanicException derives from BaseException
        if type(error).__name__ != "PanicException":
            raise
        return None


def expectations(tok: Tokenizer, seed: int) -> dict:
    """What `tokenizers` gives for the fixture texts and for some id sequences."""
    encode = []
    for text in FIXTURE_TEXTS:
        for add_special in (True, False):
            ids = tok.encode(text, add_special_tokens=add_special).ids
            encode.append({"text": text, "add_special_tokens": add_special, "ids": ids})
    rnd = random.Random(seed)
    id_lists = [tok.encode(text).ids for text in FIXTURE_TEXTS] + random_id_lists(tok, rnd, 30)
    decode = []
    for ids in id_lists:
        for skip in (False, True):
            text = library_decode(tok, ids, skip)
            if text is not None:
                decode.append({"ids": ids, "skip_special_tokens": skip, "text": text})
    vocab = tok.get_vocab(with_added_tokens=True)
    bos = tok.encode("", add_special_tokens=True).ids
    return {
        "tokenizers_version": __import__("tokenizers").__version__,
        "vocab_size": max(vocab.values()) + 1,
        "special_ids": sorted(i for i, t in tok.get_added_tokens_decoder().items() if t.special),
        # [id, id_to_token(id), token_to_id(that string)] for every added token
        "added_tokens": [
            [i, tok.id_to_token(i), tok.token_to_id(tok.id_to_token(i))] for i in sorted(tok.get_added_tokens_decoder())
        ],
        "template_bos": bos[0] if bos else None,
        "encode": encode,
        "decode": decode,
    }


def main() -> int:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for index, (name, build) in enumerate(BUILDERS.items()):
        tok = build()
        (DATA_DIR / f"{name}.json").write_text(tok.to_str(), encoding="utf-8")
        expected = expectations(Tokenizer.from_str(tok.to_str()), seed=index)
        (DATA_DIR / f"{name}.expected.json").write_text(
            json.dumps(expected, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
        )
        sizes = [(DATA_DIR / f"{name}{suffix}").stat().st_size for suffix in (".json", ".expected.json")]
        print(f"{name}: tokenizer {sizes[0]} bytes, expectations {sizes[1]} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
