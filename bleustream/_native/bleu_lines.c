/*
 * bleu_lines.c: BLEU rows of whole batches of raw lines, each segment's
 * row (bleu_rows_13a, bleu_rows_zh: bleu.py_count_batch) or their
 * sum (bleu_sum_13a, bleu_sum_zh: bleu.py_sum_batch), the lines
 * right-stripped and tokenized here; bleu_add_spans counts one segment's
 * tokens (bleu_blocks.c's too).
 */
#include "kernels.h"

/* One line, right-stripped (str.rstrip()) and tokenized, as spans of the
 * buffer `*bufp`, both in the arena. */
static int
line_views(Arena *a, PyObject *line, int which, Py_UCS4 **bufp, SpanVec *spans)
{
    Py_ssize_t n;
    int kind;
    const void *data;
    if (bs_check_str(line, "a line") < 0)
        return -1;
    n = PyUnicode_GET_LENGTH(line);
    kind = PyUnicode_KIND(line);
    data = PyUnicode_DATA(line);
    while (n > 0 && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)))
        n--;
    return tokenize_spans(a, line, n, which, bufp, spans);
}

/*
 * hyp_row of the hypothesis's tokens (spans `hs` of hbuf) against the
 * references' (spans rs[k] of rbufs[k]), as reference_ngrams counts them,
 * added into `sums` (2 + 2 N Py_ssize_t).  Calls no Python API but to
 * report running out of memory.
 */
int
bleu_add_spans(Arena *a, const Py_UCS4 *hbuf, const SpanVec *hs, Py_UCS4 *const *rbufs,
               const SpanVec *rs, Py_ssize_t nrefs, Py_ssize_t N, Py_ssize_t *sums)
{
    Py_ssize_t k, j, total = 0, pos = 0, ref_len = 0, bestd = 0;
    Py_ssize_t *offs, *rlens, *matches;
    int32_t *hyp_ids, *flat;
    Vocab voc;

    if ((offs = ARENA_NEW(a, Py_ssize_t, nrefs)) == NULL ||
        (rlens = ARENA_NEW(a, Py_ssize_t, nrefs)) == NULL ||
        (matches = ARENA_NEW(a, Py_ssize_t, N + 1)) == NULL)
        return -1;
    memset(matches, 0, (size_t)(N + 1) * sizeof(Py_ssize_t));
    for (k = 0; k < nrefs; k++) {
        rlens[k] = rs[k].n;
        offs[k] = total;
        total += rs[k].n;
    }
    /* min(lens, key=lambda r: (abs(hyp_len - r), r)) */
    for (k = 0; k < nrefs; k++) {
        Py_ssize_t v = rlens[k], d = hs->n > v ? hs->n - v : v - hs->n;
        if (k == 0 || d < bestd || (d == bestd && v < ref_len)) {
            ref_len = v;
            bestd = d;
        }
    }
    if (N > 0 && hs->n > 0 && total > 0) {
        TokView tv;
        tv.kind = PyUnicode_4BYTE_KIND;
        if ((hyp_ids = ARENA_NEW(a, int32_t, hs->n + 1)) == NULL ||
            (flat = ARENA_NEW(a, int32_t, total + 1)) == NULL || vocab_init(&voc, a, total) < 0)
            return -1;
        for (k = 0; k < nrefs; k++) {
            for (j = 0; j < rs[k].n; j++) {
                tv.data = rbufs[k] + rs[k].v[j].start;
                tv.len = rs[k].v[j].len;
                flat[pos++] = vocab_id(&voc, &tv, 1);
            }
        }
        for (j = 0; j < hs->n; j++) {
            tv.data = hbuf + hs->v[j].start;
            tv.len = hs->v[j].len;
            hyp_ids[j] = vocab_id(&voc, &tv, 0);
        }
        if (clipped_matches(a, hyp_ids, hs->n, flat, offs, rlens, nrefs, N, matches, voc.size) <
            0)
            return -1;
    }
    sums[0] += hs->n;
    sums[1] += ref_len;
    for (k = 0; k < N; k++) {
        sums[2 + k] += matches[k];
        sums[2 + N + k] += hs->n > k ? hs->n - k : 0;
    }
    return 0;
}

/*
 * sum over segments i of hyp_row(tokenize(hyps[i].rstrip()),
 * reference_ngrams([tokenize(r.rstrip()) for r in refs[i]]), max_order),
 * added into `sums` (2 + 2 N Py_ssize_t).
 */
static int
bleu_add_segment(Arena *a, PyObject *hyp, PyObject *seg_refs, int which, Py_ssize_t N,
                 Py_ssize_t *sums)
{
    PyObject *rf;
    Py_UCS4 *hbuf = NULL, **rbufs = NULL;
    SpanVec hs = {NULL, 0, 0}, *rs = NULL;
    Py_ssize_t nrefs, k;
    int rc = -1;

    rf = PySequence_Fast(seg_refs, "a segment's references must be a sequence of str");
    if (rf == NULL)
        return -1;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if (nrefs < 1) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        goto done;
    }
    if ((rbufs = ARENA_NEW(a, Py_UCS4 *, nrefs)) == NULL ||
        (rs = ARENA_NEW(a, SpanVec, nrefs)) == NULL)
        goto done;
    memset(rs, 0, (size_t)nrefs * sizeof(SpanVec));
    for (k = 0; k < nrefs; k++) {
        if (line_views(a, PySequence_Fast_GET_ITEM(rf, k), which, &rbufs[k], &rs[k]) < 0)
            goto done;
    }
    if (line_views(a, hyp, which, &hbuf, &hs) < 0)
        goto done;
    rc = bleu_add_spans(a, hbuf, &hs, rbufs, rs, nrefs, N, sums);
done:
    Py_DECREF(rf);
    return rc;
}

int
bleu_orders(PyObject *max_order, Py_ssize_t *N)
{
    Py_ssize_t m = PyNumber_AsSsize_t(max_order, PyExc_OverflowError);
    if (m == -1 && PyErr_Occurred())
        return -1;
    *N = m > 0 ? m : 0;
    if (*N > 1024) {
        PyErr_SetString(PyExc_ValueError, "max_order is too large");
        return -1;
    }
    return 0;
}

PyObject *
sums_tuple(const Py_ssize_t *sums, Py_ssize_t size)
{
    Py_ssize_t k;
    PyObject *res = PyTuple_New(size);
    if (res == NULL)
        return NULL;
    for (k = 0; k < size; k++) {
        PyObject *v = PyLong_FromSsize_t(sums[k]);
        if (v == NULL) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, k, v);
    }
    /* Whole numbers only, so never in a cycle: the collector need not
     * visit it (it would untrack it at its first pass anyway). */
    PyObject_GC_UnTrack(res);
    return res;
}

/* The summed row of a batch (`rows` 0), or the list of its rows. */
static PyObject *
bleu_lines_tok(const char *fname, int which, int rows, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    static const char *const names[] = {"hyps", "refs", "max_order"};
    PyObject *a[3], *hf = NULL, *rf = NULL, *res = NULL, *list = NULL;
    Py_ssize_t N, i, n;
    Py_ssize_t *sums = NULL;
    ARENA_ON_STACK(arena);
    if (bs_parse_args(fname, args, nargs, kwnames, names, 3, 3, a) < 0)
        return NULL;
    if (bleu_orders(a[2], &N) < 0)
        return NULL;
    hf = PySequence_Fast(a[0], "hyps must be a sequence of str");
    if (hf == NULL)
        return NULL;
    rf = PySequence_Fast(a[1], "refs must be a sequence of sequences of str");
    if (rf == NULL)
        goto done;
    n = PySequence_Fast_GET_SIZE(hf);
    if (PySequence_Fast_GET_SIZE(rf) != n) {
        PyErr_SetString(PyExc_ValueError, "hyps and refs must have the same length");
        goto done;
    }
    sums = PyMem_Calloc((size_t)(2 + 2 * N), sizeof(Py_ssize_t));
    if (sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (rows && (list = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        int rc;
        if (rows)
            memset(sums, 0, (size_t)(2 + 2 * N) * sizeof(Py_ssize_t));
        rc = bleu_add_segment(&arena, PySequence_Fast_GET_ITEM(hf, i),
                              PySequence_Fast_GET_ITEM(rf, i), which, N, sums);
        arena_reset(&arena);
        if (rc < 0)
            goto done;
        if (rows) {
            PyObject *row = sums_tuple(sums, 2 + 2 * N);
            if (row == NULL)
                goto done;
            PyList_SET_ITEM(list, i, row);
        }
    }
    if (rows) {
        res = list;
        list = NULL;
    }
    else {
        res = sums_tuple(sums, 2 + 2 * N);
    }
done:
    arena_free(&arena);
    Py_XDECREF(list);
    PyMem_Free(sums);
    Py_XDECREF(rf);
    Py_DECREF(hf);
    return res;
}

/* The four entry points: sums or rows (`rows`), of 13a's or zh's tokens. */
#define BLEU_LINES(name, which, rows)                                          \
    BS_FASTCALL(bs_##name)                                                     \
    {                                                                          \
        (void)module;                                                          \
        return bleu_lines_tok(#name, which, rows, args, nargs, kwnames);       \
    }

BLEU_LINES(bleu_sum_13a, TOK_13A, 0)
BLEU_LINES(bleu_sum_zh, TOK_ZH, 0)
BLEU_LINES(bleu_rows_13a, TOK_13A, 1)
BLEU_LINES(bleu_rows_zh, TOK_ZH, 1)
