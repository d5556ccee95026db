"""What the Go backend's output needs of a prefix: ``<prefix>`` is the package's name, so it must
not be a Go keyword or predeclared identifier (a file importing the package would shadow it) nor
``main`` (a command, which cannot be imported) nor ``init`` (an import declares the package's
name, and a package-level ``init`` must be a function: "cannot import package as init");
``<prefix>.go`` must not end as a name the go tool reads as a build constraint (``_test``,
``_linux``, ``_amd64``: The Go Programming Language, "Build constraints", go help
buildconstraint), which would leave the file out of most builds."""
from __future__ import annotations

from ...i18n import N_
from .. import Naming, Reserved

# The Go Programming Language Specification, "Keywords" and "Predeclared identifiers" (Go 1.21
# included, for min, max and clear).
GO_KEYWORDS = frozenset("""break case chan const continue default defer else fallthrough for func go
    goto if import interface map package range return select struct switch type var""".split())
GO_PREDECLARED = frozenset("""any bool byte comparable complex64 complex128 error float32 float64 int
    int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil
    append cap clear close complex copy delete imag len make max min new panic print println real
    recover""".split())
# The values of GOOS and GOARCH that go/build knows (its syslist), past and present.
GOOS = frozenset("""aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd
    openbsd plan9 solaris wasip1 windows zos""".split())
GOARCH = frozenset("""386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64
    mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64
    wasm""".split())


def _constraint(prefix: str) -> str | None:
    """Why ``<prefix>.go`` would be read as a build constraint, if it would."""
    parts = prefix.split("_")
    if len(parts) > 1 and parts[-1] == "test":
        return N_("{prefix}.go would be a test file, which go build leaves out")
    if len(parts) > 1 and (parts[-1] in GOOS or parts[-1] in GOARCH):
        return N_("{prefix}.go would be built only for the operating system or architecture its name ends with")
    return None


NAMING = Naming(
    # <prefix>.go, and beside it for a window test its assembly and the other architectures' file
    lambda prefix: (f"{prefix}.go", f"{prefix}_amd64.go", f"{prefix}_amd64.s", f"{prefix}_arm64.go",
                    f"{prefix}_arm64.s", f"{prefix}_other.go"),
    reserved=(Reserved(GO_KEYWORDS | GO_PREDECLARED, N_("it is a Go keyword or predeclared identifier, and "
                                                         "the package is named after the prefix")),
              Reserved(frozenset({"main"}), N_("a Go package named main is a command, which cannot be "
                                               "imported")),
              Reserved(frozenset({"init"}), N_("a Go package named init cannot be imported under its name "
                                               "(init is reserved for initialization functions)"))),
    check=_constraint,
)
