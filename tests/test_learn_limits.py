"""abnfc learn at its edges: a black box that rejects everything (the empty language, which
diff, learn and crosscheck --learn used to crash on), one whose language no finite automaton holds
(stopped at a limit with the last hypothesis, and said so), a time bound, a hang that names its
input, what the learned file quotes in its comments, and the progress lines."""
from __future__ import annotations

import random

from helpers.cli import run_cli
from helpers.paths import ROOT

from abnfc.crosscheck.language import load_language
from abnfc.crosscheck.session import Progress
from abnfc.frontend.source import from_text, load
from abnfc.learn import learn
from abnfc.pipeline import Compilation

UTF8 = ROOT / "grammars" / "utf8.abnf"
AB = 'r = *("a" / "b")\n'


def test_diff_of_an_empty_language_and_one_with_the_empty_input(capsys, tmp_path):
    (tmp_path / "eps.abnf").write_text('r = ""\n', encoding="utf-8")
    (tmp_path / "none.abnf").write_text('r = %x41 r\n', encoding="utf-8")
    for a, b in (("eps", "none"), ("none", "eps")):
        status, out, err = run_cli(capsys, "diff", str(tmp_path / f"{a}.abnf"), str(tmp_path / f"{b}.abnf"))
        assert status == 1 and "internal error" not in err, err
        assert "(empty): " + ("B" if b == "none" else "A") + ": r matches no input at all" in out


def test_learn_on_a_black_box_that_rejects_everything(capsys, tmp_path):
    (tmp_path / "never.py").write_text("def accepts(data):\n    return False\n", encoding="utf-8")
    out = tmp_path / "never.abnf"
    status, stdout, err = run_cli(capsys, "learn", str(UTF8), "--python", f"{tmp_path / 'never.py'}:accepts",
                                  "--out", str(out))
    assert status == 1 and "internal error" not in err, err
    assert "learned matches no input at all" in stdout
    assert Compilation(from_text(out.read_text(encoding="utf-8"))).minimal.accepting == frozenset()


def test_crosscheck_learn_on_a_black_box_that_rejects_everything(capsys, tmp_path):
    (tmp_path / "never.py").write_text("def accepts(data):\n    return False\n", encoding="utf-8")
    status, stdout, err = run_cli(capsys, "crosscheck", str(UTF8), "--python", f"{tmp_path / 'never.py'}:accepts",
                                  "--learn")
    assert status == 1 and "internal error" not in err, err
    assert "matches no input at all" in stdout


def a_then_as_many_b(word: bytes) -> bool:
    """Deterministic, not regular: a's followed by as many b's (no finite automaton counts them)."""
    half = len(word) // 2
    return word == b"a" * half + b"b" * half and len(word) % 2 == 0


def test_a_language_no_finite_automaton_holds_stops_with_the_last_hypothesis():
    """L* keeps finding states (the hypothesis grows with each counterexample); the state limit
    stops it with the last hypothesis, never an internal error."""
    prior = Compilation(from_text(AB)).minimal
    learned = learn(prior, [b"", b"a", b"ab"], lambda words: [a_then_as_many_b(w) for w in words], 1, 40, 300_000)
    assert learned.stopped == "states" and 1 <= learned.dfa.num_states <= 40
    assert all(learned.dfa.matches(b"a" * n + b"b" * n) for n in range(5))  # right on what it has seen


def test_learn_says_a_program_may_not_be_regular(capsys, tmp_path):
    """The command's words when the state limit stops it (its conformance tests, which look no
    further than the states they know plus --extra-states, need not find a^n b^n's counterexamples:
    the limit is set below the first hypothesis)."""
    (tmp_path / "ab.abnf").write_text(AB, encoding="utf-8")
    (tmp_path / "anbn.py").write_text("def accepts(data):\n    half = len(data) // 2\n"
                                      "    return len(data) % 2 == 0 and data == b'a' * half + b'b' * half\n",
                                      encoding="utf-8")
    out = tmp_path / "anbn-learned.abnf"
    status, _stdout, err = run_cli(capsys, "learn", str(tmp_path / "ab.abnf"), "--python",
                                   f"{tmp_path / 'anbn.py'}:accepts", "--out", str(out), "--max-states", "1")
    assert status == 2 and "internal error" not in err, err
    assert "stopped at --max-states 1: the program needs more states than that (its language may not be " \
           "regular)" in err
    assert "this is the last hypothesis" in out.read_text(encoding="utf-8")


def test_a_time_bound_stops_a_noisy_black_box():
    prior = Compilation(from_text(AB)).minimal
    rng = random.Random(1)
    learned = learn(prior, [b"", b"a"], lambda words: [rng.random() < 0.5 for _ in words], 1, 10_000, 10**9,
                    max_seconds=1e-9)
    assert learned.stopped == "time" and learned.dfa == prior  # stopped before the first batch: the prior


def test_the_time_bound_is_named(capsys, tmp_path):
    (tmp_path / "coin.py").write_text("import random\n\ndef accepts(data):\n    return random.random() < 0.5\n",
                                      encoding="utf-8")
    status, _stdout, err = run_cli(capsys, "learn", str(UTF8), "--python", f"{tmp_path / 'coin.py'}:accepts",
                                   "--max-seconds", "0.000001", "--out", str(tmp_path / "coin.abnf"))
    assert status == 2
    assert "stopped at --max-seconds 1e-06: this is the last hypothesis, not the implementation's language" in err


def test_a_hang_names_the_input(capsys, tmp_path):
    (tmp_path / "hang.py").write_text("import time\n\ndef accepts(data):\n    if data == b'\\xed\\xa0\\x80':\n"
                                      "        time.sleep(60)\n    return True\n", encoding="utf-8")
    status, _stdout, err = run_cli(capsys, "learn", str(UTF8), "--python", f"{tmp_path / 'hang.py'}:accepts",
                                   "--timeout", "1")
    assert status == 2 and "triggering input: ED A0 80" in err, err


def test_a_line_break_in_what_the_comments_quote_stays_in_the_comment(capsys, tmp_path):
    """--cmd and the grammar's path are quoted in the learned file's first comment: a line break
    there would start a rule of its own."""
    folder = tmp_path / "a\nx = %x78 ; b"
    folder.mkdir()
    grammar = folder / "utf8.abnf"
    grammar.write_text(UTF8.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "learned.abnf"
    decoder = ROOT / "examples" / "cpython_decode.py"
    status, _stdout, err = run_cli(capsys, "learn", str(grammar), "--python", f"{decoder}:accepts", "--out", str(out))
    assert status == 0, err
    text = out.read_text(encoding="utf-8")
    assert all(line.startswith(";") or not line.startswith("x") for line in text.splitlines())
    assert "a\\nx = %x78" in text
    assert load_language(Compilation(load(str(out)))).minimal == Compilation(load(str(UTF8))).minimal


def test_progress_lines_name_the_command_and_the_phase(capsys):
    progress = Progress(True, False, "learn")
    progress(180, 180)
    assert capsys.readouterr().err == "abnfc learn: asking the implementation: 180 of 180\n"
