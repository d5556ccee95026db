"""The C window test's driver (backends/c/window_driver.py, c_window_driver.c.j2): the input
checked block by block, padded on both sides where the language allows (then the window test
alone gives is_valid and first_error), blocks of bytes 00-7F skipped.  Built so that every input
takes it (WINDOW_TEST_MIN=0) or with the default settings, and checked by the records harness
(first_error against the DFA's first error; is_valid, and the stream API, which runs the DFA
loop, against first_error) on inputs of every length 0 to 300 and longer ones, also under the
sanitizers."""
from __future__ import annotations

import itertools
import random

import pytest
from helpers.c_build import SANITIZE, build, generate, needs_gcc, run_records, write_records
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from helpers.walks import class_edges, mutated_walks
from test_c import UTF8_TEXT, utf8_first_error, utf8_inputs
from test_c_window_test import INSTANCES, VARIANTS, edge_windows, needs_vbmi

from abnfc.automata.dfa import Dfa

pytestmark = needs_gcc
EVERY_LENGTH = ["-D{M}_WINDOW_TEST_MIN=0"]
SETTINGS = [pytest.param(EVERY_LENGTH, id="every-length"), pytest.param([], id="defaults")]


def every_length(dfa: Dfa, seed: str) -> list[bytes]:
    """Inputs of every length 0 to 300: class-edge words, mutated live walks and random bytes,
    the walks padded or cut to the length (so errors fall at every block position)."""
    rng = random.Random(seed)
    edges = class_edges(dfa)
    found = [bytes(w) for n in range(4) for w in itertools.product(edges[:6], repeat=n)]
    walks = mutated_walks(dfa, rng, 1500, 320, ascii_share=0.5, cut_share=0.2)
    # long runs of bytes 00-7F with a few other bytes: the skipped blocks and the ones after them
    sparse = mutated_walks(dfa, rng, 300, 40, cut_share=0.3)
    for _ in range(150):
        text = bytearray(b"x" * rng.randrange(64, 1500))
        for piece in rng.sample(sparse, 4):
            at = rng.randrange(len(text))
            text[at:at] = piece
        found.append(bytes(text))
    for piece in sparse[:80]:  # ending just before a block of bytes 00-7F (blocks of 32 and 64)
        for end in (128, 160):
            found += [b"x" * max(0, end - j - len(piece)) + piece[:end] + b"x" * 100 for j in range(4)]
    for length in range(301):
        found += [bytes(rng.choice(edges) for _ in range(length)), rng.randbytes(length)]
        found += [w[:length] for w in rng.sample(walks, 6) if len(w) >= length]
        found += [(b"a" * length + w)[-length:] if length else b"" for w in rng.sample(walks, 3)]
    return found + walks


def test_the_plan_pads_utf8_with_nul_and_some_languages_not_at_all(tmp_path):
    utf8 = generate(tmp_path / "utf8", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf").plan.window_driver
    assert utf8 is not None and utf8.pads and (utf8.before, utf8.after, utf8.before_low) == (0, 0, True)
    assert len(utf8.end_table.split(",")) == (12 ** 3 + 7) // 8  # 12 classes, 3-definite
    pairs = generate(tmp_path / "pairs", 'x = *( "a" / "b" "c" )\n', "pairs").plan.window_driver
    assert pairs is not None and pairs.pads and (pairs.before, pairs.after) == (0x41, 0x41)  # "a" is A or a
    assert not pairs.before_low and not pairs.end_table
    once = generate(tmp_path / "once", 'x = "a" *"b"\n', "once")  # the start state loops on nothing
    assert once.plan.window_driver is not None and not once.plan.window_driver.pads


def test_utf8_end_decomposes_into_one_limit_per_position(tmp_path):
    """The end of UTF-8 is one compare a byte: the last byte below C2 (C0-C1 no state takes), the one
    before below E0, the one before that below F0, as simdutf8 checks it."""
    utf8 = generate(tmp_path / "utf8", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf").plan.window_driver
    assert utf8 is not None
    cells = [int(cell, 16) for cell in utf8.end_limits.split(",")]
    assert cells[61:64] == [0xEF, 0xDF, 0xC1] and cells[:61] == [0xFF] * 61 and cells[64:] == [0xFF] * 64
    # 80 must be followed by 81, and 82 stands alone: a last byte 80 is refused, 81 and 82 are not,
    # so no limit on the last byte separates them and the end table stays
    gap = generate(tmp_path / "gap", 'x = *( %x00-7F / %x80 %x81 / %x82 )\n', "gap").plan.window_driver
    assert gap is not None and gap.end_table and not gap.end_limits


def test_utf8_levels_read_one_joint_index_and_is_valid_has_its_own_walk(tmp_path):
    """UTF-8's 12 classes fall into 7 groups by their bits at the even distances, so each level of
    the pairs walk is one lookup of 128 cells in c1's class and c's group; WTF-8's 13 classes make
    11 groups, and it keeps a lookup a distance (and, with no end table, the walk first_error
    takes)."""
    utf8 = generate(tmp_path / "utf8", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf").plan.window_driver
    assert utf8 is not None and utf8.pair_joint and utf8.pair_select == 15 and utf8.dense_valid
    assert [[what for level in group for what, _cells in level.reads] for group in utf8.pair_levels] == [
        ["joint", "joint"]]
    ids = [int(cell, 16) for cell in utf8.pair_high.split(",")]
    assert max(i % 16 for i in ids) == 11 and len({i // 16 for i in ids} | {utf8.pair_low_id // 16}) == 7
    wtf8 = generate(tmp_path / "wtf8", (ROOT / "grammars" / "variants" / "wtf8.abnf").read_text(encoding="utf-8"),
                    "wtf8").plan.window_driver
    assert wtf8 is not None and not wtf8.pair_joint and not wtf8.dense_valid


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("instance", INSTANCES)
def test_utf8_every_length_under_sanitizers(instance, settings, tmp_path):
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    inputs = utf8_inputs() + every_length(gen.minimal, "utf8") + edge_windows(gen.minimal)
    flags = [*SANITIZE, *(s.format(M="UTF8") for s in settings), *(f"-DUTF8_WINDOW_TEST_{name}" for name in instance)]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [utf8_first_error(d) for d in inputs]


GRAMMARS = [pytest.param((ROOT / "grammars" / "variants" / v).read_text(encoding="utf-8"), id=v) for v in VARIANTS]
GRAMMARS += [pytest.param('x = *( "a" / "b" "c" )\n', id="pad-a"),
             pytest.param('x = *( %x80-FF / %x00 %x41-5A %x61 )\n', id="pad-high"),
             pytest.param('x = "a" *"b"\n', id="no-pads"),
             # bytes 00-7F skipped, but not after 80 and one of them (two, then 81, must follow)
             pytest.param("x = *( %x00-7F / %x80 2%x00-7F %x81 )\n", id="ascii-pending")]


@pytest.mark.parametrize("instance", INSTANCES)
@pytest.mark.parametrize("text", GRAMMARS)
def test_other_languages_agree_with_the_dfa(text, instance, tmp_path):
    gen = generate(tmp_path, text, "v")
    assert gen.plan.window_test is not None
    inputs = every_length(gen.minimal, text) + edge_windows(gen.minimal)
    flags = [*SANITIZE, *(s.format(M="V") for s in EVERY_LENGTH), *(f"-DV_WINDOW_TEST_{name}" for name in instance)]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]


@pytest.mark.parametrize("instance", INSTANCES)
def test_utf8_bytes_no_state_takes_before_bytes_00_7f(instance, tmp_path):
    """The nibble test flags C0, C1 and F5-FF at the window after them: at the end of a block
    before a block of bytes 00-7F (which the end table must not skip) and at the end of the input,
    first_error still names the byte itself."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    inputs = []
    for byte in (0xC0, 0xC1, 0xF5, 0xFF):
        for at in (0, 1, 15, 31, 62, 63, 64, 127, 190, 191):
            inputs += [b"a" * at + bytes([byte]) + b"a" * tail for tail in (0, 1, 2, 3, 64, 200)]
            inputs.append("é".encode() * (at // 2) + b"a" * (at % 2) + bytes([byte]) + b"b" * 130)
    flags = [*SANITIZE, *(s.format(M="UTF8") for s in EVERY_LENGTH),
             *(f"-DUTF8_WINDOW_TEST_{name}" for name in instance)]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [utf8_first_error(d) for d in inputs]


@pytest.mark.parametrize("instance", INSTANCES)
@pytest.mark.parametrize("grammar", ["utf8.abnf", "variants/rfc2279-utf8.abnf", "variants/wtf8.abnf"])
def test_long_inputs_with_pieces_across_block_edges(grammar, instance, tmp_path):
    """Inputs past the dense walk's length (the walk that moves the classes and the chains of box
    bits from block to block) with every pair of class-edge bytes, and pieces of live walks, at
    each position around the ends of the first blocks of 64, so that every window, allowed or
    forbidden, reaches back over a block's end at every distance."""
    gen = generate(tmp_path, (ROOT / "grammars" / grammar).read_text(encoding="utf-8"), "v")
    edges = class_edges(gen.minimal)
    pieces = [bytes(w) for n in (1, 2) for w in itertools.product(edges, repeat=n)]
    pieces += mutated_walks(gen.minimal, random.Random(grammar), 150, 12, cut_share=0.3)
    inputs = [b"a" * at + piece + b"b" * (300 - at) for piece in pieces for at in (*range(56, 72), 125, 191)]
    flags = [*SANITIZE, *(f"-DV_WINDOW_TEST_{name}" for name in instance)]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]


@needs_vbmi
@pytest.mark.parametrize("grammar", ["utf8.abnf", "variants/generalized-utf8.abnf", "variants/cesu8.abnf",
                                     "variants/wtf8.abnf"])
def test_65_to_256_bytes_with_every_placement_of_blocks_of_other_bytes(grammar, tmp_path):
    """is_valid's own walk of 65 to 256 bytes (UTF-8, generalized UTF-8) and the joint index of the
    pairs walk (those and CESU-8; WTF-8 has neither): for every length around the ends of blocks
    of 64, every choice of blocks holding other bytes than 00-7F, each such block given pieces of
    live walks (some cut short, some with a byte changed) at its start, its end (so that an
    incomplete or wrong sequence stands right before a block of bytes 00-7F, or the end) and
    anywhere; the harness checks is_valid against first_error, and first_error is checked against
    the DFA, under the sanitizers."""
    gen = generate(tmp_path, (ROOT / "grammars" / grammar).read_text(encoding="utf-8"), "v")
    rng = random.Random(grammar)
    edges = class_edges(gen.minimal)
    pieces = mutated_walks(gen.minimal, rng, 400, 10, cut_share=0.3)
    pieces += [bytes(w) for n in (1, 2) for w in itertools.product(edges, repeat=n)]
    inputs = []
    for length in (65, 66, 100, 127, 128, 129, 130, 191, 192, 193, 200, 254, 255, 256):
        blocks = (length + 63) // 64
        for placed in range(1, 1 << blocks):
            for _ in range(8):
                text = bytearray(b"x" * length)
                for block in range(blocks):
                    if not placed >> block & 1:
                        continue
                    start, stop = 64 * block, min(64 * block + 64, length)
                    for where in rng.sample(("start", "end", "any"), rng.randint(1, 3)):
                        piece = rng.choice(pieces)[:stop - start]
                        at = {"start": start, "end": stop - len(piece),
                              "any": rng.randint(start, stop - len(piece))}[where]
                        text[at:at + len(piece)] = piece
                inputs.append(bytes(text))
    flags = [*SANITIZE, *(s.format(M="V") for s in EVERY_LENGTH)]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]


def test_the_avx2_end_is_simdutf8s_limits(tmp_path):
    """For the AVX2 nibble walk the last byte must also be below C0: C0 and C1, which no state takes,
    are flagged one position late, past the input.  UTF-8's limits are then simdutf8's (BF, DF, EF
    for the last three bytes), and the short path is generated; WTF-8, which has no end table (13
    classes, 4-definite), keeps the walk it had."""
    utf8 = generate(tmp_path / "utf8", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    plan = utf8.plan.window_driver
    assert plan is not None
    cells = [int(cell, 16) for cell in plan.nibble_limits.split(",")]
    assert cells[29:32] == [0xEF, 0xDF, 0xBF] and cells[:29] == [0xFF] * 29 and cells[32:] == [0xFF] * 32
    assert "utf8_win_small2_ok_" in utf8.source.read_text(encoding="utf-8")
    wtf8 = generate(tmp_path / "wtf8", (ROOT / "grammars" / "variants" / "wtf8.abnf").read_text(encoding="utf-8"), "v")
    assert wtf8.plan.window_driver is not None and not wtf8.plan.window_driver.nibble_limits
    assert "v_win_small2_ok_" not in wtf8.source.read_text(encoding="utf-8")


SEAMS = (0, 1, 2, 3, *range(13, 20), *range(28, 37), *range(44, 52), *range(59, 70), *range(93, 99),
         *range(125, 131), *range(253, 259))


def short_seam_inputs(dfa: Dfa, seed: str) -> list[bytes]:
    """Inputs of 1 to 300 bytes, each length with a wrong byte at every position near the seams of
    the AVX2 short path (blocks of 16, 32 and 64, the block of 32 that ends with the input, the
    first and last 3 bytes), ends cut inside a character, and bytes no live state takes at the last
    three positions."""
    rng = random.Random(seed)
    edges = class_edges(dfa)
    walks = [w for w in mutated_walks(dfa, rng, 600, 320, ascii_share=0.3) if w]
    dead_everywhere = [b for b in range(256) if all(
        dfa.transitions[s][dfa.byte_class[b]] == dfa.dead for s in range(len(dfa.transitions)) if s != dfa.dead)]
    found = []
    for length in range(1, 301):
        base = (b"a" * length + rng.choice(walks))[-length:]
        found += [base, b"a" * length, (rng.choice(walks) + b"a" * length)[:length]]
        for at in {*SEAMS, *range(max(0, length - 4), length)}:
            if at < length:
                found.append(base[:at] + bytes([rng.choice(edges)]) + base[at + 1:])
                piece = rng.choice(walks)[:rng.randrange(1, 5)]  # often a character cut short
                found.append((b"a" * at + piece + b"a" * length)[:length])
        for byte in dead_everywhere[:2] + dead_everywhere[-1:]:
            found += [(b"a" * length + bytes([byte]) + b"a" * tail)[-length:] for tail in range(3)]
    return found


@pytest.mark.skipif(not cpu_has("avx2"), reason="this CPU has no AVX2")
@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("grammar", ["utf8.abnf", "variants/generalized-utf8.abnf", "variants/wtf8.abnf"])
def test_avx2_short_inputs_at_every_seam_under_sanitizers(grammar, settings, tmp_path):
    gen = generate(tmp_path, (ROOT / "grammars" / grammar).read_text(encoding="utf-8"), "v")
    inputs = short_seam_inputs(gen.minimal, grammar)
    flags = [*SANITIZE, *(s.format(M="V") for s in settings), "-DV_WINDOW_TEST_AVX2"]
    binary = build(gen, "check_records.c", tmp_path / "check", flags)
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]
