"""Compiled batch kernels: their C (``static/batch.c``), their build (:mod:`.batch`), their cache
and key (:mod:`.cache`) and the calls through ctypes (:mod:`.kernel`).  Loading a cached kernel
needs neither the parser, the automata nor the backends, so that ``abnfc check --records`` with a
cached kernel starts in tens of milliseconds; building one takes a generated source as text.
"""
from .cache import KERNEL, KernelCacheWarning, cache_folder, find_compiler, kernel_key
from .kernel import MAX_BAD, SIZE_MAX, BatchKernel, cached

__all__ = ["KERNEL", "MAX_BAD", "SIZE_MAX", "BatchKernel", "KernelCacheWarning", "cache_folder", "cached",
           "find_compiler", "kernel_key"]
