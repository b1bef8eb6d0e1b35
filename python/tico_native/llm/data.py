"""Text that ships with the machine, for calibration and evaluation (docs/llm.md).

Debian's ``python3.11-doc`` package holds the reStructuredText sources of Python's
documentation. Two of its parts never overlap, so they serve as separate sets:

- ``tutorial/`` — the calibration text (what quantizers see);
- ``reference/`` — the evaluation text (perplexity, and the multiple-choice questions built
  from it below). A quantized model is never calibrated on the text it is judged by.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

DOC_SOURCES = Path("/usr/share/doc/python3.11/html/_sources")
CALIBRATION_SECTION = "tutorial"
EVALUATION_SECTION = "reference"


def python_docs(section: str, root: Path = DOC_SOURCES) -> str:
    """The concatenated ``.rst.txt`` sources of one section of Python's documentation, in file
    name order."""
    directory = root / section
    files = sorted(directory.glob("*.rst.txt")) if directory.is_dir() else []
    if not files:
        raise FileNotFoundError(f"no Python documentation sources in {directory}: apt-get install python3.11-doc")
    return "\n\n".join(f.read_text(encoding="utf-8") for f in files)


def calibration_text() -> str:
    return python_docs(CALIBRATION_SECTION)


def evaluation_text() -> str:
    return python_docs(EVALUATION_SECTION)


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _prose_paragraphs(text: str) -> list[str]:
    """Paragraphs of running prose: markup lines (directives, headings, tables, code) dropped."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines()]
        if not lines or any(not line or line.startswith(("..", ":", "*", "=", "-", "+", "|", ">>>")) for line in lines):
            continue
        if block.startswith((" ", "\t")):
            continue  # indented: code or a directive's body
        joined = " ".join(lines)
        if len(joined) > 120 and joined[-1] in ".!?":
            paragraphs.append(joined)
    return paragraphs


def next_sentence_questions(text: str, count: int = 200, choices: int = 4, seed: int = 0) -> list[dict]:
    """Multiple-choice questions from prose: the context is a paragraph's opening sentences, the
    answer its next sentence, the distractors sentences of other paragraphs (seeded). A model
    that reads the context should prefer the true continuation."""
    rng = random.Random(seed)
    items = []
    pool = []
    for paragraph in _prose_paragraphs(text):
        sentences = [s.strip() for s in _SENTENCE.split(paragraph) if s.strip()]
        if len(sentences) >= 2:
            items.append(sentences)
            pool.extend((len(items) - 1, s) for s in sentences[1:])
    rng.shuffle(items)
    questions = []
    for index, sentences in enumerate(items):
        if len(questions) >= count:
            break
        cut = rng.randint(1, len(sentences) - 1)
        context = " ".join(sentences[:cut])
        answer = sentences[cut]
        distractors = []
        while len(distractors) < choices - 1:
            source, sentence = pool[rng.randrange(len(pool))]
            if sentence != answer and sentence not in distractors and sentence not in sentences:
                distractors.append(sentence)
        options = distractors + [answer]
        rng.shuffle(options)
        questions.append({"context": context, "choices": [" " + o for o in options], "answer": options.index(answer)})
    return questions


def write_jsonl(questions: list[dict], path: str | Path) -> Path:
    path = Path(path)
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return path
