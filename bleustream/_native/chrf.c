/*
 * chrf.c: chrF rows, one per reference (chrf_ref_rows), the best
 * reference's row of each segment of a batch (chrf_rows) or their sum
 * (chrf_sum), and chrF++'s words (split_words).
 */
#include "kernels.h"

/* string.punctuation */
static inline int
is_ascii_punct(Py_UCS4 c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}

/* A side of chrF: its characters (as ids) and its words (as spans). */
typedef struct {
    Py_UCS4 *buf;   /* the whole string */
    Py_ssize_t n;
    int32_t *chars; /* code points, white space removed unless kept */
    Py_ssize_t nchars;
    SpanVec words;
} ChrfSide;

/* SacreBLEU's chrF++ words: split(), then one ASCII punctuation mark off the
 * end, or else off the start, of a word longer than one character. */
static int
split_words_spans(Arena *a, const Py_UCS4 *b, Py_ssize_t n, SpanVec *out)
{
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t s, e;
        while (i < n && Py_UNICODE_ISSPACE(b[i]))
            i++;
        if (i >= n)
            break;
        s = i;
        while (i < n && !Py_UNICODE_ISSPACE(b[i]))
            i++;
        e = i;
        if (e - s > 1 && is_ascii_punct(b[e - 1])) {
            if (spans_push(a, out, s, e - s - 1) < 0 || spans_push(a, out, e - 1, 1) < 0)
                return -1;
        }
        else if (e - s > 1 && is_ascii_punct(b[s])) {
            if (spans_push(a, out, s, 1) < 0 || spans_push(a, out, s + 1, e - s - 1) < 0)
                return -1;
        }
        else if (spans_push(a, out, s, e - s) < 0) {
            return -1;
        }
    }
    return 0;
}

/* A side of text: its n characters at buf[0 .. n). */
static int
side_init(Arena *a, ChrfSide *s, Py_UCS4 *buf, Py_ssize_t n, int whitespace, int words)
{
    Py_ssize_t i, o = 0;
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->buf = buf;
    if ((s->chars = ARENA_NEW(a, int32_t, s->n + 1)) == NULL)
        return -1;
    for (i = 0; i < s->n; i++) {
        Py_UCS4 c = s->buf[i];
        if (whitespace || !Py_UNICODE_ISSPACE(c))
            s->chars[o++] = (int32_t)c;
    }
    s->nchars = o;
    if (words && split_words_spans(a, s->buf, s->n, &s->words) < 0)
        return -1;
    return 0;
}

/* The triplets of orders 1..orders into out: (hyp, ref, match) each,
 * hypothesis n-grams counted only against a reference that has some. */
static void
fill_triplets(Py_ssize_t *out, Py_ssize_t hlen, Py_ssize_t rlen, const Py_ssize_t *m,
              Py_ssize_t orders)
{
    Py_ssize_t n;
    for (n = 1; n <= orders; n++) {
        Py_ssize_t ht = hlen >= n ? hlen - n + 1 : 0, rt = rlen >= n ? rlen - n + 1 : 0;
        out[3 * (n - 1)] = rt ? ht : 0;
        out[3 * (n - 1) + 1] = rt;
        out[3 * (n - 1) + 2] = m[n - 1];
    }
}

/* The ids of a side's words in the vocabulary, inserted if `insert`. */
static int32_t *
word_ids(Arena *a, Vocab *voc, const ChrfSide *side, int insert)
{
    Py_ssize_t j;
    int32_t *ids = ARENA_NEW(a, int32_t, side->words.n + 1);
    if (ids == NULL)
        return NULL;
    for (j = 0; j < side->words.n; j++) {
        TokView tv;
        tv.data = side->buf + side->words.v[j].start;
        tv.len = side->words.v[j].len;
        tv.kind = PyUnicode_4BYTE_KIND;
        ids[j] = vocab_id(voc, &tv, insert);
    }
    return ids;
}

int
chrf_stats_ucs4(Arena *a, Py_UCS4 *const *bufs, const Py_ssize_t *lens, Py_ssize_t nrefs,
                const ChrfOrders *o, Py_ssize_t *stats)
{
    Py_ssize_t k, NW = 0, zero = 0, width = 3 * (o->char_order + o->word_order);
    Py_ssize_t maxo = o->char_order > o->word_order ? o->char_order : o->word_order;
    ChrfSide hside, *rs;
    Py_ssize_t *m;
    int32_t *hyp_wids = NULL, **ref_wids;
    int words = o->word_order > 0;
    Vocab voc;

    if ((m = ARENA_NEW(a, Py_ssize_t, maxo + 1)) == NULL ||
        (rs = ARENA_NEW(a, ChrfSide, nrefs)) == NULL ||
        (ref_wids = ARENA_NEW(a, int32_t *, nrefs)) == NULL)
        return -1;
    if (side_init(a, &hside, bufs[0], lens[0], o->whitespace, words) < 0)
        return -1;
    for (k = 0; k < nrefs; k++)
        if (side_init(a, &rs[k], bufs[1 + k], lens[1 + k], o->whitespace, words) < 0)
            return -1;
    if (words) {
        for (k = 0; k < nrefs; k++)
            NW += rs[k].words.n;
        if (vocab_init(&voc, a, NW) < 0)
            return -1;
        for (k = 0; k < nrefs; k++)
            if ((ref_wids[k] = word_ids(a, &voc, &rs[k], 1)) == NULL)
                return -1;
        if ((hyp_wids = word_ids(a, &voc, &hside, 0)) == NULL)
            return -1;
    }
    for (k = 0; k < nrefs; k++) {
        Py_ssize_t *out = stats + k * width;
        if (clipped_matches(a, hside.chars, hside.nchars, rs[k].chars, &zero, &rs[k].nchars, 1,
                            o->char_order, m, 0) < 0)
            return -1;
        fill_triplets(out, hside.nchars, rs[k].nchars, m, o->char_order);
        if (words) {
            if (clipped_matches(a, hyp_wids, hside.words.n, ref_wids[k], &zero, &rs[k].words.n,
                                1, o->word_order, m, voc.size) < 0)
                return -1;
            fill_triplets(out + 3 * o->char_order, hside.words.n, rs[k].words.n, m,
                          o->word_order);
        }
    }
    return 0;
}

int
chrf_stats(Arena *a, PyObject *hyp, PyObject *const *refs, Py_ssize_t nrefs,
           const ChrfOrders *o, Py_ssize_t *stats)
{
    Py_ssize_t k, *lens = ARENA_NEW(a, Py_ssize_t, nrefs + 1);
    Py_UCS4 **bufs = ARENA_NEW(a, Py_UCS4 *, nrefs + 1);
    if (lens == NULL || bufs == NULL)
        return -1;
    for (k = 0; k <= nrefs; k++) {
        PyObject *text = k == 0 ? hyp : refs[k - 1];
        lens[k] = PyUnicode_GET_LENGTH(text);
        if ((bufs[k] = to_ucs4(a, text, lens[k], 0)) == NULL)
            return -1;
    }
    return chrf_stats_ucs4(a, bufs, lens, nrefs, o, stats);
}

/* A tuple of n ints. */
static PyObject *
int_tuple(const Py_ssize_t *v, Py_ssize_t n)
{
    Py_ssize_t q;
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (q = 0; q < n; q++) {
        PyObject *x = PyLong_FromSsize_t(v[q]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, q, x);
    }
    return t;
}

int
chrf_orders(ChrfOrders *o, PyObject *char_order, PyObject *word_order, PyObject *whitespace,
            Py_ssize_t most)
{
    o->char_order = PyNumber_AsSsize_t(char_order, PyExc_OverflowError);
    if (o->char_order == -1 && PyErr_Occurred())
        return -1;
    o->word_order = PyNumber_AsSsize_t(word_order, PyExc_OverflowError);
    if (o->word_order == -1 && PyErr_Occurred())
        return -1;
    if (o->char_order < 0 || o->word_order < 0) {
        PyErr_SetString(PyExc_ValueError, "orders must not be negative");
        return -1;
    }
    if (o->char_order > most || o->word_order > most) {
        PyErr_SetString(PyExc_OverflowError, "order too large");
        return -1;
    }
    o->whitespace = PyObject_IsTrue(whitespace);
    return o->whitespace < 0 ? -1 : 0;
}

/* The references of a segment, each a str, at least one: a new reference
 * to a fast sequence of them. */
static PyObject *
segment_refs(PyObject *refs)
{
    Py_ssize_t k, nrefs;
    PyObject *rf = PySequence_Fast(refs, "refs must be a sequence of str");
    if (rf == NULL)
        return NULL;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if (nrefs == 0) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        Py_DECREF(rf);
        return NULL;
    }
    for (k = 0; k < nrefs; k++)
        if (bs_check_str(PySequence_Fast_GET_ITEM(rf, k), "a reference") < 0) {
            Py_DECREF(rf);
            return NULL;
        }
    return rf;
}

BS_FASTCALL(bs_chrf_ref_rows)
{
    static const char *const names[] = {"hyp", "refs", "char_order", "word_order", "whitespace"};
    PyObject *a[5], *rf = NULL, *out = NULL;
    Py_ssize_t nrefs, k, width;
    Py_ssize_t *stats;
    ChrfOrders o;
    (void)module;
    ARENA_ON_STACK(arena);

    if (bs_parse_args("chrf_ref_rows", args, nargs, kwnames, names, 5, 5, a) < 0)
        return NULL;
    if (bs_check_str(a[0], "hyp") < 0 || chrf_orders(&o, a[2], a[3], a[4], PY_SSIZE_T_MAX / 8) < 0)
        return NULL;
    if ((rf = segment_refs(a[1])) == NULL)
        return NULL;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    width = 3 * (o.char_order + o.word_order);
    if ((stats = ARENA_NEW(&arena, Py_ssize_t, nrefs * width + 1)) == NULL ||
        chrf_stats(&arena, a[0], PySequence_Fast_ITEMS(rf), nrefs, &o, stats) < 0)
        goto done;
    if ((out = PyTuple_New(nrefs)) == NULL)
        goto done;
    for (k = 0; k < nrefs; k++) {
        PyObject *row = int_tuple(stats + k * width, width);
        if (row == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyTuple_SET_ITEM(out, k, row);
    }
done:
    arena_free(&arena);
    Py_DECREF(rf);
    return out;
}

void
chrf_best(const ChrfF *f, const Py_ssize_t *stats, Py_ssize_t nrefs, Py_ssize_t *best)
{
    Py_ssize_t k, width = 3 * f->order, at = 0;
    double best_f = -1.0;
    if (nrefs > 1)
        for (k = 0; k < nrefs; k++) {
            double value = chrf_f_score(f, stats + k * width);
            if (value > best_f) {
                best_f = value;
                at = k;
            }
        }
    memcpy(best, stats + at * width, (size_t)width * sizeof(Py_ssize_t));
}

/* The best reference's statistics of one segment into best[0 .. width):
 * the first with the highest f-score, as chrf.py_count chooses. */
static int
segment_best(Arena *a, PyObject *hyp, PyObject *refs, const ChrfOrders *o, const ChrfF *f,
             Py_ssize_t *best)
{
    Py_ssize_t nrefs, width = 3 * (o->char_order + o->word_order);
    Py_ssize_t *stats;
    PyObject *rf;
    int ok = -1;
    if (bs_check_str(hyp, "a hypothesis") < 0 || (rf = segment_refs(refs)) == NULL)
        return -1;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if ((stats = ARENA_NEW(a, Py_ssize_t, nrefs * width + 1)) == NULL ||
        chrf_stats(a, hyp, PySequence_Fast_ITEMS(rf), nrefs, o, stats) < 0)
        goto done;
    chrf_best(f, stats, nrefs, best);
    ok = 0;
done:
    Py_DECREF(rf);
    return ok;
}

/* chrf_rows and chrf_sum: each segment's best row (a list of tuples), or
 * their sum (one tuple, without a row object per segment). */
static PyObject *
chrf_batch(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
           int summed)
{
    static const char *const names[] = {"hyps",  "refs", "char_order",   "word_order",
                                        "whitespace", "beta", "eps_smoothing"};
    PyObject *a[7], *hyps = NULL, *refs = NULL, *out = NULL;
    Py_ssize_t i, k, n, width;
    Py_ssize_t best[3 * 2 * CHRF_MAX_ORDER], sums[3 * 2 * CHRF_MAX_ORDER];
    ChrfOrders o;
    ChrfF f;
    ARENA_ON_STACK(arena);

    if (bs_parse_args(fname, args, nargs, kwnames, names, 7, 7, a) < 0)
        return NULL;
    if (chrf_orders(&o, a[2], a[3], a[4], CHRF_MAX_ORDER) < 0 || chrf_f_settings(&f, &o, a[5], a[6]) < 0)
        return NULL;
    width = 3 * (o.char_order + o.word_order);
    memset(sums, 0, sizeof(sums));
    hyps = PySequence_Fast(a[0], "hyps must be a sequence of str");
    refs = hyps == NULL ? NULL : PySequence_Fast(a[1], "refs must be a sequence of sequences");
    if (refs == NULL)
        goto done;
    n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd hypotheses, references of %zd segments", fname, n,
                     PySequence_Fast_GET_SIZE(refs));
        goto done;
    }
    if (!summed && (out = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        PyObject *row;
        arena_reset(&arena);
        if (segment_best(&arena, PySequence_Fast_GET_ITEM(hyps, i),
                         PySequence_Fast_GET_ITEM(refs, i), &o, &f, best) < 0) {
            Py_CLEAR(out);
            goto done;
        }
        if (summed) {
            /* each count is at most a line's length: a batch's sum fits */
            for (k = 0; k < width; k++)
                sums[k] += best[k];
            continue;
        }
        if ((row = int_tuple(best, width)) == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, row);
    }
    if (summed)
        out = int_tuple(sums, width);
done:
    arena_free(&arena);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    return out;
}

BS_FASTCALL(bs_chrf_rows)
{
    (void)module;
    return chrf_batch("chrf_rows", args, nargs, kwnames, 0);
}

BS_FASTCALL(bs_chrf_sum)
{
    (void)module;
    return chrf_batch("chrf_sum", args, nargs, kwnames, 1);
}

/* split_words(line, /) -> list[str] */
BS_FASTCALL(bs_split_words)
{
    PyObject *line;
    Py_UCS4 *buf;
    Py_ssize_t n;
    SpanVec spans = {NULL, 0, 0};
    PyObject *res = NULL;
    (void)module;
    if (bs_parse_args("split_words", args, nargs, kwnames, NULL, 1, 1, &line) < 0)
        return NULL;
    if (bs_check_str(line, "line") < 0)
        return NULL;
    n = PyUnicode_GET_LENGTH(line);
    {
        ARENA_ON_STACK(arena);
        buf = to_ucs4(&arena, line, n, 0);
        if (buf != NULL && split_words_spans(&arena, buf, n, &spans) == 0)
            res = spans_to_list(buf, &spans);
        arena_free(&arena);
    }
    return res;
}
