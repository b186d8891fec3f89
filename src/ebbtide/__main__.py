"""`python -m ebbtide`: the same command line as the `ebbtide` script."""

from .cli import main

raise SystemExit(main())
