/*
 * _native_scores: a batch of BLEU score objects from their rows,
 * each what the pure Spec(bleu, settings).score_object makes, in C.
 * Part of the bleustream._native extension (see _native_scores.c).
 */
#ifndef BLEUSTREAM_NATIVE_SCORES_H
#define BLEUSTREAM_NATIVE_SCORES_H

#include <Python.h>

/* bleu_scores(rows, max_order, smooth, smooth_value, effective_order, cls,
 *             signature, fallback) -> list  (METH_FASTCALL | METH_KEYWORDS) */
PyObject *bs_bleu_scores(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);

#endif /* BLEUSTREAM_NATIVE_SCORES_H */
