"""The Rust window test (backends/rust/window.py, rust_window.rs.j2): the nibble test with AVX2
through ``core::arch``, walked padded as the C driver walks it, against the DFA.

Each grammar is built in one program with the window test on every input, however short (its
threshold patched to 0: "simd") and with ``--rust-simd off`` (the loop alone: "scalar"); UTF-8
also as generated (window test from 8 bytes: "default").  UTF-8 is checked on every string of up
to 2 bytes (3 in the slow tier): first_error, is_valid and a stream fed one byte at a time agree,
simd and scalar give the same answers, and those are the Python module's (every string up to 2
bytes, a sample of 3000 of 3).  With the other k-definite grammars of the C window test's suites,
class-edge words, mutated live walks and inputs of every length 0 to 300 (as
tests/test_c_window_driver.py; for the grammars other than UTF-8, fewer walks), and inputs of
lengths at the walks' edges (8-65, around the last length walked densely, around 1 KiB) against
the minimal DFA, and streams in one-byte pieces on a sample.  The generated code is held to ``rustc
-D warnings`` (with and without AVX2 enabled when compiling, which the ``core`` variant needs),
``rustfmt --check`` and ``cargo clippy -- -D warnings`` (AVX2 enabled).  A CPU without AVX2
skips the tests of the AVX2 instance; a missing toolchain skips everything.  The same program is
also built for AArch64 (the NEON instance) with Debian's rustc and AArch64 standard library and
run under qemu-aarch64, with the same suites but every 3-byte string; where that cross toolchain
is missing, those tests skip and say which package to install.
"""
from __future__ import annotations

import itertools
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import files_for, grammar_from_text, python_module
from helpers.batches import in_pieces
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from helpers.rust_tools import rust_tool
from helpers.walks import class_edges, mutated_walks
from test_c_window_driver import every_length
from test_c_window_test import edge_windows
from test_rust import URI_TEXT, UTF8_TEXT

from abnfc.automata.dfa import Dfa
from abnfc.backends.c.window_driver import SHORT_MIN
from abnfc.backends.rust.runner import RustValidator, WordDriver, build, find_tool, runners
from abnfc.backends.rust.window import DENSE_MAX
from abnfc.pipeline import Compilation

WINDOW_MIN = f"    const MIN: usize = {SHORT_MIN};\n"
GRAMMARS = {"utf8": UTF8_TEXT,
            "cesu8": (ROOT / "grammars" / "variants" / "cesu8.abnf").read_text(encoding="utf-8"),
            "java": (ROOT / "grammars" / "variants" / "java-modified-utf8.abnf").read_text(encoding="utf-8"),
            "wtf8": (ROOT / "grammars" / "variants" / "wtf8.abnf").read_text(encoding="utf-8"),
            "pad_a": 'x = *( "a" / "b" "c" )\n',  # pads of a byte 00-7F that is not 00
            "pad_high": "x = *( %x80-FF / %x00 %x41-5A %x61 )\n",  # pads of a byte 80-FF
            # bytes 00-7F skipped, but not after 80 and one of them (two, then 81, must follow)
            "ascii_pending": "x = *( %x00-7F / %x80 2%x00-7F %x81 )\n"}
KINDS = ("simd", "default", "scalar")


# AArch64 through Debian's multiarch packages (libstd-rust-dev:arm64, gcc-aarch64-linux-gnu,
# qemu-user): Debian's rustc, which is older than the generated code's Rust (1.88), builds it with
# the library features it then had under other names or unstable (RUSTC_BOOTSTRAP), and the
# program runs under qemu-aarch64.
CROSS_RUSTC = Path("/usr/bin/rustc")
CROSS_STD = Path("/usr/lib/rustlib/aarch64-unknown-linux-gnu")
CROSS_FLAGS = ["--edition", "2021", "-C", "opt-level=1", "--target", "aarch64-unknown-linux-gnu",
               "-C", "linker=aarch64-linux-gnu-gcc", "-Zcrate-attr=feature(slice_as_chunks, let_else)"]
QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]


def _cross_missing() -> str | None:
    """Why the NEON instance cannot be built and run here (None: it can)."""
    if not CROSS_RUSTC.is_file() or not CROSS_STD.is_dir():
        return ("no AArch64 Rust standard library for /usr/bin/rustc (dpkg --add-architecture arm64, then "
                "apt-get install rustc libstd-rust-dev:arm64)")
    for tool, package in (("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"), ("qemu-aarch64", "qemu-user")):
        if shutil.which(tool) is None:
            return f"{tool} not found (apt-get install {package})"
    return None


class Built(dict):
    """The modules of one program, by (grammar, kind); ``arch``: the window test's instance."""

    arch = ""


def _window_runs(built: Built) -> None:
    if built.arch == "avx2" and not cpu_has("avx2"):
        pytest.skip("this CPU has no AVX2: the window test is not run")


def _source(text: str, prefix: str, kind: str) -> dict[str, str]:
    [(name, source)] = files_for(text, "rust", prefix, options={"simd": "off" if kind == "scalar" else "std"}).items()
    if kind == "simd":
        assert WINDOW_MIN in source, prefix
        source = source.replace(WINDOW_MIN, "    const MIN: usize = 0;\n")
    return {name: source}


def _tool(name: str) -> str:
    return rust_tool(name)


@pytest.fixture(scope="module", params=["avx2", "neon"])
def built(request, tmp_path_factory) -> Built:
    """Every grammar's modules in one program: for x86-64 (the AVX2 instance where the CPU has it),
    or for AArch64 (NEON), run under qemu."""
    wanted = [(name, kind) for name in GRAMMARS for kind in KINDS if kind != "default" or name == "utf8"]
    file_sets = [_source(GRAMMARS[name], f"{name}_{kind}", kind) for name, kind in wanted]
    file_sets.append(files_for(URI_TEXT, "rust", "uri"))
    folder = tmp_path_factory.mktemp(f"rust_window_{request.param}")
    if request.param == "avx2":
        _tool("rustc")
        found = runners(file_sets, folder)
    else:
        missing = _cross_missing()
        if missing:
            pytest.skip(f"the NEON instance is not built: {missing}")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RUSTC", str(CROSS_RUSTC))
            patch.setenv("RUSTC_BOOTSTRAP", "1")
            program, modules = build(file_sets, folder, CROSS_FLAGS)
        process = WordDriver([*QEMU, str(program)], "Rust", encoding="ascii")
        found = [RustValidator(process, index) for index in range(len(modules))]
    instances = Built(zip([*wanted, ("uri", "default")], found, strict=True))
    instances.arch = request.param
    return instances


def _minimal(text: str) -> Dfa:
    return Compilation(grammar_from_text(text)).minimal


def test_the_instances_are_as_chosen(built):
    window = "scalar" if built.arch == "avx2" and not cpu_has("avx2") else built.arch
    assert built["uri", "default"].instance() == "scalar"  # not definite: no window test
    for name in GRAMMARS:
        assert built[name, "scalar"].instance() == "scalar"
        assert built[name, "simd"].instance() == window
    assert built["utf8", "default"].instance() == window


def test_the_scalar_module_forbids_unsafe_code():
    scalar = next(iter(files_for(UTF8_TEXT, "rust", "u", options={"simd": "off"}).values()))
    simd = next(iter(files_for(UTF8_TEXT, "rust", "u").values()))
    uri = next(iter(files_for(URI_TEXT, "rust", "u").values()))
    assert "#![forbid(unsafe_code)]" in scalar and "unsafe {" not in scalar and "mod window" not in scalar
    assert "#![forbid(unsafe_code)]" in uri and "mod window" not in uri
    assert "#![deny(unsafe_code)]" in simd and "    #![allow(unsafe_code)]" in simd
    lines = simd.splitlines()
    for at, line in enumerate(lines):  # every unsafe block right after the proof that it is sound
        if "unsafe {" in line:
            start = at
            while lines[start - 1].strip().startswith("//"):
                start -= 1
            proof = [earlier.strip() for earlier in lines[max(start, at - 6):at]]
            assert proof and proof[0].startswith("// SAFETY:"), line


def _every_string(built, lengths: range) -> None:
    """The window test on every input agrees with itself (is_valid, first_error, a stream fed one
    byte at a time) and with the loop alone; every string of up to 2 bytes and a sample of 3-byte
    ones against the Python module."""
    reference = python_module(UTF8_TEXT)
    code = {None: "-", 0: "0", 1: "1", 2: "2", 3: "3"}
    rng = random.Random(3)
    for length in lengths:
        answers = {kind: built["utf8", kind].every_string(length) for kind in ("simd", "scalar")}
        for kind, got in answers.items():
            assert "!" not in got, (kind, length, got.index("!"))
        assert answers["simd"] == answers["scalar"], length
        count = 256 ** length
        sample = range(count) if length < 3 else rng.sample(range(count), 3000)
        for n in sample:
            data = n.to_bytes(length, "big")
            assert answers["simd"][n] == code[reference.first_error(data)], data.hex()


def test_utf8_every_string_of_up_to_2_bytes(built):
    _window_runs(built)
    _every_string(built, range(3))


@pytest.mark.slow
def test_utf8_every_string_of_3_bytes(built):
    _window_runs(built)
    if built.arch == "neon":
        pytest.skip("16.7 million strings, each also streamed, take too long under qemu")
    _every_string(built, range(3, 4))


def _fewer(dfa: Dfa, seed: str) -> list[bytes]:
    """As every_length (tests/test_c_window_driver.py), with a seventh of its walks, for time:
    class-edge words, mutated live walks cut to every length 0 to 300, random bytes, and runs
    of bytes 00-7F with a few walks inside."""
    rng = random.Random(seed)
    edges = class_edges(dfa)
    found = [bytes(w) for n in range(4) for w in itertools.product(edges[:6], repeat=n)]
    walks = mutated_walks(dfa, rng, 200, 320, ascii_share=0.5, cut_share=0.2)
    sparse = mutated_walks(dfa, rng, 60, 40, cut_share=0.3)
    for _ in range(40):
        text = bytearray(b"x" * rng.randrange(64, 1500))
        for piece in rng.sample(sparse, 4):
            at = rng.randrange(len(text))
            text[at:at] = piece
        found.append(bytes(text))
    for length in range(301):
        found += [bytes(rng.choice(edges) for _ in range(length)), rng.randbytes(length)]
        found += [w[:length] for w in rng.sample(walks, 2) if len(w) >= length]
    return found + walks


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_first_errors_agree_with_the_dfa(built, name):
    """Class-edge words, mutated live walks and inputs of every length 0 to 300 (and longer ones
    with runs of bytes 00-7F), whole in each build and in one-byte pieces on a sample."""
    _window_runs(built)
    text = GRAMMARS[name]
    dfa = _minimal(text)
    inputs = (every_length(dfa, name) if name == "utf8" else _fewer(dfa, name)) + edge_windows(dfa)[::4]
    want = [dfa.first_error(data) for data in inputs]
    for kind in KINDS if name == "utf8" else ("simd", "scalar"):
        assert built[name, kind].first_errors(inputs) == want, kind
    for kind in KINDS if name == "utf8" else ("simd",):  # is_valid takes a walk of its own
        assert built[name, kind].validities(inputs) == [error is None for error in want], kind
    stream = built[name, "simd"]
    sample = inputs[::97]
    assert [in_pieces(stream.Validator(), data) for data in sample] == want[::97]


def test_utf8_bytes_no_state_takes_before_bytes_00_7f(built):
    """C0, C1 and F5-FF are flagged at the window after them: at the end of a step before a step
    of bytes 00-7F (which the end table must not skip) and at the end of the input, first_error
    still names the byte itself."""
    _window_runs(built)
    inputs = []
    for byte in (0xC0, 0xC1, 0xF5, 0xFF):
        for at in (0, 1, 15, 31, 62, 63, 64, 127, 190, 191):
            inputs += [b"a" * at + bytes([byte]) + b"a" * tail for tail in (0, 1, 2, 3, 64, 200)]
            inputs.append("é".encode() * (at // 2) + b"a" * (at % 2) + bytes([byte]) + b"b" * 130)
    reference = python_module(UTF8_TEXT)
    want = [reference.first_error(data) for data in inputs]
    for kind in ("simd", "default"):
        assert built["utf8", kind].first_errors(inputs) == want, kind


def _around(dfa: Dfa, seed: str, lengths: list[int]) -> list[bytes]:
    """Inputs of the given lengths: mutated live walks cut or padded with "a" in front to the
    length (errors near the end: the last part block, the end table), class-edge words and random
    bytes."""
    rng = random.Random(seed)
    edges = class_edges(dfa)
    walks = mutated_walks(dfa, rng, 300, 80, ascii_share=0.3, cut_share=0.3)
    longs = mutated_walks(dfa, rng, 60, max(lengths) + 40, ascii_share=0.5, cut_share=0.1)
    found = []
    for length in lengths:
        found += [(b"a" * length + w)[-length:] for w in rng.sample(walks, 12)]
        found += [w[:length] for w in longs if len(w) >= length][:8]
        found += [bytes(rng.choice(edges) for _ in range(length)), rng.randbytes(length)]
    return found


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_lengths_at_the_window_tests_edges(built, name):
    """Lengths at the edges of the window test's walks: from where the module takes it
    (SHORT_MIN) to 2 blocks of 32, around the last length walked densely (DENSE_MAX) and around
    1 KiB (16 steps of 64, where the quick walk tests what it gathered)."""
    _window_runs(built)
    dfa = _minimal(GRAMMARS[name])
    lengths = [*range(SHORT_MIN - 2, 66), *range(DENSE_MAX - 3, DENSE_MAX + 4), *range(1020, 1030)]
    lengths += [95, 96, 97, 127, 128, 129, 159, 160, 161, 191, 192, 193]  # is_valid's steps and blocks
    inputs = _around(dfa, name, lengths)
    want = [dfa.first_error(data) for data in inputs]
    for kind in KINDS if name == "utf8" else ("simd", "scalar"):
        assert built[name, kind].first_errors(inputs) == want, kind
    valid = [data for data, error in zip(inputs, want, strict=True) if error is None]
    assert valid and len(valid) < len(inputs)  # both kinds of answer are checked
    for kind in KINDS if name == "utf8" else ("simd",):
        assert built[name, kind].validities(inputs) == [error is None for error in want], kind


# --- the Rust tools users run on generated code ---------------------------------------------------

VARIANTS = {"utf8_std": {"simd": "std"}, "utf8_core": {"simd": "core"}, "utf8_off": {"simd": "off"},
            "cesu8_std": {"simd": "std"}, "pad_high_std": {"simd": "std"}}


def _write(folder: Path) -> list[Path]:
    paths = []
    for prefix, options in VARIANTS.items():
        [(name, source)] = files_for(GRAMMARS[prefix.rsplit("_", 1)[0]], "rust", prefix, options=options).items()
        paths.append(folder / name)
        paths[-1].write_text(source, encoding="utf-8")
    return paths


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-4000:]}{result.stderr[-6000:]}"


def test_rustc_and_rustfmt_with_and_without_avx2(tmp_path):
    rustc, rustfmt = _tool("rustc"), _tool("rustfmt")
    paths = _write(tmp_path)
    _run([rustfmt, "--edition", "2021", "--check", *map(str, paths)])
    for path in paths:
        for flags in ([], ["-C", "target-feature=+avx2"]):
            _run([rustc, "--edition", "2021", "--crate-type", "lib", "-D", "warnings", *flags, "--emit=metadata",
                  "--out-dir", str(tmp_path), str(path)])


def test_clippy_with_avx2_enabled(tmp_path):
    """With AVX2 on when compiling, so that the ``core`` variant's window test is linted too."""
    cargo = _tool("cargo")
    if find_tool("cargo-clippy") is None:
        pytest.skip("clippy not found (rustup component add clippy)")
    source = tmp_path / "src"
    source.mkdir()
    paths = _write(source)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "window"\nversion = "0.1.0"\nedition = "2021"\n'
                                         "\n[dependencies]\n", encoding="utf-8")
    (source / "lib.rs").write_text("".join(f"pub mod {path.stem};\n" for path in paths), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(cargo).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "RUSTFLAGS": "-C target-feature=+avx2"}
    _run([cargo, "clippy", "--offline", "--quiet", "--", "-D", "warnings"], tmp_path, env)


# The NEON intrinsics the AArch64 module calls, as x86-64 code of the same types: the pure ones
# safe (as core::arch has them since Rust made them safe), the load and the store unsafe; a
# grammar calls only some of them.  Enough for clippy to lint the module's own code where no
# AArch64 standard library is installed for it.
NEON_STAND_INS = """
#[allow(dead_code, non_camel_case_types, unsafe_code, clippy::missing_safety_doc)]
mod neon {
    pub type uint8x16_t = [u8; 16];
    pub fn vdupq_n_u8(value: u8) -> uint8x16_t {
        [value; 16]
    }
    pub unsafe fn vld1q_u8(at: *const u8) -> uint8x16_t {
        core::array::from_fn(|i| unsafe { *at.add(i) })
    }
    pub unsafe fn vst1q_u8(at: *mut u8, v: uint8x16_t) {
        for (i, byte) in v.into_iter().enumerate() {
            unsafe { *at.add(i) = byte };
        }
    }
    pub fn vorrq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a[i] | b[i])
    }
    pub fn vandq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a[i] & b[i])
    }
    pub fn veorq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a[i] ^ b[i])
    }
    pub fn vqsubq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a[i].saturating_sub(b[i]))
    }
    pub fn vqtbl1q_u8(table: uint8x16_t, index: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| table.get(usize::from(index[i])).copied().unwrap_or(0))
    }
    pub fn vshrq_n_u8<const N: i32>(a: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a[i] >> N)
    }
    pub fn vextq_u8<const N: i32>(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        core::array::from_fn(|i| a.get(i + N as usize).copied().unwrap_or_else(|| b[i + N as usize - 16]))
    }
    pub fn vmaxvq_u8(a: uint8x16_t) -> u8 {
        a.into_iter().max().unwrap_or(0)
    }
}
"""
NEON_CFG = '#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]\nmod window {'


def test_clippy_on_the_neon_module_with_stand_in_intrinsics(tmp_path):
    """The AArch64 module's own code under clippy -D warnings, its intrinsics replaced by the
    stand-ins above (rustc here has no AArch64 standard library to check it as it is)."""
    cargo = _tool("cargo")
    if find_tool("cargo-clippy") is None:
        pytest.skip("clippy not found (rustup component add clippy)")
    source = tmp_path / "src"
    source.mkdir()
    modules = []
    for prefix, options in VARIANTS.items():
        if options["simd"] == "off":
            continue
        [(_, text)] = files_for(GRAMMARS[prefix.rsplit("_", 1)[0]], "rust", prefix, options=options).items()
        start = text.index(NEON_CFG)
        end = text.index("\n}\n", start) + 3
        window = text[start:end].replace(NEON_CFG, "mod window {").replace(
            "use core::arch::aarch64::*;", "use super::neon::*;")
        (source / f"{prefix}.rs").write_text(
            "#![deny(unsafe_code)]\n" + NEON_STAND_INS + window
            + "\npub fn check(data: &[u8]) -> (Option<bool>, Option<Option<usize>>, bool, &'static str) {\n"
            "    (window::is_valid(data), window::first_error(data), window::available(), window::INSTANCE)\n}\n",
            encoding="utf-8")
        modules.append(prefix)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "neon"\nversion = "0.1.0"\nedition = "2021"\n'
                                         "\n[dependencies]\n", encoding="utf-8")
    (source / "lib.rs").write_text("".join(f"pub mod {name};\n" for name in modules), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(cargo).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    _run([cargo, "clippy", "--offline", "--quiet", "--", "-D", "warnings"], tmp_path, env)
