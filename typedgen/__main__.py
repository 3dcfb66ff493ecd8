"""``python -m typedgen``: the command line."""

from typedgen.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
