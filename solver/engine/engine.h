/* The engine's shared declarations: each part of the engine (one .c file beside this one)
 * exports a NULL-terminated method table, and module.c joins them into one module,
 * solver.engine._engine.  A part includes this header and nothing of the others; what every
 * part shares is declared here too: the checked views of the arrays Python hands in
 * (buffers.c). */
#ifndef NPUZZLE_ENGINE_H
#define NPUZZLE_ENGINE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

extern PyMethodDef npz_search_methods[];  /* search_kernels.c: the IDA* walks */
int npz_search_constants(PyObject *module);  /* ... and what their calls return */
extern PyMethodDef npz_pattern_methods[]; /* pattern_bfs.c: the pattern databases' BFS */
extern PyMethodDef npz_exact_methods[];   /* exact_bfs.c: the exact tables' BFS */
extern PyMethodDef npz_region_methods[];  /* region_bfs.c: large patterns by (placement, region) */

/* --- checked arrays (buffers.c) -------------------------------------------------------------- */

/* The item types an array may be asked to hold; the transitions of a pruning machine come in
 * either of two widths (NPZ_I16_OR_I32: the buffer's itemsize tells which). */
typedef enum { NPZ_U8, NPZ_U16, NPZ_U32, NPZ_U64, NPZ_I32, NPZ_I64, NPZ_I16_OR_I32 } npz_kind;

#define NPZ_MAX_VIEWS 48 /* the most arrays one call takes (an IDA* walk's, with room) */

/* The views one call holds, given back together by npz_release; start it as {.count = 0}. */
typedef struct {
    Py_buffer views[NPZ_MAX_VIEWS];
    int count;
} npz_views;

/* The buffer of `obj` (named `what` in errors), held in `v`: items of `kind`, `ndim`
 * dimensions (-1: any), C-contiguous, `count` items (-1: any), writable when `writable`.
 * NULL with a TypeError (no such array, or another item type) or a ValueError (the wrong
 * dimensions, layout or size) set when it is not; what was taken stays held either way. */
Py_buffer *npz_view(npz_views *v, PyObject *obj, const char *what, npz_kind kind, int ndim,
                    Py_ssize_t count, int writable);

/* Gives back every view `v` holds. */
void npz_release(npz_views *v);

/* The number of items of a view (its bytes over its item size, whatever its dimensions). */
static inline Py_ssize_t npz_items(const Py_buffer *b) { return b->len / b->itemsize; }

#endif
