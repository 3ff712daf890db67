/* The engine's shared declarations: each part of the engine (one .c file beside this one)
 * exports a NULL-terminated method table, and module.c joins them into one module,
 * solver.engine._engine.  A part includes this header and nothing of the others. */
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

#endif
