"""Compiled batch kernels, loaded and called without the parser, the automata or the backends, so
that ``abnfc check --records`` with a cached kernel starts in tens of milliseconds: the cache
(:mod:`.cache`) and the calls through ctypes (:mod:`.kernel`).  The kernel's C is the C
backend's (``backends/c/static/batch.c``), built by :mod:`abnfc.backends.c.batch`.
"""
from .cache import KERNEL, cache_folder, cache_key, find_compiler, templates_stamp, writable_cache_folder
from .kernel import MAX_BAD, SIZE_MAX, BatchKernel, cached

__all__ = ["KERNEL", "MAX_BAD", "SIZE_MAX", "BatchKernel", "cache_folder", "cache_key", "cached", "find_compiler",
           "templates_stamp", "writable_cache_folder"]
