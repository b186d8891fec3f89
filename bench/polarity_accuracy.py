"""Accuracy of ebbtide.polarity on a labelled file of outcome sentences.

    python bench/polarity_accuracy.py                      # tests/data/polarity_outcomes.tsv
    python bench/polarity_accuracy.py --file other.tsv     # label<TAB>sentence per line
    python bench/polarity_accuracy.py --quiet              # summary only, no error list

Prints accuracy, per-label precision/recall/F1, the confusion matrix (rows = gold,
columns = predicted) and every misclassified sentence with the cues that decided it.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from ebbtide.polarity import outcome_polarity  # noqa: E402

LABELS = ("negative", "neutral", "positive")
DEFAULT_FILE = ROOT / "tests" / "data" / "polarity_outcomes.tsv"


def load(path: Path) -> list[tuple[str, str]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        label, sep, sentence = line.partition("\t")
        if not sep or label not in LABELS:
            raise SystemExit(f"{path}:{n}: expected 'label<TAB>sentence', got {line!r}")
        rows.append((label, sentence))
    return rows


def evaluate(rows: list[tuple[str, str]]) -> dict:
    confusion: Counter[tuple[str, str]] = Counter()
    errors = []
    for gold, sentence in rows:
        result = outcome_polarity(sentence)
        confusion[gold, result.label] += 1
        if result.label != gold:
            errors.append((gold, result, sentence))
    correct = sum(confusion[label, label] for label in LABELS)
    return {
        "n": len(rows),
        "accuracy": correct / len(rows),
        "confusion": confusion,
        "errors": errors,
    }


def report(stats: dict, quiet: bool = False) -> None:
    confusion = stats["confusion"]
    print(
        f"accuracy: {stats['accuracy']:.3f}  ({stats['n'] - len(stats['errors'])}/{stats['n']})\n"
    )
    print(f"{'label':<10} {'precision':>9} {'recall':>7} {'f1':>6} {'support':>8}")
    for label in LABELS:
        tp = confusion[label, label]
        predicted = sum(confusion[g, label] for g in LABELS)
        support = sum(confusion[label, p] for p in LABELS)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        print(f"{label:<10} {precision:>9.3f} {recall:>7.3f} {f1:>6.3f} {support:>8}")

    print("\nconfusion (rows = gold, columns = predicted)")
    print(f"{'':<10}" + "".join(f"{p:>10}" for p in LABELS))
    for gold in LABELS:
        print(f"{gold:<10}" + "".join(f"{confusion[gold, p]:>10}" for p in LABELS))
    print(
        f"\nnegative predicted positive: {confusion['negative', 'positive']}"
        f"   positive predicted negative: {confusion['positive', 'negative']}"
    )

    if quiet or not stats["errors"]:
        return
    print(f"\nmisclassified ({len(stats['errors'])}):")
    for gold, result, sentence in stats["errors"]:
        cues = ", ".join(result.cues) or "-"
        print(f"  gold={gold:<8} got={result.label:<8} score={result.score:+.2f}  {sentence}")
        print(f"      cues: {cues}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--quiet", action="store_true", help="summary only")
    args = parser.parse_args(argv)
    report(evaluate(load(args.file)), quiet=args.quiet)


if __name__ == "__main__":
    main()
