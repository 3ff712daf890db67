/* solver.engine._engine: the module, its method table joined from the parts' tables
 * (engine.h), and SOURCE_DIGEST, the CRC-32 of the sources it was built from, which
 * solver.engine compares with the files beside it so that a stale build is never run. */
#include "engine.h"

#ifndef NPUZZLE_ENGINE_DIGEST
#define NPUZZLE_ENGINE_DIGEST "unknown"
#endif

static PyMethodDef *const parts[] = {npz_search_methods, npz_pattern_methods, npz_exact_methods,
                                      npz_region_methods};
#define PARTS (sizeof parts / sizeof parts[0])

static PyMethodDef *joined_methods(void) {
    size_t count = 0;
    for (size_t p = 0; p < PARTS; p++)
        for (PyMethodDef *m = parts[p]; m->ml_name != NULL; m++) count++;
    PyMethodDef *all = PyMem_Calloc(count + 1, sizeof *all); /* kept for the process's life */
    if (all == NULL) return NULL;
    size_t i = 0;
    for (size_t p = 0; p < PARTS; p++)
        for (PyMethodDef *m = parts[p]; m->ml_name != NULL; m++) all[i++] = *m;
    return all;
}

static struct PyModuleDef engine_module = {
    PyModuleDef_HEAD_INIT, "_engine",
    "npuzzle's compiled engine: IDA*'s walks and the databases' breadth-first searches.", -1,
    NULL};

PyMODINIT_FUNC PyInit__engine(void) {
    engine_module.m_methods = joined_methods();
    if (engine_module.m_methods == NULL) return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&engine_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", NPUZZLE_ENGINE_DIGEST) < 0 ||
        npz_search_constants(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
