"""Recall variants side by side on LoCoMo stores built once: what a constant is worth.

    python bench/locomo_sweep.py --data /work/shared/data/locomo/locomo-dev.json \
        --stores /tmp/locomo-stores --variant SPEAKER_BOOST=2.5 --variant rrf_k=10,REPLY_KEEP=0.7

`--stores` is the folder `ebbtide bench locomo --systems ebbtide --stores DIR` keeps; a
conversation without a store there is ingested first, the same way. A variant is one or more
`NAME=VALUE` settings, comma-separated: an upper-case NAME is a constant of `ebbtide.recall`
(`MIN_POOL`, `REPEAT_KEEP`, …), a lower-case one a field of `Config` (`rrf_k`,
`activation_blend`, …; the `EBBTIDE_<FIELD>` settings). The first row is the code as it is.

Each question of categories 1-4 is asked as the benchmark's k=10 call asks it
(`recall(question, k=10, touch=False)`) and scored by its turns as that call is: the table
counts the questions with every evidence turn in the ten (all@10) per category, any@10 over all,
and how many questions each variant won and lost against the first row. Only quality is
measured: query embeddings are cached across variants (the same vectors), so time means
nothing here; `ebbtide bench locomo` and `bench/recall_ab.py` measure it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ebbtide.recall as recall_module
from ebbtide.bench_locomo import (
    CATEGORIES,
    QUERY_K,
    EbbtideSystem,
    ingested_at,
    load,
    turns_of,
)
from ebbtide.clock import ManualClock
from ebbtide.config import Config
from ebbtide.errors import EbbtideError, ValidationError
from ebbtide.memory import open_memory
from ebbtide.plaintable import table

Variant = tuple[dict[str, int | float], dict[str, Any]]  # recall constants, Config fields


def parse_variant(spec: str, base: Config) -> Variant:
    """`NAME=VALUE[,NAME=VALUE…]` as recall constants and Config fields, each checked by name
    and type; the error names the setting and the rule."""
    constants: dict[str, int | float] = {}
    fields: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, raw = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValidationError("variant", f"{part!r}: write NAME=VALUE")
        if name.isupper():
            current = getattr(recall_module, name, None)
            if isinstance(current, bool) or not isinstance(current, int | float):
                raise ValidationError(name, "is not a numeric constant of ebbtide.recall")
            constants[name] = _number(name, raw, int if isinstance(current, int) else float)
        else:
            current = getattr(base, name, None)
            if isinstance(current, bool) or not isinstance(current, int | float):
                raise ValidationError(name, "is not a numeric field of Config")
            fields[name] = _number(name, raw, int if isinstance(current, int) else float)
    if not constants and not fields:
        raise ValidationError("variant", f"{spec!r}: no NAME=VALUE in it")
    base.with_(**fields)  # Config's own rules, before anything runs
    return constants, fields


def _number(name: str, raw: str, kind: type) -> int | float:
    try:
        return kind(raw.strip())
    except ValueError:
        raise ValidationError(
            name, f"must be {'an integer' if kind is int else 'a number'}"
        ) from None


def label(variant: Variant) -> str:
    constants, fields = variant
    return ",".join(f"{k}={v}" for k, v in {**constants, **fields}.items()) or "as is"


def ask(path: Path, conv: Any, variant: Variant, base: Config, embeddings: str) -> dict[str, Any]:
    """{question index: (category, all found, any found)} for one conversation and variant."""
    constants, fields = variant
    saved = {name: getattr(recall_module, name) for name in constants}
    memory = open_memory(  # on the clock `bench locomo` asks its questions at
        str(path),
        config=base.with_(**fields),
        clock=ManualClock(ingested_at(conv)),
        embeddings=embeddings,
        extraction="rules",
    )
    try:
        for name, value in constants.items():
            setattr(recall_module, name, value)
        out = {}
        for i, q in enumerate(conv.questions):
            top = set(turns_of(memory.recall(q.text, k=QUERY_K, touch=False).hits)[:QUERY_K])
            gold = set(q.evidence)
            out[i] = (CATEGORIES[q.category], gold <= top, bool(gold & top))
        return out
    finally:
        for name, value in saved.items():
            setattr(recall_module, name, value)
        memory.close()


def summarise(name: str, answers: dict[Any, tuple[str, bool, bool]], base: dict) -> dict:
    row: dict[str, Any] = {"variant": name}
    row["all@10"] = sum(a for _, a, _ in answers.values())
    row["any@10"] = sum(a for _, _, a in answers.values())
    for cat in CATEGORIES.values():
        row[cat] = sum(a for c, a, _ in answers.values() if c == cat)
    row["won"] = sum(a and not base[q][1] for q, (_, a, _) in answers.items())
    row["lost"] = sum(base[q][1] and not a for q, (_, a, _) in answers.items())
    return row


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    base = Config.from_env()
    variants: list[Variant] = [({}, {})] + [parse_variant(v, base) for v in args.variant]
    convs = load(args.data, args.conversations.split(",") if args.conversations else None)
    answers: list[dict[Any, tuple[str, bool, bool]]] = [{} for _ in variants]
    for conv in convs:
        system = EbbtideSystem(args.embeddings, args.stores)
        try:
            system.ingest(conv)
        finally:
            system.close()
        for i, variant in enumerate(variants):
            got = ask(system.store_path(conv), conv, variant, base, args.embeddings)
            answers[i].update({(conv.sample_id, q): a for q, a in got.items()})
        if not args.json:
            print(f"{conv.sample_id}: {len(conv.questions)} questions", file=sys.stderr)
    n = {cat: sum(c == cat for c, _, _ in answers[0].values()) for cat in CATEGORIES.values()}
    rows = [summarise(label(v), a, answers[0]) for v, a in zip(variants, answers, strict=True)]
    return [{"variant": "questions", "all@10": len(answers[0]), "any@10": len(answers[0]), **n,
             "won": "-", "lost": "-"}, *rows]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="a file in the LoCoMo JSON layout")
    ap.add_argument("--stores", type=Path, required=True, help="the stores, built when missing")
    ap.add_argument("--variant", action="append", default=[], help="NAME=VALUE[,NAME=VALUE…]")
    ap.add_argument("--conversations", help="comma-separated sample ids (default: all)")
    ap.add_argument("--embeddings", default="local", choices=("local", "none"))
    ap.add_argument("--json", action="store_true", help="the rows as JSON")
    args = ap.parse_args(argv)
    try:
        rows = run(args)
    except EbbtideError as e:
        print(f"locomo_sweep: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        cols = ["variant", "all@10", "any@10", *CATEGORIES.values(), "won", "lost"]
        print(table(rows, cols))
        print("counts of questions (all@10 per category), the first row the questions asked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
