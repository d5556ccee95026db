"""``python -m abnfc`` and the ``abnfc`` script: the command line, safe to interrupt at any moment."""
import sys


def run() -> int:
    """Import the command line and run it; Ctrl-C while Python is still importing exits 130 quietly."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
