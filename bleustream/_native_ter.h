/*
 * _native_ter: TER's edit count, bleustream.metrics.tercom.translation_edit_rate in C.
 * Part of the bleustream._native extension (see _native_ter.c).
 */
#ifndef BLEUSTREAM_NATIVE_TER_H
#define BLEUSTREAM_NATIVE_TER_H

#include <Python.h>

/* ter_edits(words_hyp, ref[, max_exact_cells]) -> int  (METH_FASTCALL) */
PyObject *bs_ter_edits(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif /* BLEUSTREAM_NATIVE_TER_H */
