/*
 * analysis.c: one segment's counts for the analyses of `--analyze`, added
 * to their running dicts: the words of word accuracy by frequency
 * (analysis.words.py_add_words) and the matched n-grams of the n-gram
 * differences (analysis.ngrams.py_add_ngram_matches).
 *
 * The segment's tokens (the reference's and every system's) are interned
 * to ids once (the vocabulary); counts, clipped matches and n-gram tables
 * are on ids in the arena.  A distinct word, or a distinct matched n-gram
 * of an order, is looked up once in the caller's running numbers (a new
 * one keyed by the caller's own str objects) and its counts added to the
 * caller's flat list of counts (analysis.numbering's layout).
 * Distinct words and n-grams are visited in the order they first occur,
 * the pure twins' order.
 */
#include "kernels.h"

/* The tokens of one list: a tuple of them (so no other code can change
 * them under the kernel), with their ids. */
typedef struct {
    PyObject *seq; /* a tuple, a new reference */
    Py_ssize_t len;
    int32_t *ids; /* in the arena */
} Tokens;

static int
tokens_open(Tokens *t, PyObject *o, const char *what)
{
    Py_ssize_t i;
    t->ids = NULL;
    t->len = 0;
    t->seq = PySequence_Tuple(o);
    if (t->seq == NULL)
        return -1;
    t->len = PyTuple_GET_SIZE(t->seq);
    for (i = 0; i < t->len; i++)
        if (bs_check_str(PyTuple_GET_ITEM(t->seq, i), what) < 0)
            return -1;
    return 0;
}

static void
tokens_close(Tokens *t, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        Py_CLEAR(t[i].seq);
}

/* Each token's id; new tokens inserted when `insert`, else -1. */
static int
tokens_intern(Tokens *t, Vocab *v, Arena *a, int insert)
{
    Py_ssize_t i;
    t->ids = ARENA_NEW(a, int32_t, t->len + 1);
    if (t->ids == NULL)
        return -1;
    for (i = 0; i < t->len; i++) {
        PyObject *s = PyTuple_GET_ITEM(t->seq, i);
        TokView view = {PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s), PyUnicode_KIND(s)};
        t->ids[i] = vocab_id(v, &view, insert);
    }
    return 0;
}

/*
 * The segment's lists into t[0 .. 1 + nsys): the reference's words, then
 * each system's, for the first nsys of hyps (a ValueError when there are
 * fewer).  nsys, or -1 with an exception (t closed).
 */
static Py_ssize_t
segment_open(Arena *a, PyObject *ref, PyObject *hyps, Py_ssize_t nsys, Tokens **tp)
{
    PyObject *seq = PySequence_Tuple(hyps);
    Tokens *t;
    Py_ssize_t s;
    *tp = NULL;
    if (seq == NULL)
        return -1;
    if (PyTuple_GET_SIZE(seq) < nsys) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses for %zd systems", PyTuple_GET_SIZE(seq),
                     nsys);
        Py_DECREF(seq);
        return -1;
    }
    t = ARENA_NEW(a, Tokens, nsys + 1);
    if (t == NULL) {
        Py_DECREF(seq);
        return -1;
    }
    for (s = 0; s <= nsys; s++)
        t[s].seq = NULL;
    *tp = t;
    if (tokens_open(&t[0], ref, "ref's words") < 0)
        goto fail;
    for (s = 0; s < nsys; s++)
        if (tokens_open(&t[s + 1], PyTuple_GET_ITEM(seq, s), "a hypothesis's words") < 0)
            goto fail;
    Py_DECREF(seq);
    return nsys;
fail:
    Py_DECREF(seq);
    tokens_close(t, nsys + 1);
    return -1;
}

/* ------------------------------------------------------------------ */
/* words                                                               */
/* ------------------------------------------------------------------ */

/*
 * Per id (ids are given in order of first occurrence, the reference first,
 * then each hypothesis): its first token, and its counts, (1 + nsys) per
 * id: the reference's, then each hypothesis's.
 */
typedef struct {
    Py_ssize_t nsys, nids;
    PyObject **first; /* borrowed from the Tokens' tuples */
    int32_t *count;
} WordCounts;

static int
word_counts(Arena *a, Tokens *t, Py_ssize_t nsys, WordCounts *w)
{
    Py_ssize_t total = 0, s, i, width = 1 + nsys;
    int32_t next = 0;
    Vocab v;
    for (s = 0; s <= nsys; s++)
        total += t[s].len;
    if (vocab_init(&v, a, total) < 0)
        return -1;
    for (s = 0; s <= nsys; s++)
        if (tokens_intern(&t[s], &v, a, 1) < 0)
            return -1;
    w->nsys = nsys;
    w->nids = v.size;
    w->first = ARENA_NEW(a, PyObject *, v.size + 1);
    w->count = ARENA_NEW(a, int32_t, ((Py_ssize_t)v.size + 1) * width);
    if (w->first == NULL || w->count == NULL)
        return -1;
    memset(w->count, 0, sizeof(int32_t) * ((size_t)v.size + 1) * (size_t)width);
    for (s = 0; s <= nsys; s++)
        for (i = 0; i < t[s].len; i++) {
            int32_t id = t[s].ids[i];
            w->count[(Py_ssize_t)id * width + s]++;
            if (id == next)
                w->first[next++] = PyTuple_GET_ITEM(t[s].seq, i);
        }
    return 0;
}

/*
 * A call's running numbers, a[0 .. 4) = (systems, ids, keys, counts), as
 * analysis.numbering lays them out: ids a dict, keys and counts lists, with
 * `extra + per * systems` counts per key.  The number of systems (its
 * width in *width), or -1 with an exception.
 */
static Py_ssize_t
running_open(const char *fname, PyObject *const *a, Py_ssize_t extra, Py_ssize_t per,
             Py_ssize_t *width)
{
    Py_ssize_t systems = PyLong_AsSsize_t(a[0]);
    if (systems == -1 && PyErr_Occurred())
        return -1;
    if (systems < 0 || systems > (1 << 20)) {
        PyErr_Format(PyExc_ValueError, "%s: %zd systems", fname, systems);
        return -1;
    }
    if (!PyDict_Check(a[1]) || !PyList_Check(a[2]) || !PyList_Check(a[3])) {
        PyErr_Format(PyExc_TypeError, "%s: the numbers must be a dict, the keys and counts lists",
                     fname);
        return -1;
    }
    *width = extra + per * systems;
    if (PyList_GET_SIZE(a[3]) != PyList_GET_SIZE(a[2]) * *width) {
        PyErr_Format(PyExc_ValueError, "%s: counts must hold %zd numbers per key", fname, *width);
        return -1;
    }
    return systems;
}

/* The number of key (a word, an n-gram) in ids; a new one (len(keys)),
 * its `width` (> 0) counts appended as zeros, when absent.  -1 with an
 * exception. */
static Py_ssize_t
key_number(PyObject *ids, PyObject *keys, PyObject *counts, Py_ssize_t width, PyObject *key)
{
    PyObject *id = PyDict_GetItemWithError(ids, key); /* borrowed */
    Py_ssize_t n, k;
    if (id != NULL) {
        if (!PyLong_Check(id)) {
            PyErr_Format(PyExc_TypeError, "a key's number must be int, not %.100s",
                         Py_TYPE(id)->tp_name);
            return -1;
        }
        n = PyLong_AsSsize_t(id);
        if (n == -1 && PyErr_Occurred())
            return -1;
        if (n < 0 || n >= PyList_GET_SIZE(counts) / width) {
            PyErr_SetString(PyExc_ValueError, "a key's number has no counts");
            return -1;
        }
        return n;
    }
    if (PyErr_Occurred())
        return -1;
    n = PyList_GET_SIZE(keys);
    if ((id = PyLong_FromSsize_t(n)) == NULL)
        return -1;
    if (PyDict_SetItem(ids, key, id) < 0 || PyList_Append(keys, key) < 0) {
        Py_DECREF(id);
        return -1;
    }
    Py_DECREF(id);
    for (k = 0; k < width; k++) {
        PyObject *zero = PyLong_FromLong(0);
        int rc = zero == NULL ? -1 : PyList_Append(counts, zero);
        Py_XDECREF(zero);
        if (rc < 0)
            return -1;
    }
    return n;
}

/* counts[at] += v, as Python adds; 0, or -1 with an exception. */
static int
count_add(PyObject *counts, Py_ssize_t at, long v)
{
    PyObject *old = PyList_GetItem(counts, at), *sum; /* borrowed, checked */
    if (old == NULL)
        return -1;
    if (PyLong_CheckExact(old)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(old, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        sum = !overflow && x < LLONG_MAX - v ? PyLong_FromLongLong(x + v) : NULL;
        if (sum == NULL && PyErr_Occurred())
            return -1;
    }
    else
        sum = NULL;
    if (sum == NULL) { /* a big or odd count: as Python adds it */
        PyObject *add = PyLong_FromLong(v);
        if (add == NULL)
            return -1;
        Py_INCREF(old);
        sum = PyNumber_Add(old, add);
        Py_DECREF(old);
        Py_DECREF(add);
        if (sum == NULL)
            return -1;
    }
    return PyList_SetItem(counts, at, sum); /* steals sum, checks at */
}

/* A new int into row[*at]; 0, or -1 with an exception. */
static int
row_put(PyObject *row, Py_ssize_t *at, long v)
{
    PyObject *n = PyLong_FromLong(v);
    if (n == NULL)
        return -1;
    PyList_SET_ITEM(row, (*at)++, n);
    return 0;
}

/* Per distinct word of the segment, in the order words first occur: its
 * numbers (the reference's count, then each system's count and matches)
 * added to its counts, and, when row is not NULL, its number and those
 * numbers put in row. */
static int
add_counts(const WordCounts *w, PyObject *ids, PyObject *words, PyObject *counts, PyObject *row)
{
    Py_ssize_t k, s, j, nsys = w->nsys, cw = 1 + nsys, width = 1 + 2 * nsys, at = 0;
    long numbers[1 + 2 * 64];
    long *v = nsys <= 64 ? numbers : PyMem_New(long, (size_t)width);
    int rc = -1;
    if (v == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (k = 0; k < w->nids; k++) {
        const int32_t *c = &w->count[k * cw];
        Py_ssize_t n = key_number(ids, words, counts, width, w->first[k]);
        if (n < 0)
            goto done;
        v[0] = c[0];
        for (s = 1; s <= nsys; s++) {
            v[2 * s - 1] = c[s];
            v[2 * s] = c[s] < c[0] ? c[s] : c[0];
        }
        for (j = 0; j < width; j++)
            if (v[j] != 0 && count_add(counts, n * width + j, v[j]) < 0)
                goto done;
        if (row != NULL) {
            if (row_put(row, &at, (long)n) < 0)
                goto done;
            for (j = 0; j < width; j++)
                if (row_put(row, &at, v[j]) < 0)
                    goto done;
        }
    }
    rc = 0;
done:
    if (v != numbers)
        PyMem_Free(v);
    return rc;
}

static const char *const add_words_names[] = {"ref", "hyps", "systems", "ids",
                                              "words", "counts", "row"};

BS_FASTCALL(bs_add_words)
{
    PyObject *a[7], *row = NULL, *result = NULL;
    Tokens *t = NULL;
    Py_ssize_t nsys = -1, systems, width;
    int keep = 0;
    WordCounts w;
    ARENA_ON_STACK(arena);
    if (bs_parse_args("add_words", args, nargs, kwnames, add_words_names, 6, 7, a) < 0)
        return NULL;
    if (a[6] != NULL && (keep = PyObject_IsTrue(a[6])) < 0)
        return NULL;
    if ((systems = running_open("add_words", a + 2, 1, 2, &width)) < 0)
        return NULL;
    if ((nsys = segment_open(&arena, a[0], a[1], systems, &t)) < 0)
        goto done;
    if (word_counts(&arena, t, nsys, &w) < 0)
        goto done;
    if (keep && (row = PyList_New(w.nids * (1 + width))) == NULL)
        goto done;
    if (add_counts(&w, a[3], a[4], a[5], row) < 0)
        goto done;
    if (keep) {
        result = row;
        row = NULL;
    }
    else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    if (t != NULL)
        tokens_close(t, nsys + 1);
    Py_XDECREF(row); /* items not yet set are NULL, which a list skips */
    arena_free(&arena);
    return result;
}

/* ------------------------------------------------------------------ */
/* matched n-grams                                                     */
/* ------------------------------------------------------------------ */

/* A distinct reference n-gram of the current order. */
typedef struct {
    uint64_t h;
    int32_t pos;  /* where it first starts in the reference; -1: an empty slot */
    int32_t refc; /* its count in the reference */
    int32_t hypc; /* its count in the current hypothesis */
    int32_t hpos; /* where it first starts there */
    Py_ssize_t number; /* its number in the running ids; -1: not looked up yet */
} GramSlot;

typedef struct {
    GramSlot *slots;
    Py_ssize_t mask;
    const int32_t *ref;
    Py_ssize_t n;
} GramTable;

static inline int
grams_equal(const int32_t *a, const int32_t *b, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The slot of the n-gram at ids with hash h: its own, or the empty one
 * where it would go. */
static inline GramSlot *
gram_slot(const GramTable *g, uint64_t h, const int32_t *ids)
{
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)g->mask);
    for (;;) {
        GramSlot *s = &g->slots[i];
        if (s->pos < 0 || (s->h == h && grams_equal(g->ref + s->pos, ids, g->n)))
            return s;
        i = (i + 1) & g->mask;
    }
}

/* Each window's hash extended by the token n - 1 places on: hash[i] then
 * stands for the n-gram at i (windows with a token not in the reference
 * are marked 0 in `live`). */
static void
extend_hashes(uint64_t *hash, unsigned char *live, const int32_t *ids, Py_ssize_t len,
              Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i + n <= len; i++) {
        int32_t id = ids[i + n - 1];
        hash[i] = mix64(hash[i] * NGRAM_MUL + (uint64_t)(uint32_t)id + 1);
        if (live != NULL && id < 0)
            live[i] = 0;
    }
}

/* The reference's n-grams of order n into the table (cleared first). */
static void
fill_table(GramTable *g, const uint64_t *hash, Py_ssize_t rlen)
{
    Py_ssize_t i;
    for (i = 0; i <= g->mask; i++)
        g->slots[i].pos = -1;
    for (i = 0; i + g->n <= rlen; i++) {
        GramSlot *s = gram_slot(g, hash[i], g->ref + i);
        if (s->pos < 0) {
            s->h = hash[i];
            s->pos = (int32_t)i;
            s->refc = 0;
            s->hypc = 0;
            s->number = -1;
        }
        s->refc++;
    }
}

/* The running numbers and counts of matched n-grams, and the system whose
 * matches are being added (its column of counts). */
typedef struct {
    PyObject *ids, *grams, *counts;
    Py_ssize_t systems, column;
} GramCounts;

/* The matched n-grams of order g->n of one hypothesis added to its column
 * of counts, a new one numbered with a tuple of the hypothesis's own words;
 * the number of distinct ones. */
static Py_ssize_t
add_matched(const GramTable *g, const Tokens *hyp, const uint64_t *hash,
            const unsigned char *live, GramSlot **hits, const GramCounts *c)
{
    Py_ssize_t i, k, nhits = 0, n = g->n, rc = 0;
    for (i = 0; i + n <= hyp->len; i++) {
        GramSlot *s;
        if (!live[i])
            continue;
        s = gram_slot(g, hash[i], hyp->ids + i);
        if (s->pos < 0)
            continue;
        if (s->hypc++ == 0) {
            s->hpos = (int32_t)i;
            hits[nhits++] = s;
        }
    }
    for (k = 0; k < nhits; k++) {
        GramSlot *s = hits[k];
        int32_t m = s->hypc < s->refc ? s->hypc : s->refc;
        s->hypc = 0;
        if (rc < 0)
            continue;
        if (s->number < 0) {
            PyObject *gram = PyTuple_New(n);
            if (gram == NULL) {
                rc = -1;
                continue;
            }
            for (i = 0; i < n; i++) {
                PyObject *word = PyTuple_GET_ITEM(hyp->seq, s->hpos + i);
                Py_INCREF(word);
                PyTuple_SET_ITEM(gram, i, word);
            }
            s->number = key_number(c->ids, c->grams, c->counts, c->systems, gram);
            Py_DECREF(gram);
            if (s->number < 0) {
                rc = -1;
                continue;
            }
        }
        if (count_add(c->counts, s->number * c->systems + c->column, m) < 0)
            rc = -1;
    }
    return rc < 0 ? -1 : nhits;
}

/* Per system the hypothesis's hashes and live windows, in the arena. */
typedef struct {
    uint64_t *hash;
    unsigned char *live;
    int alive; /* it matched at the last order counted */
} HypGrams;

static int
count_matches(Arena *a, Tokens *t, Py_ssize_t nsys, Py_ssize_t low, Py_ssize_t high,
              GramCounts *c)
{
    Py_ssize_t rlen = t[0].len, s, n, most = 0;
    uint64_t *rhash;
    HypGrams *h;
    GramSlot **hits;
    GramTable g;
    Vocab v;
    if (vocab_init(&v, a, rlen) < 0 || tokens_intern(&t[0], &v, a, 1) < 0)
        return -1;
    rhash = ARENA_NEW(a, uint64_t, rlen + 1);
    h = ARENA_NEW(a, HypGrams, nsys + 1);
    g.mask = 1;
    while (g.mask < 2 * rlen + 1)
        g.mask <<= 1;
    g.slots = ARENA_NEW(a, GramSlot, g.mask);
    g.mask -= 1;
    g.ref = t[0].ids;
    if (rhash == NULL || h == NULL || g.slots == NULL)
        return -1;
    memset(rhash, 0, sizeof(uint64_t) * (size_t)(rlen + 1));
    for (s = 1; s <= nsys; s++) {
        Py_ssize_t len = t[s].len;
        if (tokens_intern(&t[s], &v, a, 0) < 0 ||
            (h[s].hash = ARENA_NEW(a, uint64_t, len + 1)) == NULL ||
            (h[s].live = ARENA_NEW(a, unsigned char, len + 1)) == NULL)
            return -1;
        memset(h[s].hash, 0, sizeof(uint64_t) * (size_t)(len + 1));
        memset(h[s].live, 1, (size_t)(len + 1));
        h[s].alive = 1;
        if (len > most)
            most = len;
    }
    if ((hits = ARENA_NEW(a, GramSlot *, most + 1)) == NULL)
        return -1;
    for (n = 1; n <= high && n <= rlen; n++) {
        int any = 0;
        extend_hashes(rhash, NULL, t[0].ids, rlen, n);
        for (s = 1; s <= nsys; s++)
            if (h[s].alive)
                extend_hashes(h[s].hash, h[s].live, t[s].ids, t[s].len, n);
        if (n < low)
            continue;
        g.n = n;
        fill_table(&g, rhash, rlen);
        for (s = 1; s <= nsys; s++) {
            Py_ssize_t found;
            if (!h[s].alive)
                continue;
            c->column = s - 1;
            found = add_matched(&g, &t[s], h[s].hash, h[s].live, hits, c);
            if (found < 0)
                return -1;
            h[s].alive = found > 0;
            any |= found > 0;
        }
        if (!any)
            break;
    }
    return 0;
}

static const char *const add_ngram_matches_names[] = {"ref", "hyps", "low",   "high",
                                                      "systems", "ids", "grams", "counts"};

BS_FASTCALL(bs_add_ngram_matches)
{
    PyObject *a[8], *result = NULL;
    Tokens *t = NULL;
    Py_ssize_t nsys = -1, low, high, width;
    GramCounts c;
    ARENA_ON_STACK(arena);
    if (bs_parse_args("add_ngram_matches", args, nargs, kwnames, add_ngram_matches_names, 8, 8,
                      a) < 0)
        return NULL;
    low = PyLong_AsSsize_t(a[2]);
    if (low == -1 && PyErr_Occurred())
        return NULL;
    high = PyLong_AsSsize_t(a[3]);
    if (high == -1 && PyErr_Occurred())
        return NULL;
    if (low < 1 || high < low) {
        PyErr_Format(PyExc_ValueError, "n-gram orders must be 1 <= low <= high, not %zd..%zd",
                     low, high);
        return NULL;
    }
    if ((c.systems = running_open("add_ngram_matches", a + 4, 0, 1, &width)) < 0)
        return NULL;
    c.ids = a[5];
    c.grams = a[6];
    c.counts = a[7];
    c.column = 0;
    if ((nsys = segment_open(&arena, a[0], a[1], c.systems, &t)) < 0)
        goto done;
    if (count_matches(&arena, t, nsys, low, high, &c) < 0)
        goto done;
    Py_INCREF(Py_None);
    result = Py_None;
done:
    if (t != NULL)
        tokens_close(t, nsys + 1);
    arena_free(&arena);
    return result;
}
