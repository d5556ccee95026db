"""Command line: builds each command's parser from the registry (:mod:`abnfc.commands`) and
dispatches; every command lives in its own module there.

Options may come before or after positional arguments (each command's arguments are parsed
with argparse's intermixed parsing).  Exit status: 0 success; 1 an input does not match, or
``compile --check`` found stale files; 2 a usage error, an error in the grammar, or a problem
with a file the user named; 3 an internal error (a bug in abnfc); 130 interrupted (Ctrl-C), 143
terminated (SIGTERM), 129 hung up (SIGHUP), each after cleaning up; 141 the reader of the output
went away (``abnfc dfa ... | head``), as for programs killed by SIGPIPE.  Errors are printed as
``file:line:col: message`` with the source line and a caret; Python tracebacks only with
``--debug``.
"""
from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import NoReturn

from . import i18n
from .commands import COMMANDS, command
from .i18n import N_, _
from .version import __version__

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141
# {backends}: the names of the backend registry (abnfc.backends.names()), so the help cannot drift.
DESCRIPTION = N_("Compile ABNF grammars (RFC 5234, RFC 7405) to minimal DFAs, and to validators and grammar "
               "books with the backends {backends}, or match inputs against any grammar.")

EXAMPLE_HEADINGS = (N_("examples:"), N_("example:"))  # the first line of each command's EXAMPLE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        with _speaking(_locale_of(argv)):
            return _main(argv)
    except KeyboardInterrupt:  # while the parser was being built (it imports the backends)
        return EXIT_INTERRUPTED
    except Exception as error:
        if _caused_by_interrupt(error):  # a Ctrl-C Python wrapped while importing
            return EXIT_INTERRUPTED
        raise


def _locale_of(argv: list[str]) -> str:
    """The locale of the run: ``--locale`` where it is the command's own language (explain,
    railroad; compile's ``--locale`` is the book's), else the environment's; English where
    ``--locale`` names none abnfc has (the command then says so)."""
    name = next((word for word in argv if not word.startswith("-")), None)
    speaks = name in COMMANDS and getattr(command(name), "SPEAKS_LOCALE", False)
    explicit = None
    for index, word in enumerate(argv if speaks else ()):
        if word == "--locale" and index + 1 < len(argv):
            explicit = argv[index + 1]
        elif word.startswith("--locale="):
            explicit = word.split("=", 1)[1]
    try:
        return i18n.choose(explicit)
    except ValueError:
        return i18n.ENGLISH


@contextlib.contextmanager
def _speaking(locale: str) -> Iterator[None]:
    """The run's messages in ``locale``: abnfc's own, and argparse's (through its ``_``)."""
    previous = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    i18n.use(locale)
    argparse._, argparse.ngettext = i18n._, i18n.ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = previous  # type: ignore[attr-defined]
        i18n.use(i18n.ENGLISH)


def _main(argv: list[str]) -> int:
    where = next((index for index, word in enumerate(argv) if not word.startswith("-")), len(argv))
    # The command list in the help imports every command module; only help and errors need it.
    general_words = argv[:where]
    top = _top_parser(listed="--version" not in general_words and (
        where == len(argv) or argv[where] not in COMMANDS or any(word in ("-h", "--help") for word in general_words)))
    general = top.parse_args(general_words)
    if where == len(argv):
        top.print_help(sys.stderr)
        return EXIT_ERROR
    if argv[where] not in COMMANDS:
        close = difflib.get_close_matches(argv[where], COMMANDS, n=1)
        if close:
            top.error(_("unknown command {name!r}; did you mean {close}?").format(name=argv[where], close=close[0]))
        top.error(_("unknown command {name!r}; choose from {names}").format(name=argv[where],
                                                                            names=", ".join(COMMANDS)))
    from .commands.support.writing import signals_deferred  # not needed for --version or the command list

    parser = command_parser(argv[where])
    # Intermixed parsing captures the usage by cutting off len("usage: ") characters, whatever the
    # language: a translated prefix of another length would leave a space, or cut into the program.
    parser.usage = parser.format_usage().removeprefix(_("usage: ")).replace("%", "%%")
    with signals_deferred():  # argparse's intermixed parsing breaks if interrupted half-way
        args = parser.parse_intermixed_args(argv[where + 1:])
    args.debug = args.debug or general.debug
    try:
        with _terminate_as_interrupt():
            return _run(args)
    except _Terminated as stop:  # SIGTERM just as the command ended, while its handler was being put back
        return stop.status


def _top_parser(listed: bool) -> argparse.ArgumentParser:
    listing = "".join(f"  {name:<11} {_(command(name).HELP)}\n" for name in COMMANDS) if listed else ""
    parser = argparse.ArgumentParser(
        prog="abnfc", description=description() if listed else None, usage="abnfc [--version] [--debug] COMMAND ...",
        epilog=_("commands:\n{listing}\nrun 'abnfc COMMAND --help' for each command's options and an "
                 "example").format(listing=listing),
        formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"abnfc {__version__}")
    parser.add_argument("--debug", action="store_true", help=N_("show Python tracebacks on errors"))
    return parser


def description() -> str:
    """What abnfc does, naming the backends of the registry (only the help shows it: listing them
    imports the backends' registry)."""
    from . import backends

    return _(DESCRIPTION).format(backends=", ".join(backends.names()))


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help in the run's language: each option's help is a message of the catalogs."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _(action.help) if action.help else action.help


class _Parser(argparse.ArgumentParser):
    """argparse, with a suggestion for a mistyped option (``--langs``: did you mean ``--lang``?)."""

    def error(self, message: str) -> NoReturn:
        before, _unused, _after = _("unrecognized arguments: %s").partition("%s")
        unknown = message.removeprefix(before) if message.startswith(before) else ""
        options = [option for action in self._actions for option in action.option_strings]
        for word in unknown.split():
            close = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.6)
            if word.startswith("--") and close:
                message += _("; did you mean {option}?").format(option=close[0])
                break
        super().error(message)


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of command ``name``, with the options every command takes."""
    module = command(name)
    heading, _newline, commands = module.EXAMPLE.partition("\n")  # the commands are not translated
    parser = _Parser(prog=f"abnfc {name}", description=_(module.HELP), epilog=f"{_(heading)}\n{commands}",
                     formatter_class=_Formatter)
    parser.set_defaults(run=module.run)
    parser.add_argument("--debug", action="store_true", help=N_("show Python tracebacks on errors"))
    module.add_arguments(parser)
    return parser


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (and SIGHUP) stop the command as Ctrl-C does, so that it cleans up after itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise _Terminated(signum)

    previous = {number: signal.signal(number, interrupt) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class _Terminated(BaseException):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.status = 128 + signum


def _run(args: argparse.Namespace) -> int:
    from .errors import AbnfError, print_diagnostics

    try:
        status: int = args.run(args)
        return status
    except AbnfError as error:
        if args.debug:
            raise
        print_diagnostics(error.diagnostics)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except _Terminated as terminated:
        return terminated.status
    except BrokenPipeError:
        # The reader went away (abnfc dfa ... | head): stop quietly, as cat and grep do, and
        # keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as error:  # a bug in abnfc: say so briefly unless debugging
        if _caused_by_interrupt(error):
            return EXIT_INTERRUPTED
        if args.debug:
            raise
        print(_("abnfc: internal error: {kind}: {error} (a bug in abnfc; rerun with --debug for a traceback)").format(
            kind=type(error).__name__, error=error), file=sys.stderr)
        return EXIT_INTERNAL


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether ``error`` wraps a Ctrl-C: Python turns one that lands in a class's creation
    (``__set_name__`` of a dataclass field, while a module is imported) into a RuntimeError."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt | _Terminated):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


if __name__ == "__main__":
    sys.exit(main())

