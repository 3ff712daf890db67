/* The region BFS's entry points (pdb_builder.region_bfs): the breadth-first search of a
 * large pattern over (placement, blank region) states laid out by map, region and
 * permutation (region_bfs.h says why), one byte a state.
 *
 * Python drives it: region_plan makes the tables of the pattern's size once (an opaque
 * capsule: nothing a caller hands over can point the loops outside their arrays), and the
 * driver's threads run region_layer over ranges of maps, then region_fold over ranges of
 * placements, each call with the GIL released.  The entries and the tables out arrive
 * through the buffer protocol and are checked on entry (buffers.c) for their item type
 * (TypeError) and their size against the plan's (ValueError). */
#include "region_bfs.h"

#include <string.h>

/* --- the plan ----------------------------------------------------------------------------- */

static void plan_destroy(PyObject *capsule) {
    rg_plan_free(PyCapsule_GetPointer(capsule, RG_CAPSULE));
}

/* The plan inside `obj`, or NULL with a TypeError set. */
static const rg_plan *plan_of(PyObject *obj) {
    if (!PyCapsule_IsValid(obj, RG_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "expected a plan made by region_plan");
        return NULL;
    }
    return PyCapsule_GetPointer(obj, RG_CAPSULE);
}

/* region_plan(rows, cols, k) -> the plan of k tiles on rows x cols. */
static PyObject *plan(PyObject *self, PyObject *args) {
    long rows, cols, k;
    if (!PyArg_ParseTuple(args, "lll:region_plan", &rows, &cols, &k)) return NULL;
    rg_plan *pl = rg_plan_new(rows, cols, k);
    if (pl == NULL) return NULL;
    PyObject *capsule = PyCapsule_New(pl, RG_CAPSULE, plan_destroy);
    if (capsule == NULL) rg_plan_free(pl);
    return capsule;
}

/* region_plan_info(plan) -> (maps, regions, entries, permutations, prefixes). */
static PyObject *plan_info(PyObject *self, PyObject *args) {
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O:region_plan_info", &obj)) return NULL;
    const rg_plan *pl = plan_of(obj);
    if (pl == NULL) return NULL;
    return Py_BuildValue("LLLLL", (long long)pl->maps, (long long)pl->regions,
                         (long long)pl->entries, (long long)pl->perms, (long long)pl->prefixes);
}

/* region_offsets(plan, out): out[m] = the regions of the maps before m (maps + 1 int64). */
static PyObject *offsets(PyObject *self, PyObject *args) {
    PyObject *obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO:region_offsets", &obj, &out_obj)) return NULL;
    const rg_plan *pl = plan_of(obj);
    if (pl == NULL) return NULL;
    npz_views v = {.count = 0};
    Py_buffer *out = npz_view(&v, out_obj, "out", NPZ_I64, -1, pl->maps + 1, 1);
    if (out != NULL) memcpy(out->buf, pl->offset, (size_t)(pl->maps + 1) * sizeof *pl->offset);
    npz_release(&v);
    if (out == NULL) return NULL;
    Py_RETURN_NONE;
}

/* region_index(plan, cells, blank) -> the entry of tile j on cells[j], the blank on blank. */
static PyObject *state_index(PyObject *self, PyObject *args) {
    PyObject *obj, *cells_obj;
    int blank;
    if (!PyArg_ParseTuple(args, "OOi:region_index", &obj, &cells_obj, &blank)) return NULL;
    const rg_plan *pl = plan_of(obj);
    if (pl == NULL) return NULL;
    PyObject *seq = PySequence_Fast(cells_obj, "region_index: cells must be a sequence");
    if (seq == NULL) return NULL;
    int cells[RG_MAX_TILES];
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t j = 0; j < len && j < pl->k; j++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
        cells[j] = c < 0 || c > RG_MAX_CELLS ? -1 : (int)c;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
    int64_t index = len == pl->k ? rg_state_index(pl, cells, blank) : -1;
    if (index < 0) {
        PyErr_Format(PyExc_ValueError, "region_index: not %d distinct cells and a blank of "
                     "the board", pl->k);
        return NULL;
    }
    return PyLong_FromLongLong((long long)index);
}

/* region_layer(plan, entries, pull, d, first, last) -> the states set to d + 1 over maps
 * first..last-1, pushed from depth d or pulled by the unseen states. */
static PyObject *layer(PyObject *self, PyObject *args) {
    PyObject *obj, *entries_obj;
    int pull, d;
    long long first, last;
    if (!PyArg_ParseTuple(args, "OOpiLL:region_layer", &obj, &entries_obj, &pull, &d, &first,
                          &last))
        return NULL;
    const rg_plan *pl = plan_of(obj);
    if (pl == NULL) return NULL;
    if (d < 0 || d >= RG_UNSEEN - 1 || first < 0 || first > last || last > pl->maps) {
        PyErr_Format(PyExc_ValueError, "region_layer: depth %d, maps %lld..%lld out of range "
                     "(0..%lld)", d, first, last, (long long)pl->maps);
        return NULL;
    }
    npz_views v = {.count = 0};
    Py_buffer *entries = npz_view(&v, entries_obj, "entries", NPZ_U8, -1, pl->entries, 1);
    if (entries == NULL) {
        npz_release(&v);
        return NULL;
    }
    int64_t written;
    Py_BEGIN_ALLOW_THREADS
    written = (pull ? rg_layer_pull : rg_layer_push)(pl, entries->buf, d, first, last);
    Py_END_ALLOW_THREADS
    npz_release(&v);
    if (written < 0) return PyErr_NoMemory();
    return PyLong_FromLongLong((long long)written);
}

/* region_fold(plan, entries, first, last, additive, twin, main, hist, value_bits, higher_by,
 * main_class, other_class) -> (unreached, clipped, largest): the tables of the placements of
 * prefixes first..last-1; additive and twin uint8, one item a placement from the rank
 * first * (n-k+1) on, or None; main (uint32 by colex rank) with a twin; hist (256 int64)
 * added to. */
static PyObject *fold(PyObject *self, PyObject *args) {
    PyObject *obj, *entries_obj, *add_obj, *twin_obj, *main_obj, *hist_obj;
    long long first, last;
    rg_fold_out out = {0}; /* no table out until one is taken */
    if (!PyArg_ParseTuple(args, "OOLLOOOOiiii:region_fold", &obj, &entries_obj, &first, &last,
                          &add_obj, &twin_obj, &main_obj, &hist_obj, &out.value_bits,
                          &out.higher_by, &out.main_class, &out.other_class))
        return NULL;
    const rg_plan *pl = plan_of(obj);
    if (pl == NULL) return NULL;
    if (first < 0 || first > last || last > pl->prefixes) {
        PyErr_Format(PyExc_ValueError, "region_fold: prefixes %lld..%lld out of range "
                     "(0..%lld)", first, last, (long long)pl->prefixes);
        return NULL;
    }
    if (out.value_bits < 1 || out.value_bits > 6 || out.main_class < 0 || out.main_class > 1 ||
        out.other_class < 0 || out.other_class > 1) {
        PyErr_SetString(PyExc_ValueError, "region_fold: value_bits 1..6, classes 0 or 1");
        return NULL;
    }
    const Py_ssize_t placements = (Py_ssize_t)(last - first) * (pl->n - pl->k + 1);
    npz_views v = {.count = 0};
    Py_buffer *entries, *hist, *b;
    if (!(entries = npz_view(&v, entries_obj, "entries", NPZ_U8, -1, pl->entries, 0)))
        goto fail;
    if (add_obj != Py_None) { /* None: not wanted */
        if (!(b = npz_view(&v, add_obj, "additive", NPZ_U8, -1, placements, 1))) goto fail;
        out.additive = b->buf;
    }
    if (twin_obj != Py_None) { /* a twin reads each map's main region */
        if (!(b = npz_view(&v, twin_obj, "twin", NPZ_U8, -1, placements, 1))) goto fail;
        out.twin = b->buf;
        if (!(b = npz_view(&v, main_obj, "main", NPZ_U32, -1, pl->maps, 0))) goto fail;
        out.main = b->buf;
    }
    if (!(hist = npz_view(&v, hist_obj, "hist", NPZ_I64, -1, 256, 1))) goto fail;
    rg_fold_counts counts;
    memset(&counts, 0, sizeof counts);
    Py_BEGIN_ALLOW_THREADS
    rg_fold(pl, entries->buf, first, last, &out, &counts);
    Py_END_ALLOW_THREADS
    int64_t *h = hist->buf;
    for (int i = 0; i < 256; i++) h[i] += counts.hist[i];
    npz_release(&v);
    if (counts.bad_main > 0) {
        PyErr_Format(PyExc_ValueError, "region_fold: main: %lld masks are no region of their "
                     "map", (long long)counts.bad_main);
        return NULL;
    }
    return Py_BuildValue("LLi", (long long)counts.unreached, (long long)counts.clipped,
                         counts.largest);
fail:
    npz_release(&v);
    return NULL;
}

PyMethodDef npz_region_methods[] = {
    {"region_plan", plan, METH_VARARGS,
     "region_plan(rows, cols, k) -> the region BFS's tables of k tiles on rows x cols"},
    {"region_plan_info", plan_info, METH_VARARGS,
     "region_plan_info(plan) -> (maps, regions, entries, permutations, prefixes)"},
    {"region_offsets", offsets, METH_VARARGS,
     "region_offsets(plan, out): each map's first region (maps + 1 int64)"},
    {"region_index", state_index, METH_VARARGS,
     "region_index(plan, cells, blank) -> the entry of a state"},
    {"region_layer", layer, METH_VARARGS,
     "region_layer(plan, entries, pull, d, first, last) -> states set to d + 1 over maps "
     "first..last-1"},
    {"region_fold", fold, METH_VARARGS,
     "region_fold(plan, entries, first, last, additive, twin, main, hist, value_bits, "
     "higher_by, main_class, other_class) -> (unreached, clipped, largest)"},
    {NULL, NULL, 0, NULL}};
