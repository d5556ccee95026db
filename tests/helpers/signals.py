"""Children that take a Ctrl-C as a terminal's foreground job does, however the tests were started.

A shell starts a background job (``cmd &``, ``nohup``) with SIGINT ignored, and an ignored signal
stays ignored across ``exec``: the commands these tests interrupt would then never see SIGINT, and
Python, which keeps SIGINT ignored where it finds it so at start-up, would not raise
KeyboardInterrupt either.  Passed as ``preexec_fn``, this restores the default in the child just
before it starts.
"""
from __future__ import annotations

import signal


def as_in_a_terminal() -> None:
    """Run in the child between fork and exec: SIGINT back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
