"""The JavaScript validator takes bytes in every form JavaScript holds them: Uint8Array, Buffer,
other typed arrays, DataView, ArrayBuffer and SharedArrayBuffer (refused before, issue 23); a
string is refused with a TypeError saying to encode it."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from helpers.paths import UTF8_GRAMMAR

import abnfc

SCRIPT = """
import { isValid, firstError } from "./utf8.mjs";
const bytes = [0x61, 0xED, 0xA0];
const shared = new SharedArrayBuffer(3); new Uint8Array(shared).set(bytes);
const plain = new ArrayBuffer(3); new Uint8Array(plain).set(bytes);
const forms = [Uint8Array.from(bytes), Buffer.from(bytes), new DataView(plain), plain, shared,
               new Uint8Array(shared), Uint16Array.from([0xED61, 0x00A0]).subarray(0, 1)];
console.log(forms.map((form) => firstError(form)).join(" "));
try { isValid("abc"); } catch (error) { console.log(error.constructor.name, error.message); }
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the module")
def test_every_form_of_bytes_is_taken_and_a_string_is_refused(tmp_path):
    files = abnfc.generate_files(UTF8_GRAMMAR, "js", prefix="utf8")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    ran = subprocess.run(["node", "--input-type=module", "-e", SCRIPT], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    offsets, refusal = ran.stdout.splitlines()
    assert offsets == "2 2 2 2 2 2 2"  # the Uint16Array view holds the bytes 61 ED: ED needs more at 2
    assert refusal.startswith("TypeError expected bytes, got a string")
