/*
 * ngrams.c: the n-gram engine.  Tokens interned to ids (the vocabulary),
 * then each order's clipped matches of the hypothesis's n-grams against
 * the references'; BLEU's rows and chrF's both count with it.
 */
#include "kernels.h"

static Py_ssize_t
pow2_at_least(Py_ssize_t n)
{
    Py_ssize_t c = 8;
    while (c < n)
        c <<= 1;
    return c;
}

/* A vocabulary for up to max_tokens tokens, in the arena. */
int
vocab_init(Vocab *v, Arena *a, Py_ssize_t max_tokens)
{
    Py_ssize_t cap, i;
    v->size = 0;
    if (max_tokens > (Py_ssize_t)(INT32_MAX / 4)) {
        PyErr_SetString(PyExc_OverflowError, "too many tokens");
        return -1;
    }
    cap = pow2_at_least(2 * max_tokens + 1);
    v->mask = cap - 1;
    v->slots = ARENA_NEW(a, VSlot, cap);
    v->views = v->slots == NULL ? NULL : ARENA_NEW(a, TokView, max_tokens + 1);
    if (v->views == NULL)
        return -1;
    for (i = 0; i < cap; i++)
        v->slots[i].id = -1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* the n-gram engine                                                   */
/* ------------------------------------------------------------------ */

/*
 * For n = 1 .. max_n: out[n-1] = sum over distinct n-grams g of
 * min(count of g in hyp, max over refs of count of g in that ref).
 * An n-gram is a run of n int32 ids; hyp ids < 0 never match.  Stops at
 * the first order with no match (all higher orders are 0 too).
 */
typedef struct {
    uint64_t h;
    int32_t pos; /* index into the flat reference ids */
    int32_t maxc;
    int32_t curc;
    int32_t last; /* reference that curc counts */
    int32_t hypc;
    uint32_t gen; /* occupied at order `gen` */
} NSlot;

static inline int
ids_equal(const int32_t *a, const int32_t *b, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* nids > 0: every id is below nids (unigrams are then counted in arrays) */
int
clipped_matches(Arena *a, const int32_t *hyp, Py_ssize_t hlen, const int32_t *flat,
                const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
                Py_ssize_t max_n, Py_ssize_t *out, Py_ssize_t nids)
{
    ArenaMark mark = arena_mark(a);
    int32_t *uni = NULL;
    Py_ssize_t P = 0, maxr = 0, r, i, n, cap, mask, top;
    uint64_t *hh = NULL, *rh = NULL;
    unsigned char *found = NULL;
    NSlot *tab = NULL;
    int rc = -1;

    for (n = 0; n < max_n; n++)
        out[n] = 0;
    for (r = 0; r < nrefs; r++) {
        P += rlens[r];
        if (rlens[r] > maxr)
            maxr = rlens[r];
    }
    top = max_n;
    if (hlen < top)
        top = hlen;
    if (maxr < top)
        top = maxr;
    if (top <= 0)
        return 0;
    if (P > (Py_ssize_t)(INT32_MAX / 4) || hlen > (Py_ssize_t)INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "segment too long");
        return -1;
    }
    cap = pow2_at_least(2 * P + 1);
    mask = cap - 1;
    if ((hh = ARENA_NEW(a, uint64_t, hlen)) == NULL ||
        (found = ARENA_NEW(a, unsigned char, hlen + 1)) == NULL ||
        (rh = ARENA_NEW(a, uint64_t, P)) == NULL || (tab = ARENA_NEW(a, NSlot, cap)) == NULL)
        goto done;
    memset(tab, 0, (size_t)cap * sizeof(NSlot));
    for (i = 0; i < hlen; i++) {
        found[i] = hyp[i] >= 0;
        hh[i] = (uint64_t)(uint32_t)hyp[i] + 1;
    }
    found[hlen] = 0;
    for (i = 0; i < P; i++)
        rh[i] = (uint64_t)(uint32_t)flat[i] + 1;

    n = 1;
    if (nids > 0) {
        /* unigrams by id: uni[0..nids) the highest count in one reference,
         * uni[nids..2 nids) the count in the current one, then the hypothesis' */
        Py_ssize_t matched = 0;
        int32_t *best, *cur;
        uni = ARENA_NEW(a, int32_t, nids * 2);
        if (uni == NULL)
            goto done;
        memset(uni, 0, (size_t)nids * 2 * sizeof(int32_t));
        best = uni;
        cur = uni + nids;
        for (r = 0; r < nrefs; r++) {
            const int32_t *ids = flat + offs[r];
            for (i = 0; i < rlens[r]; i++)
                cur[ids[i]]++;
            for (i = 0; i < rlens[r]; i++) {
                int32_t id = ids[i];
                if (cur[id] > best[id])
                    best[id] = cur[id];
                cur[id] = 0;
            }
        }
        for (i = 0; i < hlen; i++) {
            int32_t id = hyp[i];
            if (id >= 0 && best[id] > 0) {
                found[i] = 1;
                if (++cur[id] <= best[id])
                    matched++;
            }
            else {
                found[i] = 0;
            }
        }
        out[0] = matched;
        if (!matched)
            goto finished;
        n = 2;
    }
    for (; n <= top; n++) {
        uint32_t gen = (uint32_t)n;
        Py_ssize_t matched = 0, nh;
        if (n > 1) {
            for (r = 0; r < nrefs; r++) {
                uint64_t *h = rh + offs[r];
                const int32_t *ids = flat + offs[r];
                Py_ssize_t cnt = rlens[r] - n + 1;
                for (i = 0; i < cnt; i++)
                    h[i] = h[i] * NGRAM_MUL + (uint64_t)(uint32_t)ids[i + n - 1] + 1;
            }
        }
        /* the references' n-grams: the highest count in any one reference */
        for (r = 0; r < nrefs; r++) {
            const uint64_t *h = rh + offs[r];
            Py_ssize_t cnt = rlens[r] - n + 1, base = offs[r];
            for (i = 0; i < cnt; i++) {
                uint64_t hv = h[i];
                Py_ssize_t k = (Py_ssize_t)(mix64(hv) & (uint64_t)mask);
                for (;;) {
                    NSlot *s = &tab[k];
                    if (s->gen != gen) {
                        s->gen = gen;
                        s->h = hv;
                        s->pos = (int32_t)(base + i);
                        s->maxc = 1;
                        s->curc = 1;
                        s->last = (int32_t)r;
                        s->hypc = 0;
                        break;
                    }
                    if (s->h == hv && ids_equal(flat + s->pos, flat + base + i, n)) {
                        if (s->last != (int32_t)r) {
                            s->last = (int32_t)r;
                            s->curc = 0;
                        }
                        s->curc++;
                        if (s->curc > s->maxc)
                            s->maxc = s->curc;
                        break;
                    }
                    k = (k + 1) & mask;
                }
            }
        }
        /* the hypothesis: an n-gram can only be in a reference if both of
         * its (n-1)-grams are */
        nh = hlen - n + 1;
        for (i = 0; i < nh; i++) {
            int cand = (n == 1) ? found[i] : (found[i] && found[i + 1]);
            int hit = 0;
            if (cand) {
                uint64_t hv;
                Py_ssize_t k;
                if (n > 1)
                    hh[i] = hh[i] * NGRAM_MUL + (uint64_t)(uint32_t)hyp[i + n - 1] + 1;
                hv = hh[i];
                k = (Py_ssize_t)(mix64(hv) & (uint64_t)mask);
                for (;;) {
                    NSlot *s = &tab[k];
                    if (s->gen != gen)
                        break;
                    if (s->h == hv && ids_equal(flat + s->pos, hyp + i, n)) {
                        hit = 1;
                        s->hypc++;
                        if (s->hypc <= s->maxc)
                            matched++;
                        break;
                    }
                    k = (k + 1) & mask;
                }
            }
            found[i] = (unsigned char)hit;
        }
        found[nh] = 0;
        out[n - 1] = matched;
        if (!matched)
            break;
    }
finished:
    rc = 0;
done:
    arena_release(a, mark);
    return rc;
}
