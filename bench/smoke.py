"""Smoke run of the peer benchmark: every contender is built and run on small inputs, valid and
spoiled, and must give the verdict Python's strict codec gives (glibc iconv, which accepts
sequences above U+10FFFF, only on inputs without bytes F4-FF; the variant grammars' validators the
verdict of their own minimal DFA; the ceiling, which validates nothing, is left out).  The URI validators must agree
with each other and with abnfc's DFA on every line.  Prints what ran; exit status 1 on any
disagreement.  Run by ``bench_peers.py --smoke`` and by the tests.
"""
from __future__ import annotations

import ctypes
import random
import shutil
import tempfile
from pathlib import Path

import corpora
from bench_peers import CEILING, URI, Contenders, Node, generated_python, python_codec, variant_grammar

import abnfc

SIZE = 1 << 16


def inputs() -> list[bytes]:
    rng = random.Random(12)
    out = []
    for blob in corpora.utf8_corpora(SIZE).values():
        out.append(blob)
        for _ in range(3):  # one spoiled byte, somewhere in the middle
            at = rng.randrange(len(blob))
            out.append(blob[:at] + bytes([rng.choice([0x80, 0xC0, 0xED, 0xF4, 0xF8, 0xFF])]) + blob[at + 1:])
        out.append(blob[:-1] + b"\xe4")  # cut short at the end
        out.append(blob[: len(blob) // 2] + b"\xed\xa0\x80" + blob[len(blob) // 2:])  # a surrogate
    return out


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory(prefix="abnfc-smoke-") as tmp:
        folder = Path(tmp)
        contenders = Contenders(folder)
        node = Node() if shutil.which("node") else None
        python_valid = generated_python("auto")
        variants = {grammar: abnfc.compile_grammar(grammar).minimal
                    for grammar in filter(None, (variant_grammar(label) for label, _ in contenders.utf8()))}
        for index, data in enumerate(inputs()):
            want = int(python_codec(data))
            buffer = (ctypes.c_ubyte * (len(data) + 64)).from_buffer_copy(data + b"\0" * 64)
            got = {label: contenders.time(symbol, buffer, len(data), 1)[1] for label, symbol in contenders.utf8()}
            got["generated Python is_valid"] = int(python_valid(data))
            if node:
                (folder / f"input{index}").write_bytes(data)
                got["simdutf (Node buffer.isUtf8)"] = node.time(folder / f"input{index}", 1)[1]
            if max(data) >= 0xF4:
                del got["glibc iconv"]
            del got[CEILING]
            for label, verdict in got.items():
                grammar = variant_grammar(label)
                expected = want if grammar is None else int(variants[grammar].matches(data))
                judge = "Python's codec" if grammar is None else "its DFA"
                if verdict != expected:
                    failures.append(f"input {index}: {label} says {verdict}, {judge} {expected}")
        if node:
            node.close()
        dfa = abnfc.compile_grammar(URI).minimal
        lines = corpora.uri_lines(2000)
        symbols = ["uri_auto_valid", *contenders.uri_peers]
        for line in lines:
            buffer = (ctypes.c_ubyte * (len(line) + 1)).from_buffer_copy(line + b"\n")
            verdicts = {symbol: getattr(contenders.lib, symbol)(buffer, ctypes.c_size_t(len(line)))
                        for symbol in symbols}
            if set(verdicts.values()) != {int(dfa.matches(line))}:
                failures.append(f"URI {line!r}: {verdicts}, DFA {dfa.matches(line)}")
    for note in contenders.notes:
        print(f"note: {note}")
    names = ", ".join(label for label, _ in contenders.utf8())
    print(f"UTF-8 contenders: {names}, Python's codec, the generated Python{', simdutf' if node else ''}; "
          f"URI: {', '.join(symbols)}")
    for failure in failures[:20]:
        print(f"FAIL {failure}")
    print(f"{len(failures)} disagreements")
    return 1 if failures else 0
