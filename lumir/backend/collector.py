"""Python's cyclic garbage collector paused while lumir compiles and loads a program.

A compile builds and drops hundreds of thousands of xDSL objects (ops, values, types,
attributes), which survive long enough to be counted towards the collector's oldest
generation; every few thousand of them the collector then walks the whole heap,
Dynamo's, aot_autograd's and the model's objects included (over a million in a process
that has compiled a 16-layer Llama). Decoding with a `DynamicCache` compiles a new length
on every token, and there these full walks took ~13% of each token's compile on a
2-core CPU (six gen-2 collections of ~0.5 s over ten tokens, measured with
`gc.callbacks`). Paused, the collector runs once after the compile, over the objects
the compile left behind, rather than over the heap several times during it.
(`torch.distributed.checkpoint` pauses it around its own bulk object work the same way.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector inside the block; restore it after, if it was on.

    Nested pauses are fine: only the outermost one that found the collector enabled
    enables it again. Reference counting still frees every acyclic object at once.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
