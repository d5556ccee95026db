"""Graphviz's ``dot`` program: DOT text -> SVG.

Graphviz is a system package, not a Python one; when it is missing the error says how to
install it.  A failing or slow ``dot`` is reported as the user's problem (exit 2), never as an
internal error.
"""
from __future__ import annotations

import shutil
import subprocess

from ..errors import AbnfError
from ..i18n import N_, _

TIMEOUT_SECONDS = 120
INSTALL_HINT = N_("install Graphviz (Debian and Ubuntu: 'apt-get install graphviz'; macOS: 'brew install "
                  "graphviz'; others: https://graphviz.org/download/), or use --format dot and render the "
                  "DOT text elsewhere")


def available() -> bool:
    return shutil.which("dot") is not None


def render_svg(dot_text: str) -> str:
    """The SVG that ``dot -Tsvg`` draws from ``dot_text``; AbnfError when it cannot."""
    program = shutil.which("dot")
    if program is None:
        raise AbnfError.at(None, _("the 'dot' program of Graphviz is not installed: {hint}").format(
            hint=_(INSTALL_HINT)))
    try:
        result = subprocess.run([program, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True,
                                timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise AbnfError.at(None, _("Graphviz's dot took more than {seconds} s to lay out the picture; the "
                                   "automaton is too large to draw (use --format dot)").format(
                                       seconds=TIMEOUT_SECONDS)) from None
    except OSError as error:
        raise AbnfError.at(None, _("cannot run Graphviz's dot ({program}): {reason}").format(
            program=program, reason=error.strerror)) from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise AbnfError.at(None, _("Graphviz's dot failed (exit status {status})").format(status=result.returncode)
                           + (f": {message[-1]}" if message else ""))
    return result.stdout.decode("utf-8")
