"""``python -m abnfc`` and the ``abnfc`` script: the command line, safe to interrupt at any moment.

The ``abnfc`` script that pip writes runs some code of its own between importing this module and
calling :func:`run` (it rewrites ``sys.argv[0]`` with a regular expression), so a Ctrl-C there
would end in a traceback.  This module therefore holds Ctrl-C back from the moment it is
imported, and :func:`run` acts on a held one as soon as it starts.
"""
import signal
import sys
import threading

_held: list[int] = []


def _hold(signum: int, frame: object) -> None:
    _held.append(signum)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when Ctrl-C is ignored
    signal.signal(signal.SIGINT, _hold)


def _unraisable(report: "sys.UnraisableHookArgs") -> None:
    """A Ctrl-C that lands in a callback Python cannot raise from (the module locks' weakref
    callback of an import under way) would be printed with a traceback and then lost: it is
    delivered again, where the command line catches it."""
    if report.exc_type is not None and issubclass(report.exc_type, KeyboardInterrupt):
        # from another thread, a moment later: raised in the hook, it would be lost again
        main = threading.main_thread().ident
        threading.Timer(0.01, signal.pthread_kill, (main, signal.SIGINT)).start()
        return
    sys.__unraisablehook__(report)


def run() -> int:
    """Import the command line and run it; Ctrl-C at any moment of it exits 130 quietly."""
    sys.unraisablehook = _unraisable
    try:
        if signal.getsignal(signal.SIGINT) is _hold:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if _held:
            raise KeyboardInterrupt
        from .cli import main

        return main()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(run())
