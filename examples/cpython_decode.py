"""CPython's UTF-8 decoder, ``bytes.decode("utf-8")``, for ``abnfc crosscheck``.

As a program it speaks the hex-lines protocol: one input per line in hex on standard input, one
verdict per line (1 or 0) on standard output.  Its output is block-buffered when it goes to a
pipe, so the verdicts arrive in 8 KiB pieces, the last ones when the input ends.

    abnfc crosscheck grammars/utf8.abnf --cmd 'python3 examples/cpython_decode.py'
    abnfc crosscheck grammars/utf8.abnf --python examples/cpython_decode.py:accepts
"""
import sys


def accepts(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def main() -> None:
    write = sys.stdout.write
    for line in sys.stdin:
        write("1\n" if accepts(bytes.fromhex(line)) else "0\n")


if __name__ == "__main__":
    main()
