/*
 * id_ngrams.c: clipped n-gram matches of integer token ids (token_bleu.c's
 * matcher).
 *
 * The ids are matched as they are, with no vocabulary pass.  Two
 * open-addressing tables hold a sentence's reference n-grams as a trie:
 *
 * - the unigram table, keyed by the id itself;
 * - the n-gram table (orders 2 .. N), keyed by one 64-bit number: the
 *   number of the n-gram's (n-1)-gram prefix (its unigram slot, or the
 *   unigram table's size plus its n-gram slot) in the high half, and the
 *   unigram slot of its last id in the low half.
 *
 * So each key is compared exactly (two n-grams have the same key exactly
 * when they are the same ids), a hash collision costs a probe, never a
 * count, and the n-grams of orders 1 .. N starting at one position are
 * found by one unigram probe per id and one probe per higher order, each
 * from the last one's slot.  A slot keeps the n-gram's highest count in
 * any one reference; the hypothesis then takes from it, one a match, in
 * one pass over its positions that stops at a position's first order
 * absent from the references (a longer n-gram there holds it, so it is
 * absent too).
 *
 * A matcher is made once for a batch's sentences, in an arena, at the
 * largest size they need: its slots are stamped with a generation per
 * sentence instead of being cleared, so a sentence allocates nothing.
 * No Python API is called: it runs with the GIL released.
 */
#include "kernels.h"

struct IdSlot {
    uint64_t key;   /* the id (unigrams), or (prefix number << 32 | last id's unigram slot) */
    uint32_t stamp; /* the generation of the sentence that filled it */
    int32_t count;  /* its highest count in one reference, less the hypothesis' matches */
};

#define MAX_SLOTS ((Py_ssize_t)1 << 31) /* both tables' slot numbers fit a key's half */
#define ABSENT (-1)

/* How many n-grams of orders 1 .. max_n a sequence of len ids has. */
int64_t
bs_id_ngram_count(int64_t len, Py_ssize_t max_n)
{
    int64_t k = len < (int64_t)max_n ? len : (int64_t)max_n;
    return k <= 0 ? 0 : k * len - k * (k - 1) / 2;
}

#define ROOMY_SLOTS ((int64_t)1 << 16) /* 1 MiB of slots */

/* The number of bits of a table for `items` keys: at most an eighth full
 * while that takes at most ROOMY_SLOTS slots, else at most half full.  A
 * roomy table makes fewer probe chains, and each chain ends in a branch
 * the processor cannot guess (at 256 x 1,024 ids: 10.3 ms half full,
 * 8.3 a quarter, 7.9 an eighth; with a stronger hash, 13 ms). */
static int
table_bits(int64_t items)
{
    int bits = 3;
    int64_t want = 8 * items + 1;
    if (want > ROOMY_SLOTS)
        want = 2 * items + 1 > ROOMY_SLOTS ? 2 * items + 1 : ROOMY_SLOTS;
    while (((int64_t)1 << bits) < want)
        bits++;
    return bits;
}

int
bs_id_matcher_init(IdMatcher *m, Arena *a, Py_ssize_t max_hyp, Py_ssize_t max_ref_ids,
                   int64_t max_ngrams, int several_refs)
{
    if (max_ngrams >= (int64_t)MAX_SLOTS / 2 || (int64_t)max_ref_ids >= (int64_t)MAX_SLOTS / 2)
        return -1;
    m->ucap = (Py_ssize_t)1 << table_bits(max_ref_ids);
    m->hcap = (Py_ssize_t)1 << table_bits(max_ngrams); /* a bound on any sentence's higher orders */
    m->gen = 0;
    m->uni = ARENA_NEW(a, IdSlot, m->ucap);
    m->high = ARENA_NEW(a, IdSlot, m->hcap);
    m->hyp_uni = ARENA_NEW(a, int32_t, max_hyp + 1);
    m->ref_uni = ARENA_NEW(a, int32_t, max_ref_ids + 1);
    m->cnt = several_refs ? ARENA_NEW(a, int32_t, m->ucap + m->hcap) : NULL;
    m->seen = several_refs ? ARENA_NEW(a, int32_t, max_ngrams + 1) : NULL;
    if (m->uni == NULL || m->high == NULL || m->hyp_uni == NULL || m->ref_uni == NULL ||
        (several_refs && (m->cnt == NULL || m->seen == NULL)))
        return -1;
    memset(m->uni, 0, (size_t)m->ucap * sizeof(IdSlot));
    memset(m->high, 0, (size_t)m->hcap * sizeof(IdSlot));
    if (several_refs)
        memset(m->cnt, 0, (size_t)(m->ucap + m->hcap) * sizeof(int32_t));
    return 0;
}

/* A sentence's view of the tables: their sizes for its n-grams, its stamp. */
typedef struct {
    IdSlot *uni, *high;
    uint32_t stamp;
    int ushift, hshift;      /* 64 - a table's bits: a hash's top bits are its first probe */
    Py_ssize_t umask, hmask; /* a table's slots - 1 */
} Tables;

/* The slot of `key` in `slots`, made if new (made: its count 0). */
static inline Py_ssize_t
put(IdSlot *slots, Py_ssize_t mask, int shift, uint32_t stamp, uint64_t key)
{
    Py_ssize_t k = first_probe(key, shift);
    for (;;) {
        IdSlot *s = &slots[k];
        if (s->stamp != stamp) {
            s->stamp = stamp;
            s->key = key;
            s->count = 0;
            return k;
        }
        if (s->key == key)
            return k;
        k = (k + 1) & mask;
    }
}

/* The slot of `key` in `slots`, or ABSENT. */
static inline Py_ssize_t
get(const IdSlot *slots, Py_ssize_t mask, int shift, uint32_t stamp, uint64_t key)
{
    Py_ssize_t k = first_probe(key, shift);
    for (;;) {
        const IdSlot *s = &slots[k];
        if (s->stamp != stamp)
            return ABSENT;
        if (s->key == key)
            return k;
        k = (k + 1) & mask;
    }
}

/* The key of the n-gram (prefix, last): prefix is a unigram slot, or the
 * unigram table's size plus an n-gram slot. */
static inline uint64_t
high_key(uint64_t prefix, Py_ssize_t last)
{
    return prefix << 32 | (uint64_t)last;
}

/* One more of a slot in the reference being read: straight into its count
 * when the reference is the only one, else into the current counts. */
static inline void
add_one(IdMatcher *m, IdSlot *s, Py_ssize_t number, Py_ssize_t *seen, int only)
{
    if (only)
        s->count++;
    else if (m->cnt[number]++ == 0)
        m->seen[(*seen)++] = (int32_t)number;
}

/* Reference ids[0 .. len) into the tables (uni: each id's unigram slot). */
static void
add_reference(IdMatcher *m, const Tables *t, const int64_t *ids, int32_t *uni, Py_ssize_t len,
              Py_ssize_t max_n, int only)
{
    const uint64_t ucap = (uint64_t)t->umask + 1;
    Py_ssize_t i, n, seen = 0;
    for (i = 0; i < len; i++) {
        Py_ssize_t k = put(t->uni, t->umask, t->ushift, t->stamp, (uint64_t)ids[i]);
        uni[i] = (int32_t)k;
        add_one(m, &t->uni[k], k, &seen, only);
    }
    for (i = 0; i + 1 < len; i++) {
        Py_ssize_t top = len - i < max_n ? len - i : max_n;
        uint64_t prefix = (uint64_t)uni[i];
        for (n = 1; n < top; n++) {
            Py_ssize_t k = put(t->high, t->hmask, t->hshift, t->stamp, high_key(prefix, uni[i + n]));
            add_one(m, &t->high[k], (Py_ssize_t)ucap + k, &seen, only);
            prefix = ucap + (uint64_t)k;
        }
    }
    for (i = 0; i < seen; i++) { /* fold this reference's counts into the highest */
        Py_ssize_t number = m->seen[i];
        IdSlot *s = number < (Py_ssize_t)ucap ? &t->uni[number] : &t->high[number - ucap];
        if (m->cnt[number] > s->count)
            s->count = m->cnt[number];
        m->cnt[number] = 0;
    }
}

/* A match of a slot, if the references have one left: 1, else 0. */
static inline Py_ssize_t
take(IdSlot *s)
{
    int32_t left = s->count > 0;
    s->count -= left;
    return left;
}

/* The tables' sizes and shifts for a sentence's references, a new stamp. */
static int
sentence_tables(IdMatcher *m, Tables *t, int64_t ref_ids, int64_t ngrams)
{
    int ubits = table_bits(ref_ids), hbits = table_bits(ngrams - ref_ids);
    t->umask = ((Py_ssize_t)1 << ubits) - 1;
    t->hmask = ((Py_ssize_t)1 << hbits) - 1;
    if (t->umask >= m->ucap || t->hmask >= m->hcap)
        return -1; /* the caller sized the matcher for fewer n-grams */
    t->ushift = 64 - ubits;
    t->hshift = 64 - hbits;
    if (++m->gen == 0) { /* every generation used: clear the tables */
        memset(m->uni, 0, (size_t)m->ucap * sizeof(IdSlot));
        memset(m->high, 0, (size_t)m->hcap * sizeof(IdSlot));
        m->gen = 1;
    }
    t->stamp = m->gen;
    t->uni = m->uni;
    t->high = m->high;
    return 0;
}

int
bs_id_matches(IdMatcher *m, const int64_t *hyp, Py_ssize_t hlen, const int64_t *refs,
              const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
              Py_ssize_t max_n, Py_ssize_t *out)
{
    Py_ssize_t i, n, r;
    int64_t ngrams = 0, ref_ids = 0;
    int32_t *hu = m->hyp_uni;
    Tables t;
    uint64_t ucap;

    for (n = 0; n < max_n; n++)
        out[n] = 0;
    for (r = 0; r < nrefs; r++) {
        ref_ids += rlens[r];
        ngrams += bs_id_ngram_count(rlens[r], max_n);
    }
    if (hlen == 0 || ngrams == 0)
        return 0;
    if (sentence_tables(m, &t, ref_ids, ngrams) < 0)
        return -1;
    ucap = (uint64_t)t.umask + 1;
    for (r = 0; r < nrefs; r++)
        add_reference(m, &t, refs + offs[r], m->ref_uni + offs[r], rlens[r], max_n, nrefs == 1);
    for (i = 0; i < hlen; i++) {
        Py_ssize_t k = get(t.uni, t.umask, t.ushift, t.stamp, (uint64_t)hyp[i]);
        hu[i] = (int32_t)k;
        if (k != ABSENT)
            out[0] += take(&t.uni[k]);
    }
    for (i = 0; i + 1 < hlen; i++) {
        Py_ssize_t top = hlen - i < max_n ? hlen - i : max_n;
        uint64_t prefix = (uint64_t)hu[i];
        if (hu[i] == ABSENT)
            continue;
        for (n = 1; n < top; n++) {
            Py_ssize_t k;
            if (hu[i + n] == ABSENT)
                break;
            k = get(t.high, t.hmask, t.hshift, t.stamp, high_key(prefix, hu[i + n]));
            if (k == ABSENT)
                break;
            out[n] += take(&t.high[k]);
            prefix = ucap + (uint64_t)k;
        }
    }
    return 0;
}
