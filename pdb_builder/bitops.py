"""Bit operations for the pattern-database kernels: popcount, lowest set bit, pext/pdep and an
atomic OR on an array element, all callable from numba code (builder layer).

* ``popcount(x)`` and ``lowest_bit_index(x)`` are LLVM's portable ``ctpop`` / ``cttz``: one
  instruction wherever the CPU has one.
* ``pext(x, mask)`` gathers the bits of ``x`` selected by ``mask`` into the low bits, in order;
  ``pdep(x, mask)`` is its inverse: it scatters the low bits of ``x`` to the positions of
  ``mask``.  The pattern BFS uses them to convert between *cell masks* (bit c = cell c of the
  board) and *free-cell masks* (bit i = the i-th empty cell of a placement, in cell order)::

      pext(0b10110, 0b11100) == 0b101      # cells 2, 3, 4 hold bits 1, 0, 1
      pdep(0b101, 0b11100) == 0b10100

  On x86 CPUs with BMI2 each is one instruction (``llvm.x86.bmi.pext.32``); elsewhere (and
  on AMD Zen 1/2, whose BMI2 is microcoded) a loop over the mask's bits does the same.  The
  choice is made once, at import, from the CPU numba compiles for (``$NUMBA_CPU_NAME`` /
  ``$NUMBA_CPU_FEATURES``, else the host), which is also part of numba's cache key, so a cached
  kernel always matches the choice.  ``NUMBA_CPU_NAME=generic`` runs everything on the
  fallback (the tests do).  Both take and return 32-bit masks (boards have at most 31 cells).
* ``atomic_or(array, i, bits)`` ORs ``bits`` into ``array[i]`` as one indivisible step and
  returns the previous value (the kernels' only write to entries other threads may write).

Imports: llvmlite and numba only.
"""

from __future__ import annotations

import numba
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

# AMD's Zen 1 and Zen 2 have BMI2 but run pext/pdep in microcode (tens to hundreds of cycles,
# growing with the mask's bits): the loop below is faster there.
SLOW_BMI2_CPUS = ("znver1", "znver2")


def target_has_bmi2() -> bool:
    """Whether the CPU numba compiles for has fast BMI2 pext/pdep instructions."""
    name = config.CPU_NAME or llvm_binding.get_host_cpu_name()
    if name in SLOW_BMI2_CPUS:
        return False
    features = config.CPU_FEATURES
    if features is None:
        features = llvm_binding.get_host_cpu_features().flatten()
    return "+bmi2" in features.split(",")


HAS_BMI2 = target_has_bmi2()


def _llvm_unary(name):
    """A numba intrinsic calling the LLVM integer intrinsic ``name`` (with a false flag for
    cttz, whose result at zero is then defined as the bit width)."""

    @intrinsic
    def call(typingctx, x):
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            extra = [ir.IntType(1)] if name.startswith("llvm.cttz") else []
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64] + extra), name
            )
            return builder.call(fn, [args[0]] + [ir.Constant(t, 0) for t in extra])

        return sig, codegen

    return call


popcount = _llvm_unary("llvm.ctpop.i64")
lowest_bit_index = _llvm_unary("llvm.cttz.i64")


def _bmi2(name):
    """A numba intrinsic for the 32-bit BMI2 instruction ``name`` (x86 only)."""

    @intrinsic
    def call(typingctx, x, mask):
        sig = types.int64(types.int64, types.int64)

        def codegen(context, builder, signature, args):
            i32, i64 = ir.IntType(32), ir.IntType(64)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i32, [i32, i32]), name
            )
            low = [builder.trunc(a, i32) for a in args]
            return builder.zext(builder.call(fn, low), i64)

        return sig, codegen

    return call


pext_bmi2 = _bmi2("llvm.x86.bmi.pext.32")
pdep_bmi2 = _bmi2("llvm.x86.bmi.pdep.32")


@numba.njit(cache=True, inline="always")
def pext_loop(x, mask):
    """pext without BMI2: walk the mask's set bits from the lowest up."""
    out = 0
    bit = 1
    while mask != 0:
        low = mask & -mask
        if x & low:
            out |= bit
        bit <<= 1
        mask ^= low
    return out


@numba.njit(cache=True, inline="always")
def pdep_loop(x, mask):
    """pdep without BMI2: hand the low bits of x out to the mask's set bits in order."""
    out = 0
    while mask != 0:
        low = mask & -mask
        if x & 1:
            out |= low
        x >>= 1
        mask ^= low
    return out


pext = pext_bmi2 if HAS_BMI2 else pext_loop
pdep = pdep_bmi2 if HAS_BMI2 else pdep_loop


@intrinsic
def atomic_or(typingctx, array, index, bits):
    """``old = array[index]; array[index] |= bits`` in one indivisible step; returns ``old``
    (as int64).  No bounds check: the caller's index is a rank it computed."""
    sig = types.int64(array, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        item = context.get_value_type(array_type.dtype)
        arr = context.make_array(array_type)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(
            context, builder, array_type, arr, [args[1]], wraparound=False
        )
        value = builder.trunc(args[2], item) if item.width < 64 else args[2]
        old = builder.atomic_rmw("or", ptr, value, "monotonic")
        return builder.zext(old, ir.IntType(64)) if item.width < 64 else old

    return sig, codegen
