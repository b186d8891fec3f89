"""LoCoMo retrieval benchmark (ebbtide, BM25 over raw turns, causal-memory 0.10.0).

The logic lives in the package (`ebbtide.bench_locomo`) so the installed command runs it too:

    ebbtide bench locomo --data /work/shared/data/locomo/locomo-dev.json [--json]
    python bench/locomo.py --data FILE [--json]          # the same, from a checkout
"""

from __future__ import annotations

import sys

from ebbtide.bench_locomo import main

if __name__ == "__main__":
    sys.exit(main())
