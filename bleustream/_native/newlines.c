/*
 * newlines.c: line search, where the blocks of -j start
 * (parallel.blocks.past_newlines).
 */
#include "kernels.h"

/* past_newlines(buffer, pos, count, /) -> (offset, found) */
BS_FASTCALL(bs_past_newlines)
{
    PyObject *a[3];
    Py_buffer view;
    Py_ssize_t pos, count, found = 0;
    const char *base, *p, *end;
    PyObject *res;
    (void)module;
    if (bs_parse_args("past_newlines", args, nargs, kwnames, NULL, 3, 3, a) < 0)
        return NULL;
    pos = PyNumber_AsSsize_t(a[1], PyExc_OverflowError);
    if (pos == -1 && PyErr_Occurred())
        return NULL;
    count = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (count == -1 && PyErr_Occurred())
        return NULL;
    if (PyObject_GetBuffer(a[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (pos < 0 || pos > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "pos is outside the buffer");
        return NULL;
    }
    base = (const char *)view.buf;
    p = base + pos;
    end = base + view.len;
    while (found < count && p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (q == NULL)
            break;
        p = q + 1;
        found++;
    }
    res = Py_BuildValue("(nn)", (Py_ssize_t)(p - base), found);
    PyBuffer_Release(&view);
    return res;
}
