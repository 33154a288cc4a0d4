/*
 * bleu_rows.c: BLEU rows (ngrams.hyp_row): of a hypothesis's tokens, and
 * of one line tokenized here (hyp_row_13a, hyp_row_zh), against prepared
 * references (RefNgrams).
 */
#include "kernels.h"

/* The references of a RefNgrams, as token views. */
typedef struct {
    PyObject *refs_fast;   /* PySequence_Fast of refs.refs */
    PyObject **ref_fast;   /* per used reference: PySequence_Fast of its tokens */
    Py_ssize_t nrefs;      /* references used */
    Py_ssize_t cap;        /* orders cap (len(orders)) or -1 */
    PyObject *lens;        /* refs.lens (borrowed) */
    int single;
} RefsIn;

static void
refs_release(RefsIn *r)
{
    Py_ssize_t k;
    if (r->ref_fast) {
        for (k = 0; k < r->nrefs; k++)
            Py_XDECREF(r->ref_fast[k]);
        PyMem_Free(r->ref_fast);
    }
    Py_XDECREF(r->refs_fast);
    r->ref_fast = NULL;
    r->refs_fast = NULL;
}

static int
refs_acquire(PyObject *refs, RefsIn *r)
{
    PyObject *orders;
    Py_ssize_t k;
    memset(r, 0, sizeof(*r));
    if (!PyTuple_Check(refs) || PyTuple_GET_SIZE(refs) < 3) {
        PyErr_SetString(PyExc_TypeError, "refs must be a RefNgrams (lens, refs, orders)");
        return -1;
    }
    r->lens = PyTuple_GET_ITEM(refs, 0);
    orders = PyTuple_GET_ITEM(refs, 2);
    r->refs_fast = PySequence_Fast(PyTuple_GET_ITEM(refs, 1), "RefNgrams.refs must be a sequence");
    if (r->refs_fast == NULL)
        return -1;
    r->single = orders == Py_None;
    if (r->single) {
        if (PySequence_Fast_GET_SIZE(r->refs_fast) < 1) {
            PyErr_SetString(PyExc_IndexError, "RefNgrams.refs is empty");
            goto fail;
        }
        r->nrefs = 1;
        r->cap = -1;
    }
    else {
        r->nrefs = PySequence_Fast_GET_SIZE(r->refs_fast);
        r->cap = PyObject_Length(orders);
        if (r->cap < 0)
            goto fail;
    }
    r->ref_fast = PyMem_Calloc((size_t)r->nrefs + 1, sizeof(PyObject *));
    if (r->ref_fast == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (k = 0; k < r->nrefs; k++) {
        PyObject *f = PySequence_Fast(PySequence_Fast_GET_ITEM(r->refs_fast, k),
                                      "a reference must be a list of str");
        Py_ssize_t j, m;
        if (f == NULL)
            goto fail;
        r->ref_fast[k] = f;
        m = PySequence_Fast_GET_SIZE(f);
        for (j = 0; j < m; j++)
            if (bs_check_str(PySequence_Fast_GET_ITEM(f, j), "a reference token") < 0)
                goto fail;
    }
    return 0;
fail:
    refs_release(r);
    return -1;
}

/* min(lens, key=lambda r: (abs(hyp_len - r), r)) */
static int
closest_len(PyObject *lens, Py_ssize_t hyp_len, Py_ssize_t *res)
{
    PyObject *f = PySequence_Fast(lens, "RefNgrams.lens must be a sequence");
    Py_ssize_t k, m, best = 0, bestd = 0;
    if (f == NULL)
        return -1;
    m = PySequence_Fast_GET_SIZE(f);
    if (m == 0) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "min() arg is an empty sequence");
        return -1;
    }
    for (k = 0; k < m; k++) {
        Py_ssize_t v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(f, k)), d;
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
        d = hyp_len > v ? hyp_len - v : v - hyp_len;
        if (k == 0 || d < bestd || (d == bestd && v < best)) {
            best = v;
            bestd = d;
        }
    }
    Py_DECREF(f);
    *res = best;
    return 0;
}

static PyObject *
bleu_row_tuple(Py_ssize_t hyp_len, Py_ssize_t ref_len, const Py_ssize_t *matches,
               Py_ssize_t N)
{
    Py_ssize_t k;
    PyObject *t = PyTuple_New(2 + 2 * N), *v;
    if (t == NULL)
        return NULL;
#define PUT(idx, val)                                                                            \
    do {                                                                                         \
        v = PyLong_FromSsize_t(val);                                                             \
        if (v == NULL) {                                                                         \
            Py_DECREF(t);                                                                        \
            return NULL;                                                                         \
        }                                                                                        \
        PyTuple_SET_ITEM(t, (idx), v);                                                           \
    } while (0)
    PUT(0, hyp_len);
    PUT(1, ref_len);
    for (k = 0; k < N; k++)
        PUT(2 + k, matches[k]);
    for (k = 0; k < N; k++)
        PUT(2 + N + k, hyp_len > k ? hyp_len - k : 0);
#undef PUT
    return t;
}

/*
 * The row of hypothesis tokens `hv[0..hlen)` against prepared refs.
 */
static PyObject *
bleu_row_views(Arena *a, const TokView *hv, Py_ssize_t hlen, PyObject *refs,
               Py_ssize_t max_order)
{
    RefsIn r;
    Vocab voc;
    Py_ssize_t N = max_order > 0 ? max_order : 0, total = 0, k, j, ref_len, top;
    int32_t *hyp_ids = NULL, *flat = NULL;
    Py_ssize_t *offs = NULL, *rlens = NULL, *matches = NULL;
    PyObject *res = NULL;

    if (refs_acquire(refs, &r) < 0)
        return NULL;
    for (k = 0; k < r.nrefs; k++)
        total += PySequence_Fast_GET_SIZE(r.ref_fast[k]);
    if (r.single) {
        ref_len = PySequence_Fast_GET_SIZE(r.ref_fast[0]);
    }
    else if (closest_len(r.lens, hlen, &ref_len) < 0) {
        goto done;
    }
    top = N;
    if (r.cap >= 0 && r.cap < top)
        top = r.cap;
    if ((matches = ARENA_NEW(a, Py_ssize_t, N + 1)) == NULL ||
        (offs = ARENA_NEW(a, Py_ssize_t, r.nrefs + 1)) == NULL ||
        (rlens = ARENA_NEW(a, Py_ssize_t, r.nrefs + 1)) == NULL ||
        (hyp_ids = ARENA_NEW(a, int32_t, hlen + 1)) == NULL ||
        (flat = ARENA_NEW(a, int32_t, total + 1)) == NULL)
        goto done;
    memset(matches, 0, (size_t)(N + 1) * sizeof(Py_ssize_t));
    if (top > 0 && hlen > 0 && total > 0) {
        Py_ssize_t pos = 0;
        if (vocab_init(&voc, a, total) < 0)
            goto done;
        for (k = 0; k < r.nrefs; k++) {
            PyObject *f = r.ref_fast[k];
            Py_ssize_t m = PySequence_Fast_GET_SIZE(f);
            offs[k] = pos;
            rlens[k] = m;
            for (j = 0; j < m; j++) {
                PyObject *s = PySequence_Fast_GET_ITEM(f, j);
                TokView tv;
                tv.data = PyUnicode_DATA(s);
                tv.len = PyUnicode_GET_LENGTH(s);
                tv.kind = PyUnicode_KIND(s);
                flat[pos++] = vocab_id(&voc, &tv, 1);
            }
        }
        for (j = 0; j < hlen; j++)
            hyp_ids[j] = vocab_id(&voc, &hv[j], 0);
        if (clipped_matches(a, hyp_ids, hlen, flat, offs, rlens, r.nrefs, top, matches,
                            voc.size) < 0)
            goto done;
    }
    res = bleu_row_tuple(hlen, ref_len, matches, N);
done:
    refs_release(&r);
    return res;
}

BS_FASTCALL(bs_hyp_row)
{
    static const char *const names[] = {"hyp", "refs", "max_order"};
    PyObject *a[3], *hf, *res = NULL;
    Py_ssize_t max_order, hlen, j;
    TokView *hv = NULL;
    (void)module;
    if (bs_parse_args("hyp_row", args, nargs, kwnames, names, 3, 3, a) < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    hf = PySequence_Fast(a[0], "hyp must be a list of str");
    if (hf == NULL)
        return NULL;
    hlen = PySequence_Fast_GET_SIZE(hf);
    ARENA_ON_STACK(arena);
    if ((hv = ARENA_NEW(&arena, TokView, hlen + 1)) == NULL)
        goto done;
    for (j = 0; j < hlen; j++) {
        PyObject *s = PySequence_Fast_GET_ITEM(hf, j);
        if (bs_check_str(s, "a hypothesis token") < 0)
            goto done;
        hv[j].data = PyUnicode_DATA(s);
        hv[j].len = PyUnicode_GET_LENGTH(s);
        hv[j].kind = PyUnicode_KIND(s);
    }
    res = bleu_row_views(&arena, hv, hlen, a[1], max_order);
done:
    arena_free(&arena);
    Py_DECREF(hf);
    return res;
}

static PyObject *
hyp_row_tok(const char *fname, int which, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames)
{
    static const char *const names[] = {"line", "refs", "max_order"};
    PyObject *a[3], *res = NULL;
    Py_ssize_t max_order, j;
    Py_UCS4 *buf = NULL;
    SpanVec spans = {NULL, 0, 0};
    TokView *hv = NULL;
    if (bs_parse_args(fname, args, nargs, kwnames, names, 3, 3, a) < 0)
        return NULL;
    if (bs_check_str(a[0], "line") < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    ARENA_ON_STACK(arena);
    if (tokenize_spans(&arena, a[0], PyUnicode_GET_LENGTH(a[0]), which, &buf, &spans) < 0)
        goto done;
    if ((hv = ARENA_NEW(&arena, TokView, spans.n + 1)) == NULL)
        goto done;
    for (j = 0; j < spans.n; j++) {
        hv[j].data = buf + spans.v[j].start;
        hv[j].len = spans.v[j].len;
        hv[j].kind = PyUnicode_4BYTE_KIND;
    }
    res = bleu_row_views(&arena, hv, spans.n, a[1], max_order);
done:
    arena_free(&arena);
    return res;
}

BS_FASTCALL(bs_hyp_row_13a)
{
    (void)module;
    return hyp_row_tok("hyp_row_13a", TOK_13A, args, nargs, kwnames);
}

BS_FASTCALL(bs_hyp_row_zh)
{
    (void)module;
    return hyp_row_tok("hyp_row_zh", TOK_ZH, args, nargs, kwnames);
}
