"""Raw table access for the kernels: ``prefetch(array, i)`` asks the CPU to start loading
``array[i]``'s cache line and returns at once; ``read_at(first, delta, i)`` and
``prefetch_at`` read and hint entry ``i`` of another table, ``delta`` bytes away from
``first`` (layer 3: search).

Why: a pattern-database lookup is a random read in a table of up to half a gigabyte, a cache
miss of about 100 ns.  The kernels know every child's table index before they need any value;
hinting them all first makes the misses of one expansion overlap instead of waiting for each
other (the C reference does the same with ``__builtin_prefetch``).  numba has no such call, so
this one emits LLVM's ``llvm.prefetch`` (read, high locality, data cache) on the element's
address.

Why ``read_at``: with several databases (``--combine``) a lookup reads the table of one of
them.  Chosen among arrays in Python (``first[i] if tab == 0 else second[i]``), numba takes a
reference to the chosen array and releases it after, an atomic count and two calls per lookup
that its reference-count pruning does not remove across the branch: the kernel ran 5-7 times
slower per node than with one table, even with the same table twice (research table, section
2); a tuple of arrays indexed at run time costs the same.  Here every table is named by its
distance in bytes from the first, and the kernel reads one array it was given: no branch
between arrays and no reference, for any number of tables.  Imports: numba, llvmlite.
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


def _pointer_at(context, builder, signature, args):
    """The address ``delta`` bytes past ``first[index]``, as integers: no bounds, no
    reference, and no promise to LLVM that it stays inside ``first``."""
    first_ty = signature.args[0]
    first = context.make_array(first_ty)(context, builder, args[0])
    where = cgutils.get_item_pointer(context, builder, first_ty, first, [args[2]], wraparound=False)
    address = builder.add(builder.ptrtoint(where, args[1].type), args[1])
    return builder.inttoptr(address, where.type)


@intrinsic
def read_at(typingctx, first, delta, index):
    """The element ``delta`` bytes past ``first[index]``: entry ``index`` of another table of
    ``first``'s dtype that starts ``delta`` bytes after ``first`` (negative: before).  The
    caller keeps that table alive and the index in its range."""
    sig = first.dtype(first, delta, index)

    def codegen(context, builder, signature, args):
        return builder.load(_pointer_at(context, builder, signature, args))

    return sig, codegen


@intrinsic
def prefetch_at(typingctx, first, delta, index):
    """:func:`prefetch` of the entry :func:`read_at` would read."""
    sig = types.void(first, delta, index)

    def codegen(context, builder, signature, args):
        where = _pointer_at(context, builder, signature, args)
        fn = cgutils.get_or_insert_function(builder.module, _LLVM_PREFETCH, "llvm.prefetch.p0")
        hint = (_I32(_READ), _I32(_KEEP_IN_ALL_CACHES), _I32(_DATA))
        builder.call(fn, [builder.bitcast(where, _BYTE_POINTER), *hint])
        return context.get_dummy_value()

    return sig, codegen
