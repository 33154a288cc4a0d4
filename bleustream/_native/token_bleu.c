/*
 * token_bleu.c: BLEU rows of token-ID sequences, read straight from
 * integer buffers (bleustream.metrics.token_bleu.py_token_rows's twin).
 *
 * token_rows(hyps, refs, max_order, pad, start, stop) counts the rows
 * (hyp_len, ref_len, *matches, *totals) of sentences start .. stop-1.
 * `hyps` and each item of `refs` is a stream: a tuple (data, starts, lens)
 * where data is a C-contiguous buffer of integers (any item size, signed
 * or unsigned, native byte order) and starts and lens are buffers of
 * 8-byte signed ints: sentence i is data[starts[i] : starts[i] + lens[i]],
 * without the tokens equal to `pad` (None: none dropped).
 *
 * Everything is checked with the GIL held; then the counting runs with the
 * GIL released, reading the buffers with no Python object per token: each
 * sentence's ids, without pads, are copied as int64 into buffers made once
 * for the batch's largest sentence, and matched as they are by the id
 * n-gram matcher (id_ngrams.c: no vocabulary pass, a collision costs time,
 * never a count).  The arena is quiet meanwhile: a failed allocation sets
 * no Python error until the GIL is back.  Unsigned 8-byte ids past 2**63-1 are a
 * ValueError (every id is compared as a signed 64-bit value).
 *
 * id_lists(batch) packs a list (or tuple) of lists (or tuples) of ints
 * into (data, lens), int64 bytes: token_ids.id_stream's fast path for
 * Python lists; None when anything else is in it (that path then checks
 * it and says what is wrong).
 */
#include "kernels.h"

typedef struct {
    Py_buffer data, starts, lens;
    int held; /* how many of the three buffers are held */
    const char *base;
    Py_ssize_t itemsize, count;
    int is_signed;
    const int64_t *st, *ln;
    Py_ssize_t n;
} Stream;

static void
stream_release(Stream *s)
{
    if (s->held > 2)
        PyBuffer_Release(&s->lens);
    if (s->held > 1)
        PyBuffer_Release(&s->starts);
    if (s->held > 0)
        PyBuffer_Release(&s->data);
    s->held = 0;
}

/* The integer kind of a buffer format: 1 signed, 0 unsigned, -1 none. */
static int
int_kind(const char *fmt)
{
    const int little = (*(const unsigned char *)&(uint16_t){1}) == 1;
    if (fmt == NULL)
        return 0; /* plain bytes: 'B' */
    if (*fmt == '@' || *fmt == '=' || (*fmt == '<' && little) ||
        ((*fmt == '>' || *fmt == '!') && !little))
        fmt++;
    if (fmt[0] == '\0' || fmt[1] != '\0')
        return -1;
    if (strchr("bhilqn", fmt[0]) != NULL)
        return 1;
    if (strchr("BHILQN", fmt[0]) != NULL)
        return 0;
    return -1;
}

/* starts or lens: 8-byte signed ints, one per sentence */
static int
offsets_buffer(PyObject *o, Py_buffer *view, const char *what)
{
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->itemsize != 8 || int_kind(view->format) != 1) {
        PyErr_Format(PyExc_TypeError, "token_rows: %s must hold 8-byte signed ints", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static int
stream_open(Stream *s, PyObject *o, Py_ssize_t stop)
{
    Py_ssize_t i;
    s->held = 0;
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 3) {
        PyErr_SetString(PyExc_TypeError, "token_rows: a stream is a tuple (data, starts, lens)");
        return -1;
    }
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(o, 0), &s->data, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) <
        0)
        return -1;
    s->held = 1;
    s->itemsize = s->data.itemsize;
    s->is_signed = int_kind(s->data.format);
    if (s->is_signed < 0 || (s->itemsize != 1 && s->itemsize != 2 && s->itemsize != 4 &&
                             s->itemsize != 8)) {
        PyErr_Format(PyExc_TypeError, "token_rows: token ids must be integers, not format '%s'",
                     s->data.format ? s->data.format : "B");
        return -1;
    }
    s->base = (const char *)s->data.buf;
    s->count = s->data.len / s->itemsize;
    if (offsets_buffer(PyTuple_GET_ITEM(o, 1), &s->starts, "starts") < 0)
        return -1;
    s->held = 2;
    if (offsets_buffer(PyTuple_GET_ITEM(o, 2), &s->lens, "lens") < 0)
        return -1;
    s->held = 3;
    s->st = (const int64_t *)s->starts.buf;
    s->ln = (const int64_t *)s->lens.buf;
    s->n = s->starts.len / 8;
    if (s->lens.len / 8 != s->n || s->n < stop) {
        PyErr_Format(PyExc_ValueError,
                     "token_rows: a stream of %zd starts and %zd lengths, for %zd sentences", s->n,
                     (Py_ssize_t)(s->lens.len / 8), stop);
        return -1;
    }
    for (i = 0; i < stop; i++) {
        int64_t a = s->st[i], b = s->ln[i];
        if (a < 0 || b < 0 || a > (int64_t)s->count || b > (int64_t)s->count - a) {
            PyErr_Format(PyExc_ValueError,
                         "token_rows: sentence %zd (start %lld, length %lld) is past its %zd ids",
                         i, (long long)a, (long long)b, s->count);
            return -1;
        }
        if (b > (int64_t)(INT32_MAX / 8)) {
            PyErr_Format(PyExc_OverflowError, "token_rows: sentence %zd is too long", i);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* counting, with the GIL released                                     */
/* ------------------------------------------------------------------ */

enum { OK = 0, NO_MEMORY = -1, TOO_BIG = -2 };

/* Id k of a buffer of T at p: read by memcpy, for a buffer (a NumPy view
 * at an odd offset, say) need not be aligned for T. */
#define ID_AT(T, p, k, v)                                                                       \
    do {                                                                                        \
        T raw_;                                                                                 \
        memcpy(&raw_, (p) + (k) * (Py_ssize_t)sizeof(T), sizeof raw_);                          \
        (v) = raw_;                                                                             \
    } while (0)

#define READ_IDS(T)                                                                             \
    {                                                                                           \
        const char *p = s->base + off * (Py_ssize_t)sizeof(T);                                  \
        for (k = 0; k < len; k++) {                                                             \
            int64_t v;                                                                          \
            ID_AT(T, p, k, v);                                                                  \
            if (!(has_pad && v == pad))                                                         \
                out[m++] = v;                                                                   \
        }                                                                                       \
    }                                                                                           \
    break

/* Sentence i's ids, without pads, into out; how many, or TOO_BIG. */
static Py_ssize_t
read_ids(const Stream *s, Py_ssize_t i, int has_pad, int64_t pad, int64_t *out)
{
    Py_ssize_t off = (Py_ssize_t)s->st[i], len = (Py_ssize_t)s->ln[i], k, m = 0;
    switch (s->itemsize * (s->is_signed ? 1 : -1)) {
    case 1:
        READ_IDS(int8_t);
    case -1:
        READ_IDS(uint8_t);
    case 2:
        READ_IDS(int16_t);
    case -2:
        READ_IDS(uint16_t);
    case 4:
        READ_IDS(int32_t);
    case -4:
        READ_IDS(uint32_t);
    case 8:
        READ_IDS(int64_t);
    default: {
        const char *p = s->base + off * (Py_ssize_t)sizeof(uint64_t);
        for (k = 0; k < len; k++) {
            uint64_t v;
            ID_AT(uint64_t, p, k, v);
            if (v > (uint64_t)INT64_MAX)
                return TOO_BIG;
            if (!(has_pad && (int64_t)v == pad))
                out[m++] = (int64_t)v;
        }
        break;
    }
    }
    return m;
}

/* Sentence i's ids without pads, and in *len how many (or a negative
 * error): where they are when they can be read there (aligned int64, no
 * pad to leave out: a copy of a large batch costs a tenth of its
 * matching), else copied into buf. */
static const int64_t *
sentence_ids(const Stream *s, Py_ssize_t i, int has_pad, int64_t pad, int64_t *buf,
             Py_ssize_t *len)
{
    if (!has_pad && s->itemsize == 8 && s->is_signed && (uintptr_t)s->base % 8 == 0) {
        *len = (Py_ssize_t)s->ln[i];
        return (const int64_t *)s->base + s->st[i];
    }
    *len = read_ids(s, i, has_pad, pad, buf);
    return buf;
}

typedef struct {
    const Stream *hyp, *refs;
    Py_ssize_t nrefs, order, start, stop;
    int has_pad;
    int64_t pad;
    uint64_t key;    /* the matchers' hash key (bs_id_hash_key) */
    long long *rows; /* (stop - start) rows of 2 + 2 * order */
} Job;

/* A sentence's scratch: buffers for its ids without pads (where they are
 * not read in place), made once for the job's largest sentence, and the
 * matcher. */
typedef struct {
    IdMatcher matcher;
    int64_t *hyp, *refs;
    Py_ssize_t *offs, *rlens;
} Scratch;

static int
scratch_init(Scratch *w, Arena *a, const Job *job)
{
    Py_ssize_t i, r, max_hyp = 0, max_ref = 0;
    int64_t max_ngrams = 0;
    for (i = job->start; i < job->stop; i++) {
        Py_ssize_t P = 0;
        int64_t ngrams = 0;
        if ((Py_ssize_t)job->hyp->ln[i] > max_hyp)
            max_hyp = (Py_ssize_t)job->hyp->ln[i];
        for (r = 0; r < job->nrefs; r++) {
            P += (Py_ssize_t)job->refs[r].ln[i];
            ngrams += bs_id_ngram_count(job->refs[r].ln[i], job->order);
        }
        if (P > max_ref)
            max_ref = P;
        if (ngrams > max_ngrams)
            max_ngrams = ngrams;
    }
    w->hyp = ARENA_NEW(a, int64_t, max_hyp + 1);
    w->refs = ARENA_NEW(a, int64_t, max_ref + 1);
    w->offs = ARENA_NEW(a, Py_ssize_t, job->nrefs);
    w->rlens = ARENA_NEW(a, Py_ssize_t, job->nrefs);
    if (w->hyp == NULL || w->refs == NULL || w->offs == NULL || w->rlens == NULL)
        return NO_MEMORY;
    if (bs_id_matcher_init(&w->matcher, a, max_hyp, max_ref, max_ngrams, job->nrefs > 1,
                           job->key) < 0)
        return NO_MEMORY;
    return OK;
}

/* One sentence's row into row[0 .. 2 + 2 order). */
static int
count_one(Scratch *w, const Job *job, Py_ssize_t i, long long *row)
{
    const Py_ssize_t nrefs = job->nrefs, order = job->order;
    Py_ssize_t P = 0, r, k, hlen, out[MAX_TOKEN_ORDER];
    long long ref_len = 0;
    const int64_t *hyp, *refs = w->refs;

    hyp = sentence_ids(job->hyp, i, job->has_pad, job->pad, w->hyp, &hlen);
    if (hlen < 0)
        return (int)hlen;
    if (nrefs == 1) { /* where they are, if they can be read there */
        refs = sentence_ids(&job->refs[0], i, job->has_pad, job->pad, w->refs, &w->rlens[0]);
        if (w->rlens[0] < 0)
            return (int)w->rlens[0];
        w->offs[0] = 0;
    }
    else /* one after another */
        for (r = 0; r < nrefs; r++) {
            Py_ssize_t got = read_ids(&job->refs[r], i, job->has_pad, job->pad, w->refs + P);
            if (got < 0)
                return (int)got;
            w->offs[r] = P;
            w->rlens[r] = got;
            P += got;
        }
    if (bs_id_matches(&w->matcher, hyp, hlen, refs, w->offs, w->rlens, nrefs, order, out) < 0)
        return NO_MEMORY;
    /* the reference length closest to the hypothesis', ties to the shorter */
    for (r = 0; r < nrefs; r++) {
        long long d = (long long)w->rlens[r] - hlen, best = ref_len - hlen;
        if (d < 0)
            d = -d;
        if (best < 0)
            best = -best;
        if (r == 0 || d < best || (d == best && (long long)w->rlens[r] < ref_len))
            ref_len = (long long)w->rlens[r];
    }
    row[0] = (long long)hlen;
    row[1] = ref_len;
    for (k = 0; k < order; k++) {
        row[2 + k] = (long long)out[k];
        row[2 + order + k] = hlen > k ? (long long)(hlen - k) : 0;
    }
    return OK;
}

static int
count_rows(const Job *job, Py_ssize_t *failed_at)
{
    ARENA_ON_STACK(arena);
    Scratch w;
    Py_ssize_t i, width = 2 + 2 * job->order;
    int rc;
    arena.quiet = 1;
    *failed_at = job->start;
    rc = scratch_init(&w, &arena, job);
    for (i = job->start; rc == OK && i < job->stop; i++) {
        rc = count_one(&w, job, i, job->rows + (i - job->start) * width);
        if (rc != OK)
            *failed_at = i;
    }
    arena_free(&arena);
    return rc;
}

/* ------------------------------------------------------------------ */
/* the Python function                                                 */
/* ------------------------------------------------------------------ */

static PyObject *
rows_list(const long long *rows, Py_ssize_t n, Py_ssize_t width)
{
    PyObject *list = PyList_New(n);
    Py_ssize_t i, k;
    if (list == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *row = PyTuple_New(width);
        if (row == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, row);
        for (k = 0; k < width; k++) {
            PyObject *x = PyLong_FromLongLong(rows[i * width + k]);
            if (x == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyTuple_SET_ITEM(row, k, x);
        }
    }
    return list;
}

static int
read_settings(PyObject *const *a, Job *job)
{
    int overflow = 0;
    job->order = PyLong_AsSsize_t(a[2]);
    if (job->order == -1 && PyErr_Occurred())
        return -1;
    if (job->order < 1 || job->order > MAX_TOKEN_ORDER) {
        PyErr_Format(PyExc_ValueError, "token_rows: max_order must be from 1 to %d, not %zd",
                     MAX_TOKEN_ORDER, job->order);
        return -1;
    }
    job->has_pad = a[3] != Py_None;
    job->pad = 0;
    if (job->has_pad) {
        if (!PyLong_Check(a[3])) {
            PyErr_SetString(PyExc_TypeError, "token_rows: pad must be an int or None");
            return -1;
        }
        job->pad = (int64_t)PyLong_AsLongLongAndOverflow(a[3], &overflow);
        if (job->pad == -1 && PyErr_Occurred())
            return -1;
        if (overflow) {
            PyErr_SetString(PyExc_ValueError, "token_rows: pad must fit in 64 signed bits");
            return -1;
        }
    }
    job->start = PyLong_AsSsize_t(a[4]);
    if (job->start == -1 && PyErr_Occurred())
        return -1;
    job->stop = PyLong_AsSsize_t(a[5]);
    if (job->stop == -1 && PyErr_Occurred())
        return -1;
    if (job->start < 0 || job->stop < job->start) {
        PyErr_Format(PyExc_ValueError, "token_rows: no sentences %zd to %zd", job->start,
                     job->stop);
        return -1;
    }
    return 0;
}

static PyObject *
run_job(Job *job, Py_ssize_t width)
{
    Py_ssize_t n = job->stop - job->start, failed_at = -1;
    int rc;
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(long long) / width)
        return PyErr_NoMemory();
    job->rows = PyMem_RawMalloc((size_t)(n * width + 1) * sizeof(long long));
    if (job->rows == NULL)
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    rc = count_rows(job, &failed_at);
    Py_END_ALLOW_THREADS
    if (rc == OK) {
        PyObject *res = rows_list(job->rows, n, width);
        PyMem_RawFree(job->rows);
        return res;
    }
    PyMem_RawFree(job->rows);
    if (rc == TOO_BIG)
        return PyErr_Format(PyExc_ValueError,
                            "token ids must be below 2**63; sentence %zd has a larger one",
                            failed_at);
    return PyErr_NoMemory();
}

BS_FASTCALL(bs_token_rows)
{
    static const char *const names[] = {"hyps", "refs", "max_order", "pad", "start", "stop"};
    PyObject *a[6], *refs = NULL, *res = NULL;
    Stream hyp, *streams = NULL;
    Py_ssize_t r, nrefs = 0;
    Job job;
    (void)module;

    hyp.held = 0;
    if (bs_parse_args("token_rows", args, nargs, kwnames, names, 6, 6, a) < 0)
        return NULL;
    if (read_settings(a, &job) < 0)
        return NULL;
    if ((refs = PySequence_Tuple(a[1])) == NULL)
        return NULL;
    nrefs = PyTuple_GET_SIZE(refs);
    if (nrefs < 1) {
        PyErr_SetString(PyExc_ValueError, "token_rows: no reference stream");
        goto done;
    }
    if ((streams = PyMem_Calloc((size_t)nrefs, sizeof(Stream))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (stream_open(&hyp, a[0], job.stop) < 0)
        goto done;
    for (r = 0; r < nrefs; r++)
        if (stream_open(&streams[r], PyTuple_GET_ITEM(refs, r), job.stop) < 0)
            goto done;
    for (Py_ssize_t i = job.start; i < job.stop; i++) {
        int64_t total = 0;
        for (r = 0; r < nrefs; r++)
            total += streams[r].ln[i];
        if (total > (int64_t)(INT32_MAX / 8)) {
            PyErr_Format(PyExc_OverflowError, "token_rows: sentence %zd's references are too long",
                         i);
            goto done;
        }
    }
    job.hyp = &hyp;
    job.refs = streams;
    job.nrefs = nrefs;
    job.key = bs_id_hash_key();
    res = run_job(&job, 2 + 2 * job.order);
done:
    stream_release(&hyp);
    for (r = 0; streams != NULL && r < nrefs; r++)
        stream_release(&streams[r]);
    PyMem_Free(streams);
    Py_XDECREF(refs);
    return res;
}

/* ------------------------------------------------------------------ */
/* id_lists: a list of lists of ints, packed                           */
/* ------------------------------------------------------------------ */

/* The total length of a list or tuple of lists or tuples; -1: another kind. */
static Py_ssize_t
packed_size(PyObject *batch)
{
    Py_ssize_t i, n = PySequence_Fast_GET_SIZE(batch), total = 0;
    for (i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(batch, i);
        if (!PyList_CheckExact(s) && !PyTuple_CheckExact(s))
            return -1;
        total += PySequence_Fast_GET_SIZE(s);
    }
    return total;
}

/* The ids of batch's sentences into data, their lengths into lens: 1, or 0
 * when an item is no int (bool, a subclass) or has no int64 value. */
static int
pack_ids(PyObject *batch, int64_t *data, int64_t *lens)
{
    Py_ssize_t i, k, n = PySequence_Fast_GET_SIZE(batch), m = 0;
    for (i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(batch, i);
        PyObject **items = PySequence_Fast_ITEMS(s);
        Py_ssize_t len = PySequence_Fast_GET_SIZE(s);
        for (k = 0; k < len; k++) {
            int overflow = 0;
            long long v;
            if (!PyLong_CheckExact(items[k]))
                return 0;
            v = PyLong_AsLongLongAndOverflow(items[k], &overflow);
            if (overflow)
                return 0;
            data[m++] = (int64_t)v;
        }
        lens[i] = (int64_t)len;
    }
    return 1;
}

BS_FASTCALL(bs_id_lists)
{
    PyObject *batch, *data, *lens;
    Py_ssize_t n, total;
    (void)module;
    if (bs_parse_args("id_lists", args, nargs, kwnames, NULL, 1, 1, &batch) < 0)
        return NULL;
    if (!PyList_CheckExact(batch) && !PyTuple_CheckExact(batch))
        Py_RETURN_NONE;
    n = PySequence_Fast_GET_SIZE(batch);
    if ((total = packed_size(batch)) < 0)
        Py_RETURN_NONE;
    if (total > PY_SSIZE_T_MAX / 8 || n > PY_SSIZE_T_MAX / 8)
        return PyErr_NoMemory();
    data = PyBytes_FromStringAndSize(NULL, total * 8);
    lens = data == NULL ? NULL : PyBytes_FromStringAndSize(NULL, n * 8);
    if (lens == NULL) {
        Py_XDECREF(data);
        return NULL;
    }
    /* no Python code runs meanwhile: the lists keep their sizes */
    if (!pack_ids(batch, (int64_t *)PyBytes_AS_STRING(data), (int64_t *)PyBytes_AS_STRING(lens))) {
        Py_DECREF(data);
        Py_DECREF(lens);
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(NN)", data, lens);
}
