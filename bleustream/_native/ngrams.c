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
 *
 * The n-grams are keyed exactly, as a trie: a unigram by its id + 1, an
 * n-gram by the number of its (n-1)-gram prefix (its slot at the order
 * before, or its id where unigrams are counted by id) in the high half
 * and its last id + 1 in the low half.  Two n-grams of one order have the
 * same key exactly when they are the same ids, so a key compares once and
 * no ids are read back.  One table serves every order (a slot is stamped
 * with the order that filled it, in `gens` beside the table, so that only
 * the stamps are cleared): the slot numbers of the order before are kept
 * per position, never looked up again.
 */
typedef struct {
    uint64_t key;
    int32_t maxc; /* the highest count in any one reference */
    int32_t curc; /* the count in reference `last` */
    int32_t last;
    int32_t hypc;
} NSlot;

/* The key of an n-gram of order n ending in `last`; `prefix` points at its
 * (n-1)-gram's number, which only orders past 1 read. */
static inline uint64_t
ngram_key(Py_ssize_t n, const int32_t *prefix, int32_t last)
{
    uint64_t id = (uint64_t)(uint32_t)last + 1;
    return n == 1 ? id : (uint64_t)(uint32_t)*prefix << 32 | id;
}

/* One reference's n-grams of order n into the table; prefix[i] becomes
 * the slot of the n-gram at i. */
static void
add_reference_ngrams(NSlot *tab, uint32_t *gens, Py_ssize_t mask, int shift, const int32_t *ids,
                     int32_t *prefix, Py_ssize_t cnt, Py_ssize_t n, int32_t r)
{
    uint32_t gen = (uint32_t)n;
    Py_ssize_t i;
    for (i = 0; i < cnt; i++) {
        uint64_t key = ngram_key(n, &prefix[i], ids[i + n - 1]);
        Py_ssize_t k = first_probe(key, shift);
        NSlot *s;
        for (;;) {
            s = &tab[k];
            if (gens[k] != gen) {
                gens[k] = gen;
                s->key = key;
                s->maxc = 1;
                s->curc = 1;
                s->last = r;
                s->hypc = 0;
                break;
            }
            if (s->key == key) {
                if (s->last != r) {
                    s->last = r;
                    s->curc = 0;
                }
                s->curc++;
                if (s->curc > s->maxc)
                    s->maxc = s->curc;
                break;
            }
            k = (k + 1) & mask;
        }
        prefix[i] = (int32_t)k;
    }
}

/* The hypothesis' clipped matches of order n; prefix[i] becomes the slot
 * of the n-gram at i, or -1 where the references have none.  An n-gram
 * can only be in a reference if both of its (n-1)-grams are. */
static Py_ssize_t
match_hypothesis_ngrams(NSlot *tab, const uint32_t *gens, Py_ssize_t mask, int shift,
                        const int32_t *hyp, int32_t *prefix, Py_ssize_t nh, Py_ssize_t n)
{
    uint32_t gen = (uint32_t)n;
    Py_ssize_t i, matched = 0;
    for (i = 0; i < nh; i++) {
        int32_t slot = -1;
        int cand = n == 1 ? hyp[i] >= 0 : prefix[i] >= 0 && prefix[i + 1] >= 0;
        if (cand) {
            uint64_t key = ngram_key(n, &prefix[i], hyp[i + n - 1]);
            Py_ssize_t k = first_probe(key, shift);
            for (;;) {
                NSlot *s = &tab[k];
                if (gens[k] != gen)
                    break;
                if (s->key == key) {
                    slot = (int32_t)k;
                    s->hypc++;
                    if (s->hypc <= s->maxc)
                        matched++;
                    break;
                }
                k = (k + 1) & mask;
            }
        }
        prefix[i] = slot;
    }
    prefix[nh] = -1;
    return matched;
}

/* Unigrams counted by id (every id below nids): the matches; hp[i] the
 * hypothesis id where the references have it, else -1, rp the ids. */
static int
unigrams_by_id(Arena *a, const int32_t *hyp, Py_ssize_t hlen, const int32_t *flat,
               const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs, Py_ssize_t nids,
               int32_t *hp, int32_t *rp, Py_ssize_t *matched)
{
    /* best[id] the highest count in one reference, cur[id] the count in
     * the current one, then the hypothesis' */
    Py_ssize_t r, i;
    int32_t *best = ARENA_NEW(a, int32_t, nids * 2), *cur;
    if (best == NULL)
        return -1;
    memset(best, 0, (size_t)nids * 2 * sizeof(int32_t));
    cur = best + nids;
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
        memcpy(rp + offs[r], ids, (size_t)rlens[r] * sizeof(int32_t));
    }
    *matched = 0;
    for (i = 0; i < hlen; i++) {
        int32_t id = hyp[i];
        hp[i] = -1;
        if (id >= 0 && best[id] > 0) {
            hp[i] = id;
            if (++cur[id] <= best[id])
                (*matched)++;
        }
    }
    hp[hlen] = -1;
    return 0;
}

/* nids > 0: every id is below nids (unigrams are then counted in arrays) */
int
clipped_matches(Arena *a, const int32_t *hyp, Py_ssize_t hlen, const int32_t *flat,
                const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
                Py_ssize_t max_n, Py_ssize_t *out, Py_ssize_t nids)
{
    ArenaMark mark = arena_mark(a);
    Py_ssize_t P = 0, maxr = 0, r, n, cap, mask, top, matched;
    int32_t *hp, *rp;
    uint32_t *gens;
    NSlot *tab;
    int shift, rc = -1;

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
    if (P > (Py_ssize_t)(INT32_MAX / 4) || hlen > (Py_ssize_t)INT32_MAX - 1) {
        PyErr_SetString(PyExc_OverflowError, "segment too long");
        return -1;
    }
    cap = pow2_at_least(2 * P + 1);
    mask = cap - 1;
    for (shift = 64; ((Py_ssize_t)1 << (64 - shift)) < cap; shift--)
        ;
    if ((hp = ARENA_NEW(a, int32_t, hlen + 1)) == NULL ||
        (rp = ARENA_NEW(a, int32_t, P)) == NULL || (tab = ARENA_NEW(a, NSlot, cap)) == NULL ||
        (gens = ARENA_NEW(a, uint32_t, cap)) == NULL)
        goto done;
    memset(gens, 0, (size_t)cap * sizeof(uint32_t)); /* no slot is stamped with order 0 */
    n = 1;
    if (nids > 0) {
        if (unigrams_by_id(a, hyp, hlen, flat, offs, rlens, nrefs, nids, hp, rp, &matched) < 0)
            goto done;
        out[0] = matched;
        if (!matched)
            goto finished;
        n = 2;
    }
    for (; n <= top; n++) {
        for (r = 0; r < nrefs; r++)
            add_reference_ngrams(tab, gens, mask, shift, flat + offs[r], rp + offs[r],
                                 rlens[r] - n + 1, n, (int32_t)r);
        matched = match_hypothesis_ngrams(tab, gens, mask, shift, hyp, hp, hlen - n + 1, n);
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
