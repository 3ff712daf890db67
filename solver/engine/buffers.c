/* The arrays every part of the engine receives, checked before any loop runs.  Python hands
 * in numpy arrays (or bytes, or mapped files) through the buffer protocol -- no numpy C API, so
 * no numpy ABI to go stale -- and the loops write at addresses computed from the arrays'
 * contents and sizes, so a wrong item type, shape or size must stop at the door with a
 * TypeError or a ValueError naming the argument rather than read or write out of bounds.  One
 * checker serves every part, so the same mistake reads the same wherever it is made. */
#include "engine.h"

#include <string.h>

/* The struct-module letters that may stand for a kind at an item size (a native or
 * little-endian prefix allowed): 'l' and 'L' are 8 bytes natively and 4 with a prefix, so the
 * size decides between them.  A kind has one or two such forms. */
typedef struct {
    Py_ssize_t size;
    const char *letters;
} Form;

static const struct {
    const char *name;
    Form forms[2];
} KINDS[] = {
    [NPZ_U8] = {"uint8", {{1, "B"}}},
    [NPZ_U16] = {"uint16", {{2, "H"}}},
    [NPZ_U32] = {"uint32", {{4, "IL"}}},
    [NPZ_U64] = {"uint64", {{8, "LQ"}}},
    [NPZ_I32] = {"int32", {{4, "il"}}},
    [NPZ_I64] = {"int64", {{8, "lq"}}},
    [NPZ_I16_OR_I32] = {"int16 or int32", {{2, "h"}, {4, "il"}}},
};

/* Whether a buffer's format is one letter of `letters` (no format: plain bytes). */
static int format_is(const char *fmt, const char *letters) {
    if (fmt == NULL) fmt = "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
    return fmt[0] != '\0' && fmt[1] == '\0' && strchr(letters, fmt[0]) != NULL;
}

static int kind_ok(const Py_buffer *b, npz_kind kind) {
    for (int i = 0; i < 2 && KINDS[kind].forms[i].size != 0; i++) {
        const Form *f = &KINDS[kind].forms[i];
        if (b->itemsize == f->size && format_is(b->format, f->letters)) return 1;
    }
    return 0;
}

Py_buffer *npz_view(npz_views *v, PyObject *obj, const char *what, npz_kind kind, int ndim,
                    Py_ssize_t count, int writable) {
    const char *name = KINDS[kind].name;
    if (v->count >= NPZ_MAX_VIEWS) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays");
        return NULL;
    }
    Py_buffer *b = &v->views[v->count];
    /* strides rather than PyBUF_C_CONTIGUOUS, so that a strided array is told why it fails */
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, b, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected %s %s array, got %.100s", what,
                     writable ? "a writable" : name[0] == 'i' ? "an" : "a", name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    v->count++; /* held from here on: npz_release gives it back */
    if (!kind_ok(b, kind)) {
        PyErr_Format(PyExc_TypeError, "%s: expected %s items, got format '%s' of %zd bytes", what,
                     name, b->format ? b->format : "B", b->itemsize);
        return NULL;
    }
    if (ndim >= 0 && b->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d dimensions, got %d", what, ndim, b->ndim);
        return NULL;
    }
    if (!PyBuffer_IsContiguous(b, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous array", what);
        return NULL;
    }
    if (count >= 0 && npz_items(b) != count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", what, count,
                     npz_items(b));
        return NULL;
    }
    return b;
}

void npz_release(npz_views *v) {
    for (int i = 0; i < v->count; i++) PyBuffer_Release(&v->views[i]);
    v->count = 0;
}
