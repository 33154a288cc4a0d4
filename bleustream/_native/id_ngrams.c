/*
 * id_ngrams.c: clipped n-gram matches of integer token ids (token_bleu.c's
 * matcher).
 *
 * The ids are matched as they are, with no vocabulary pass.  One
 * open-addressing table holds every order's reference n-grams as a trie:
 * an n-gram's key is (its (n-1)-gram prefix's slot, its last id), a unigram's
 * (none, its id), so each key is compared exactly, a hash collision costs
 * a probe, never a count, and the n-grams of orders 1 .. N starting at one
 * position are found by N probes, each from the last one's slot.  Each slot
 * keeps the n-gram's highest count in any one reference; the hypothesis is
 * then counted and clipped in one pass over its positions, which stops at
 * a position's first order absent from the references (a longer n-gram
 * there holds it, so it is absent too).
 *
 * A matcher is made once for a batch's sentences, in an arena, at the
 * largest size they need: its slots are stamped with a generation per
 * sentence instead of being cleared, so a sentence allocates nothing.
 * No Python API is called: it runs with the GIL released.
 */
#include "kernels.h"

struct IdSlot {
    int64_t id;   /* the n-gram's last id */
    uint64_t key; /* the generation (high half), its prefix's slot + 1 (low half) */
    int32_t maxc; /* its highest count in one reference */
    int32_t cnt;  /* its count in the reference being read, then in the hypothesis */
};

#define MAX_SLOTS ((Py_ssize_t)1 << 31) /* a slot's number + 1 fits the key's half */

/* How many n-grams of orders 1 .. max_n a sequence of len ids has. */
int64_t
bs_id_ngram_count(int64_t len, Py_ssize_t max_n)
{
    int64_t k = len < (int64_t)max_n ? len : (int64_t)max_n;
    return k <= 0 ? 0 : k * len - k * (k - 1) / 2;
}

static Py_ssize_t
table_size(int64_t ngrams)
{
    Py_ssize_t cap = 8;
    while ((int64_t)cap < 2 * ngrams + 1)
        cap <<= 1;
    return cap;
}

int
bs_id_matcher_init(IdMatcher *m, Arena *a, Py_ssize_t max_hyp, Py_ssize_t max_ref_ids,
                   int64_t max_ngrams, int several_refs)
{
    if (max_ngrams >= (int64_t)MAX_SLOTS / 2)
        return -1;
    m->cap = table_size(max_ngrams);
    m->gen = 0;
    m->slots = ARENA_NEW(a, IdSlot, m->cap);
    m->hyp_hash = ARENA_NEW(a, uint64_t, max_hyp + 1);
    m->ref_hash = ARENA_NEW(a, uint64_t, max_ref_ids + 1);
    m->seen = several_refs ? ARENA_NEW(a, Py_ssize_t, max_ngrams + 1) : NULL;
    if (m->slots == NULL || m->hyp_hash == NULL || m->ref_hash == NULL ||
        (several_refs && m->seen == NULL))
        return -1;
    memset(m->slots, 0, (size_t)m->cap * sizeof(IdSlot));
    return 0;
}

/* The first probe for (prefix, id), id's hash g: a prefix's slot numbers,
 * multiplied by an odd constant, stay distinct in the low bits. */
static inline Py_ssize_t
first_probe(uint64_t g, uint64_t prefix, Py_ssize_t mask)
{
    return (Py_ssize_t)((g ^ (prefix * NGRAM_MUL)) & (uint64_t)mask);
}

/* The slot of n-gram (prefix, id) of a reference, made if new. */
static inline Py_ssize_t
ref_slot(IdSlot *slots, Py_ssize_t mask, uint64_t stamp, uint64_t prefix, int64_t id, uint64_t g)
{
    const uint64_t key = stamp | prefix;
    Py_ssize_t k = first_probe(g, prefix, mask);
    for (;;) {
        IdSlot *s = &slots[k];
        if (s->key == key && s->id == id)
            return k;
        if ((s->key & ~(uint64_t)UINT32_MAX) != stamp) {
            s->key = key;
            s->id = id;
            s->maxc = 0;
            s->cnt = 0;
            return k;
        }
        k = (k + 1) & mask;
    }
}

/* The slot of n-gram (prefix, id) of the hypothesis, or -1. */
static inline Py_ssize_t
hyp_slot(const IdSlot *slots, Py_ssize_t mask, uint64_t stamp, uint64_t prefix, int64_t id,
         uint64_t g)
{
    const uint64_t key = stamp | prefix;
    Py_ssize_t k = first_probe(g, prefix, mask);
    for (;;) {
        const IdSlot *s = &slots[k];
        if (s->key == key && s->id == id)
            return k;
        if ((s->key & ~(uint64_t)UINT32_MAX) != stamp)
            return -1;
        k = (k + 1) & mask;
    }
}

/* Reference ids[0 .. len) (g: their hashes) into the table: straight into
 * the highest counts when it is the only one, else into the current
 * counts, folded into the highest once it is read. */
static void
add_reference(IdMatcher *m, Py_ssize_t mask, uint64_t stamp, const int64_t *ids,
              const uint64_t *g, Py_ssize_t len, Py_ssize_t max_n, int only)
{
    IdSlot *slots = m->slots;
    Py_ssize_t i, n, seen = 0;
    for (i = 0; i < len; i++) {
        Py_ssize_t top = len - i < max_n ? len - i : max_n;
        uint64_t prefix = 0;
        for (n = 0; n < top; n++) {
            Py_ssize_t k = ref_slot(slots, mask, stamp, prefix, ids[i + n], g[i + n]);
            if (only)
                slots[k].maxc++;
            else {
                slots[k].cnt++;
                m->seen[seen++] = k;
            }
            prefix = (uint64_t)k + 1;
        }
    }
    for (i = 0; i < seen; i++) {
        IdSlot *s = &slots[m->seen[i]];
        if (s->cnt > s->maxc)
            s->maxc = s->cnt;
        s->cnt = 0;
    }
}

int
bs_id_matches(IdMatcher *m, const int64_t *hyp, Py_ssize_t hlen, const int64_t *refs,
              const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
              Py_ssize_t max_n, Py_ssize_t *out)
{
    Py_ssize_t i, n, r, P = 0, mask;
    const uint64_t *g = m->hyp_hash;
    uint64_t stamp;
    int64_t ngrams = 0;

    for (n = 0; n < max_n; n++)
        out[n] = 0;
    for (r = 0; r < nrefs; r++) {
        P = offs[r] + rlens[r] > P ? offs[r] + rlens[r] : P;
        ngrams += bs_id_ngram_count(rlens[r], max_n);
    }
    if (hlen == 0 || ngrams == 0)
        return 0;
    mask = table_size(ngrams) - 1;
    if (mask >= m->cap)
        return -1; /* the caller sized the matcher for fewer n-grams */
    if (++m->gen == 0) { /* every generation used: clear the table */
        memset(m->slots, 0, (size_t)m->cap * sizeof(IdSlot));
        m->gen = 1;
    }
    stamp = (uint64_t)m->gen << 32;
    for (i = 0; i < P; i++)
        m->ref_hash[i] = mix64((uint64_t)refs[i]);
    for (i = 0; i < hlen; i++)
        m->hyp_hash[i] = mix64((uint64_t)hyp[i]);
    for (r = 0; r < nrefs; r++)
        add_reference(m, mask, stamp, refs + offs[r], m->ref_hash + offs[r], rlens[r], max_n,
                      nrefs == 1);
    for (i = 0; i < hlen; i++) {
        Py_ssize_t top = hlen - i < max_n ? hlen - i : max_n;
        uint64_t prefix = 0;
        for (n = 0; n < top; n++) {
            Py_ssize_t k = hyp_slot(m->slots, mask, stamp, prefix, hyp[i + n], g[i + n]);
            if (k < 0)
                break;
            if (++m->slots[k].cnt <= m->slots[k].maxc)
                out[n]++;
            prefix = (uint64_t)k + 1;
        }
    }
    return 0;
}
