"""bench/prototypes/json_token_bigrams.c, JSON's is_valid without a walk over positions, in either
version (JSON's rules, or tables derived from the grammar), and the generated validator's token
bigrams on every length: the byte loop's verdict on JSONTestSuite's files and on generated and
mutated documents (bench/bench_json_bigrams.py's corpus), built with ASan and UBSan so that any
read past a document's end fails.  Both run only on processors with AVX-512 VBMI2."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from helpers.c_build import needs_gcc
from helpers.cpu import cpu_has

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ("avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "bmi2", "pclmulqdq")


pytestmark = [needs_gcc, pytest.mark.skipif(not cpu_has(*FLAGS), reason="needs AVX-512 VBMI2")]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_json_bigrams", ROOT / "bench" / "bench_json_bigrams.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_json_bigrams"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("derived", [False, True], ids=["json-rules", "derived-tables"])
def test_the_prototype_and_the_generated_bigrams_agree_with_the_byte_loop(bench, tmp_path, derived):
    """Both versions: JSON's rules written by hand, and the tables derived from the grammar."""
    binary = bench.build(tmp_path, sanitize=True, derived=derived)
    docs = bench.corpus(400, 5)
    documents, valid, differ, differ_prototype = bench.check(binary, docs, tmp_path)
    assert documents == len(docs)
    assert valid > 500 and documents - valid > 500  # both verdicts are exercised
    assert (differ, differ_prototype) == (0, 0)


def test_the_depth_limit(bench, tmp_path):
    """All take 100,000 levels of nesting and refuse 100,001 (the generated default limit)."""
    binary = bench.build(tmp_path, sanitize=False)
    # The generated validator's depth limit is 100,000; 100,001 levels are too deep for all.
    too_deep = b"[" * 100_001 + b"]" * 100_001
    documents, valid, differ, differ_prototype = bench.check(
        binary, [b"[1]", b"[1,]", too_deep, b"[" * 100_000 + b"]" * 100_000], tmp_path)
    assert (documents, valid, differ, differ_prototype) == (4, 2, 0, 0)
