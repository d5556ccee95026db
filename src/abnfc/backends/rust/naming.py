"""What the Rust backend's output needs of a prefix: ``<prefix>.rs`` is declared as ``mod
<prefix>;``, so the prefix must not be a Rust keyword (strict, reserved or of an edition:
the Rust Reference, "Keywords"), which a module cannot be named without ``r#``."""
from __future__ import annotations

from ...i18n import N_
from .. import Naming, Reserved

RUST_KEYWORDS = frozenset("""as break const continue crate else enum extern false fn for if impl in
    let loop match mod move mut pub ref return self Self static struct super trait true type unsafe
    use where while async await dyn abstract become box do final macro override priv typeof unsized
    virtual yield try gen""".split())

NAMING = Naming(lambda prefix: (f"{prefix}.rs",),
                reserved=(Reserved(RUST_KEYWORDS, N_("it is a Rust keyword, so `mod {prefix};` would not compile")),))
