"""A cache hint for the kernels: ``prefetch(array, i)`` asks the CPU to start loading
``array[i]``'s cache line and returns at once (layer 3: search).

Why: a pattern-database lookup is a random read in a table of up to half a gigabyte, a cache
miss of about 100 ns.  The kernels know every child's table index before they need any value;
hinting them all first makes the misses of one expansion overlap instead of waiting for each
other (the C reference does the same with ``__builtin_prefetch``).  numba has no such call, so
this one emits LLVM's ``llvm.prefetch`` (read, high locality, data cache) on the element's
address.  Imports: numba, llvmlite.
"""

from __future__ import annotations

from ..core.numba_start import import_numba

import_numba()
from llvmlite import ir  # noqa: E402
from numba import types  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

_I32 = ir.IntType(32)
_BYTE_POINTER = ir.IntType(8).as_pointer()
_LLVM_PREFETCH = ir.FunctionType(ir.VoidType(), [_BYTE_POINTER, _I32, _I32, _I32])
_READ, _KEEP_IN_ALL_CACHES, _DATA = 0, 3, 1


@intrinsic
def prefetch(typingctx, array, index):
    """Hint the CPU to load ``array[index]`` (a 1-d array, an index known to be in range);
    no effect on the program's result."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        arr = context.make_array(arrty)(context, builder, args[0])
        where = cgutils.get_item_pointer(context, builder, arrty, arr, [args[1]], wraparound=False)
        fn = cgutils.get_or_insert_function(builder.module, _LLVM_PREFETCH, "llvm.prefetch.p0")
        hint = (_I32(_READ), _I32(_KEEP_IN_ALL_CACHES), _I32(_DATA))
        builder.call(fn, [builder.bitcast(where, _BYTE_POINTER), *hint])
        return context.get_dummy_value()

    return sig, codegen
