"""What ``abnfc explain`` found, as frozen data: the :class:`Explanation` that
:mod:`.explainer` builds and :mod:`.text` and :mod:`.json_output` render."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engines import Outcome
from ..frontend.ir import Origin
from .search import Ambiguity, Derivation


@dataclass(frozen=True)
class Expected:
    """A grammar position that could have read the next byte."""

    origin: Origin
    after: Origin | None  # the position that read the byte before, when it comes just before
    alternatives: int = 1  # how many alternatives the rule has


@dataclass(frozen=True, slots=True)
class Step:
    offset: int
    byte: int
    byte_class: int
    before: int  # states of the minimal DFA
    after: int
    read_by: tuple[Origin, ...]  # positions of the DFA before minimization that read the byte
    expected: tuple[Origin, ...]  # when the byte leads to the dead state: what was expected
    # A pushdown validator's step: the call state the byte pushed (> 0) or popped (< 0), or 0,
    # and the nested parts open after it.
    move: int = 0
    depth: int = 0


@dataclass(frozen=True)
class Explanation:
    grammar: str
    start: str
    name: str
    data: bytes
    outcome: Outcome
    tree: Derivation | None  # of the whole input, or of the part before the error
    ambiguity: Ambiguity | None = None
    expected: tuple[Expected, ...] = ()
    steps: Sequence[Step] | None = None  # made as they are read (explainer.Steps)
    final_state: tuple[int, bool] | None = None  # the minimal DFA's state after a live run, accepting
    pushdown: bool = False  # the steps are a pushdown validator's (with calls and returns)

    @property
    def accepted(self) -> bool:
        return self.outcome.matched
