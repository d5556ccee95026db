"""Inputs for differential tests: walks of a DFA that stay alive, with mutations, the edges of
its byte classes, and random one-byte edits of any input."""
from __future__ import annotations

import random

from abnfc.automata.dfa import Dfa


def class_edges(dfa: Dfa) -> list[int]:
    """Each class's lowest and highest byte (and the ends of its other ranges), sorted."""
    return sorted({b for ranges in dfa.classes for lo, hi in ranges for b in (lo, hi)})


def live_walk(dfa: Dfa, rng: random.Random, longest: int, ascii_share: float = 0.0) -> bytearray:
    """Up to ``longest`` bytes along which the DFA stays alive; a share of the bytes are random
    ASCII instead, and the walk ends before the first of those that does not fit."""
    state, word = dfa.start, bytearray()
    for _ in range(rng.randint(1, longest)):
        live = [b for b in range(256) if dfa.transitions[state][dfa.byte_class[b]] != dfa.dead]
        if not live:
            break
        byte = rng.randrange(128) if rng.random() < ascii_share else rng.choice(live)
        following = dfa.transitions[state][dfa.byte_class[byte]]
        if following == dfa.dead:
            break
        word.append(byte)
        state = following
    return word


def mutated_walks(dfa: Dfa, rng: random.Random, count: int, longest: int, ascii_share: float = 0.0,
                  cut_share: float = 0.0) -> list[bytes]:
    """Live walks, half of them with one byte changed, a share cut short."""
    found = []
    for _ in range(count):
        word = live_walk(dfa, rng, longest, ascii_share)
        if word and rng.random() < 0.5:
            word[rng.randrange(len(word))] = rng.randrange(256)
        if word and rng.random() < cut_share:
            word = word[:rng.randrange(len(word))]
        found.append(bytes(word))
    return found


def one_byte_edits(data: bytes, rng: random.Random, count: int, alphabet: bytes) -> list[bytes]:
    """``count`` copies of ``data`` with one byte of ``alphabet`` put in place of a byte, inserted,
    or one byte deleted, at random places."""
    found = []
    for _ in range(count):
        at = rng.randrange(len(data))
        piece = bytes([rng.choice(alphabet)])
        edit = rng.randrange(3)
        found.append(data[:at] + piece + data[at + 1:] if edit == 0 else
                     data[:at] + piece + data[at:] if edit == 1 else data[:at] + data[at + 1:])
    return found
