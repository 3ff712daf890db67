"""Raw table access for the kernels: ``prefetch(array, i)`` asks the CPU to start loading
``array[i]``'s cache line and returns at once; ``prefetch_either`` and ``read_either`` do the
same for, and read, entry ``i`` of one of two tables without a branch (layer 3: search).

Why: a pattern-database lookup is a random read in a table of up to half a gigabyte, a cache
miss of about 100 ns.  The kernels know every child's table index before they need any value;
hinting them all first makes the misses of one expansion overlap instead of waiting for each
other (the C reference does the same with ``__builtin_prefetch``).  numba has no such call, so
this one emits LLVM's ``llvm.prefetch`` (read, high locality, data cache) on the element's
address.

Why ``read_either``: with two databases (``--combine``) a lookup reads the first or the second
table.  Written in Python (``first[i] if tab == 0 else second[i]``) numba takes a reference
to the chosen array on each branch and releases it after, an atomic count and two calls per
lookup that its reference-count pruning does not remove across the branch: the kernel ran 5-7
times slower per node than with one table, even with the same table twice (research table,
section 2).  Here the two element addresses are computed, one is selected, and it is read;
no reference is taken.  Imports: numba, llvmlite.
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


def _either_pointer(context, builder, signature, args):
    """The address of ``first[index]`` when ``tab`` is 0, else of ``second[index]``."""
    first_ty, second_ty, _, _ = signature.args
    first = context.make_array(first_ty)(context, builder, args[0])
    second = context.make_array(second_ty)(context, builder, args[1])
    index = [args[3]]
    a = cgutils.get_item_pointer(context, builder, first_ty, first, index, wraparound=False)
    b = cgutils.get_item_pointer(context, builder, second_ty, second, index, wraparound=False)
    zero = ir.Constant(args[2].type, 0)
    return builder.select(builder.icmp_signed("==", args[2], zero), a, b)


@intrinsic
def read_either(typingctx, first, second, tab, index):
    """``first[index]`` when ``tab`` is 0, else ``second[index]`` (two 1-d arrays of one
    dtype, an index known to be in range of the one read), without a branch."""
    sig = first.dtype(first, second, tab, index)

    def codegen(context, builder, signature, args):
        return builder.load(_either_pointer(context, builder, signature, args))

    return sig, codegen


@intrinsic
def prefetch_either(typingctx, first, second, tab, index):
    """:func:`prefetch` of the entry :func:`read_either` would read."""
    sig = types.void(first, second, tab, index)

    def codegen(context, builder, signature, args):
        where = _either_pointer(context, builder, signature, args)
        fn = cgutils.get_or_insert_function(builder.module, _LLVM_PREFETCH, "llvm.prefetch.p0")
        hint = (_I32(_READ), _I32(_KEEP_IN_ALL_CACHES), _I32(_DATA))
        builder.call(fn, [builder.bitcast(where, _BYTE_POINTER), *hint])
        return context.get_dummy_value()

    return sig, codegen
