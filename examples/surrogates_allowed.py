"""A deliberately wrong UTF-8 validator for ``abnfc crosscheck``: it decodes with CPython's
``surrogatepass`` error handler, which lets the encoded surrogates U+D800..U+DFFF (ED A0 80 to
ED BF BF) through, as generalized UTF-8 does.  Hex-lines protocol, as examples/cpython_decode.py.

    abnfc crosscheck grammars/utf8.abnf --cmd 'python3 examples/surrogates_allowed.py'
"""
import sys


def accepts(data: bytes) -> bool:
    try:
        data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True


def main() -> None:
    write = sys.stdout.write
    for line in sys.stdin:
        write("1\n" if accepts(bytes.fromhex(line)) else "0\n")


if __name__ == "__main__":
    main()
