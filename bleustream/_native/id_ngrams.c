/*
 * id_ngrams.c: clipped n-gram matches of integer token ids (token_bleu.c's
 * matcher).
 *
 * The ids are matched as they are, with no vocabulary pass.  Two
 * open-addressing tables hold a sentence's reference n-grams as a trie:
 *
 * - the unigram table, keyed by the id itself;
 * - the n-gram table (orders 2 .. N), keyed by one number: the number of
 *   the n-gram's (n-1)-gram prefix (its unigram slot, or the unigram
 *   table's size plus its n-gram slot) in the high bits, and the unigram
 *   slot of its last id in the low bits.  Narrow: a 32-bit key, 16-bit
 *   stamp and count in 8 bytes, when every sentence of the batch fits
 *   them (up to 4,095 reference ids at order 4); else wide, as the unigrams.
 *
 * So each key is compared exactly (two n-grams have the same key exactly
 * when they are the same ids), and a hash collision costs a probe, never a
 * count.  A reference is read id by id: one unigram probe, then one probe
 * per higher order for the n-grams ending at the id, each keyed by the
 * slot of its prefix, the n-gram of one order less ending at the id
 * before (so no probe waits on another of the same id).  A slot keeps the
 * n-gram's highest count in any one reference; the hypothesis then takes
 * from it, one a match, in one pass over its positions that stops at a
 * position's first order absent from the references (a longer n-gram
 * there holds it, so it is absent too).
 *
 * The unigram probes settle their first slot without a branch between a
 * new id and a known one, or a present one and an absent one: ids repeat
 * and go missing unpredictably, and a wrong guess there waits on the
 * slot's load.  At 256 x 1,024 ids on one thread: 7.9 ms with branches,
 * 6.6 without, 5.4 with narrow n-gram slots (and ids read in place).
 *
 * The first probe is a multiplicative hash of the key, fast on real ids,
 * and known: ids chosen from its inverse (k * NGRAM_MUL^-1 mod 2^64 for
 * k = 0, 1, 2 ...) all have slot 0, so each probe walks past all the ids
 * before it, and a caller choosing ids (a reward served to others) can
 * do that on purpose: a sentence of 32,000 such ids took 0.92 s, of
 * random ones 2 ms; 64,000, 3.7 s.  So a sentence's probes past their
 * first slot have a budget, PROBE_BUDGET a probe (linear probing at most
 * half full takes 1.5 on a miss, on average); a sentence that spends it
 * stops short and is matched again from the start with each id keyed
 * first: mix64(id ^ key), a bijection of 64-bit ids (equal ids stay
 * equal, distinct ones distinct), with a key made per call from Python's
 * per-process hash secret (bs_id_hash_key), which the caller does not
 * know.  Real ids do not spend it, and cost one count per probe past the
 * first slot; chosen ones cost at most the budget more than the keyed
 * matching (benchmarks/bench_token_bleu.py: within 3x of random ids).
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

/* An n-gram slot of half the size, for a batch whose keys fit 32 bits
 * (prefix number << the unigram table's bits | last id's unigram slot) and
 * counts 16 bits: its table takes half the cache (256 x 1,024 ids: 6.0 ms
 * wide, 5.4 narrow). */
typedef struct {
    uint32_t key;
    uint16_t stamp; /* the generation's low 16 bits: the tables are cleared as they wrap */
    uint16_t count;
} NarrowSlot;

/* A sentence's probes past the first slot: at most this many per probe
 * (and 1,024), else it is matched again with its ids keyed. */
#define PROBE_BUDGET 2
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

/* Both tables emptied. */
static void
clear_tables(IdMatcher *m)
{
    memset(m->uni, 0, (size_t)m->ucap * sizeof(IdSlot));
    memset(m->high, 0, (size_t)m->hcap * (m->narrow ? sizeof(NarrowSlot) : sizeof(IdSlot)));
}

uint64_t
bs_id_hash_key(void)
{
    static uint64_t process_key, calls;
    if (process_key == 0) {
        /* bytes hash with SipHash and the process's random secret (fixed
         * only by PYTHONHASHSEED), mixed with where the module was loaded */
        PyObject *b = PyBytes_FromString("bleustream id_ngrams");
        Py_hash_t h = b == NULL ? -1 : PyObject_Hash(b);
        Py_XDECREF(b);
        if (h == -1)
            PyErr_Clear();
        process_key = mix64((uint64_t)h ^ (uint64_t)(uintptr_t)&process_key) | 1;
    }
    return mix64(process_key + ++calls * NGRAM_MUL);
}

int
bs_id_matcher_init(IdMatcher *m, Arena *a, Py_ssize_t max_hyp, Py_ssize_t max_ref_ids,
                   int64_t max_ngrams, int several_refs, uint64_t key)
{
    int ubits, hbits;
    if (max_ngrams >= (int64_t)MAX_SLOTS / 2 || (int64_t)max_ref_ids >= (int64_t)MAX_SLOTS / 2)
        return -1;
    ubits = table_bits(max_ref_ids);
    hbits = table_bits(max_ngrams); /* a bound on any sentence's higher orders */
    m->ucap = (Py_ssize_t)1 << ubits;
    m->hcap = (Py_ssize_t)1 << hbits;
    /* a prefix number is below ucap + hcap, a count at most a reference's length */
    m->narrow = (ubits > hbits ? ubits : hbits) + 1 + ubits <= 32 && max_ref_ids <= UINT16_MAX;
    m->gen = 0;
    m->last_gen = m->narrow ? UINT16_MAX : UINT32_MAX;
    m->uni = ARENA_NEW(a, IdSlot, m->ucap);
    m->high = m->narrow ? (void *)ARENA_NEW(a, NarrowSlot, m->hcap)
                        : (void *)ARENA_NEW(a, IdSlot, m->hcap);
    m->hyp_uni = ARENA_NEW(a, int32_t, max_hyp + 1);
    m->ref_uni = ARENA_NEW(a, int32_t, max_ref_ids + 1);
    m->key = key;
    m->keyed = ARENA_NEW(a, int64_t, max_hyp + max_ref_ids + 2);
    m->cnt = several_refs ? ARENA_NEW(a, int32_t, m->ucap + m->hcap) : NULL;
    m->seen = several_refs ? ARENA_NEW(a, int32_t, max_ngrams + 1) : NULL;
    if (m->uni == NULL || m->high == NULL || m->hyp_uni == NULL || m->ref_uni == NULL ||
        m->keyed == NULL ||
        (several_refs && (m->cnt == NULL || m->seen == NULL)))
        return -1;
    clear_tables(m);
    if (several_refs)
        memset(m->cnt, 0, (size_t)(m->ucap + m->hcap) * sizeof(int32_t));
    return 0;
}

/* A sentence's view of one table: its slots, its size for the sentence's
 * n-grams, its stamp, and the sentence's probe budget.  Passed by value,
 * so that its fields stay in registers while slots are written. */
typedef struct {
    IdSlot *slots;
    Py_ssize_t mask; /* its slots - 1 */
    int shift;       /* 64 - its bits: a hash's top bits are its first probe */
    uint32_t stamp;
    int64_t *budget; /* the matcher's: probes past the first slot left */
} Table;

/* A sentence's narrow n-gram table: as Table, with a 16-bit stamp. */
typedef struct {
    NarrowSlot *slots;
    Py_ssize_t mask;
    int shift;
    uint16_t stamp;
    int64_t *budget;
} NarrowTable;

/* A linear probe of a table TABLE of SLOTs keyed by KEY, written once for
 * both slot sizes:
 * - PUT(t, key, one): the slot of `key`, made if new (its count `one`),
 *   else `one` more in its count;
 * - GET(t, key): its slot, or ABSENT;
 * - TAKE(s): a match of slot s, if the references have one left: 1, else 0.
 * Each probe past the first slot spends one of the budget; once it is spent
 * (the sentence is matched again), PUT gives the slot it reached, GET
 * ABSENT: any slot, but one in the table. */
#define DEFINE_PROBES(TABLE, SLOT, KEY, PUT, GET, TAKE)                                         \
    static inline Py_ssize_t PUT(TABLE t, KEY key, int one)                                     \
    {                                                                                           \
        Py_ssize_t k = first_probe(key, t.shift);                                               \
        for (;;) {                                                                              \
            SLOT *s = &t.slots[k];                                                              \
            if (s->stamp != t.stamp) {                                                          \
                s->stamp = t.stamp;                                                             \
                s->key = key;                                                                   \
                s->count = one;                                                                 \
                return k;                                                                       \
            }                                                                                   \
            if (s->key == key) {                                                                \
                s->count += one;                                                                \
                return k;                                                                       \
            }                                                                                   \
            k = (k + 1) & t.mask;                                                               \
            if (--*t.budget < 0)                                                                \
                return k;                                                                       \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    static inline Py_ssize_t GET(TABLE t, KEY key)                                              \
    {                                                                                           \
        Py_ssize_t k = first_probe(key, t.shift);                                               \
        for (;;) {                                                                              \
            const SLOT *s = &t.slots[k];                                                        \
            if (s->stamp != t.stamp)                                                            \
                return ABSENT;                                                                  \
            if (s->key == key)                                                                  \
                return k;                                                                       \
            k = (k + 1) & t.mask;                                                               \
            if (--*t.budget < 0)                                                                \
                return ABSENT;                                                                  \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    static inline Py_ssize_t TAKE(SLOT *s)                                                      \
    {                                                                                           \
        int left = s->count > 0;                                                                \
        s->count -= left;                                                                       \
        return left;                                                                            \
    }

DEFINE_PROBES(Table, IdSlot, uint64_t, put, get, take)
DEFINE_PROBES(NarrowTable, NarrowSlot, uint32_t, narrow_put, narrow_get, narrow_take)

/* put, and one more in the slot's count, for ids that repeat: the first
 * probe settles a new key and a known one alike, without a branch between
 * them (one that waits on the slot's load, and is guessed wrong as often
 * as ids repeat). */
static inline Py_ssize_t
count_repeating(Table t, uint64_t key)
{
    Py_ssize_t k = first_probe(key, t.shift);
    IdSlot *s = &t.slots[k];
    int fresh = s->stamp != t.stamp, settled = fresh | (s->key == key);
    BS_SETTLED(settled);
    if (settled) {
        s->count = (s->count & ((int32_t)fresh - 1)) + 1; /* a fresh slot's count is 0 */
        s->stamp = t.stamp;
        s->key = key;
        return k;
    }
    return put(t, key, 1);
}

/* get, for keys often absent: the first probe gives the slot or ABSENT
 * without a branch between them. */
static inline Py_ssize_t
get_often_absent(Table t, uint64_t key)
{
    Py_ssize_t k = first_probe(key, t.shift);
    const IdSlot *s = &t.slots[k];
    int fresh = s->stamp != t.stamp, settled = fresh | (s->key == key);
    BS_SETTLED(settled);
    if (settled)
        return k | -(Py_ssize_t)fresh; /* ABSENT is -1 */
    return get(t, key);
}

/* One more of n-gram `number` (a unigram slot, or the unigram table's
 * size plus an n-gram slot) in the reference being read, when it is one of
 * several: into the current counts, whose numbers m->seen lists. */
static inline void
count_in(IdMatcher *m, Py_ssize_t number, Py_ssize_t *seen)
{
    if (m->cnt[number]++ == 0)
        m->seen[(*seen)++] = (int32_t)number;
}

/* The n-gram table's slot of (prefix, last), made if new, one more in its
 * count if `one`: in the narrow table (nt, its key prefix << ubits | last)
 * or the wide one (ht), as `narrow` says.  A prefix is a unigram slot, or
 * the unigram table's size plus an n-gram slot. */
BS_ALWAYS_INLINE Py_ssize_t
put_ngram(Table ht, NarrowTable nt, int ubits, int narrow, uint64_t prefix, uint64_t last, int one)
{
    if (narrow)
        return narrow_put(nt, (uint32_t)(prefix << ubits | last), one);
    return put(ht, prefix << 32 | last, one);
}

/* Its slot, or ABSENT. */
BS_ALWAYS_INLINE Py_ssize_t
get_ngram(Table ht, NarrowTable nt, int ubits, int narrow, uint64_t prefix, uint64_t last)
{
    if (narrow)
        return narrow_get(nt, (uint32_t)(prefix << ubits | last));
    return get(ht, prefix << 32 | last);
}

/* A reference's counts, when it is one of several, into the highest of
 * any one reference; the current counts cleared. */
BS_ALWAYS_INLINE void
fold_counts(IdMatcher *m, Table ut, Table ht, NarrowTable nt, int narrow, Py_ssize_t seen)
{
    const Py_ssize_t ucap = ut.mask + 1;
    Py_ssize_t i;
    for (i = 0; i < seen; i++) {
        Py_ssize_t number = m->seen[i], k = number - ucap;
        int32_t count = m->cnt[number];
        if (number < ucap) {
            if (count > ut.slots[number].count)
                ut.slots[number].count = count;
        }
        else if (narrow) {
            if (count > nt.slots[k].count)
                nt.slots[k].count = (uint16_t)count;
        }
        else if (count > ht.slots[k].count)
            ht.slots[k].count = count;
        m->cnt[number] = 0;
    }
}

/* Reference ids[0 .. len) into the tables (uni: each id's unigram slot);
 * `only` (the only reference) and `narrow` are constants where it is
 * called, so each caller gets its loops. */
BS_ALWAYS_INLINE void
add_reference(IdMatcher *m, Table ut, Table ht, NarrowTable nt, int narrow, const int64_t *ids,
              int32_t *uni, Py_ssize_t len, Py_ssize_t max_n, int only)
{
    const uint64_t ucap = (uint64_t)ut.mask + 1;
    const int ubits = 64 - ut.shift;
    Py_ssize_t i, n, seen = 0;
    int32_t ends[MAX_TOKEN_ORDER + 1]; /* ends[n]: the n-gram ending at the last id's slot */
    memset(ends, 0, (size_t)(max_n + 1) * sizeof(int32_t)); /* read, unused, at the first id */
    for (i = 0; i < len; i++) {
        Py_ssize_t k;
        if (only)
            k = count_repeating(ut, (uint64_t)ids[i]);
        else {
            k = put(ut, (uint64_t)ids[i], 0);
            count_in(m, k, &seen);
        }
        uni[i] = (int32_t)k;
    }
    /* the n-grams ending at each id: each one's prefix, the (n-1)-gram ending
     * at the id before, is known before this id's probes, so they overlap */
    for (i = 1; i < len; i++) {
        Py_ssize_t top = i + 1 < max_n ? i + 1 : max_n;
        uint64_t prefix = (uint64_t)uni[i - 1], last = (uint64_t)uni[i];
        for (n = 2; n <= top; n++) {
            Py_ssize_t k = put_ngram(ht, nt, ubits, narrow, prefix, last, only);
            if (!only)
                count_in(m, (Py_ssize_t)ucap + k, &seen);
            prefix = ucap + (uint64_t)ends[n];
            ends[n] = (int32_t)k;
        }
    }
    if (!only)
        fold_counts(m, ut, ht, nt, narrow, seen);
}

/* A table's view for a sentence of `items` keys. */
static Table
sentence_table(IdSlot *slots, int64_t items, uint32_t stamp, int64_t *budget)
{
    int bits = table_bits(items);
    Table t = {slots, ((Py_ssize_t)1 << bits) - 1, 64 - bits, stamp, budget};
    return t;
}

/* A new stamp for a sentence, the tables cleared when every one is used. */
static uint32_t
next_stamp(IdMatcher *m)
{
    if (m->gen == m->last_gen) {
        clear_tables(m);
        m->gen = 0;
    }
    return ++m->gen;
}

/* The hypothesis' n-grams of orders 2 .. max_n against the references',
 * from its unigram slots hu[]: out[n - 1] += the clipped matches.  From
 * each id on, one probe an order, stopping at the first absent one (a
 * longer n-gram there holds it, so it is absent too). */
BS_ALWAYS_INLINE void
match_hypothesis(Table ut, Table ht, NarrowTable nt, int narrow, const int32_t *hu,
                 Py_ssize_t hlen, Py_ssize_t max_n, Py_ssize_t *out)
{
    const uint64_t ucap = (uint64_t)ut.mask + 1;
    const int ubits = 64 - ut.shift;
    Py_ssize_t i, n;
    for (i = 0; i + 1 < hlen; i++) {
        Py_ssize_t top = hlen - i < max_n ? hlen - i : max_n;
        uint64_t prefix = (uint64_t)hu[i];
        if (hu[i] == ABSENT)
            continue;
        for (n = 1; n < top; n++) {
            Py_ssize_t k;
            if (hu[i + n] == ABSENT)
                break;
            k = get_ngram(ht, nt, ubits, narrow, prefix, (uint64_t)hu[i + n]);
            if (k == ABSENT)
                break;
            out[n] += narrow ? narrow_take(&nt.slots[k]) : take(&ht.slots[k]);
            prefix = ucap + (uint64_t)k;
        }
    }
}

/* match_hypothesis for each kind of n-gram table, each a function of its
 * own.  The code's arrangement moves its time more than it should: this
 * one (the reference's loops and the hypothesis' unigrams inlined in
 * bs_id_matches, this pass apart) took 5.4 ms at 256 x 1,024 ids; the
 * same code all inlined, or with the unigrams apart too, 5.9 to 6.2. */
static void
match_narrow(Table ut, Table ht, NarrowTable nt, const int32_t *hu, Py_ssize_t hlen,
             Py_ssize_t max_n, Py_ssize_t *out)
{
    match_hypothesis(ut, ht, nt, 1, hu, hlen, max_n, out);
}

static void
match_wide(Table ut, Table ht, NarrowTable nt, const int32_t *hu, Py_ssize_t hlen,
           Py_ssize_t max_n, Py_ssize_t *out)
{
    match_hypothesis(ut, ht, nt, 0, hu, hlen, max_n, out);
}

/* bs_id_matches of a sentence of ref_ids reference ids and ngrams
 * n-grams, out[] zeroed, within m->budget probes past the first slot
 * (spent, the counts are any). */
static int
match_sentence(IdMatcher *m, const int64_t *hyp, Py_ssize_t hlen, const int64_t *refs,
               const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
               Py_ssize_t max_n, Py_ssize_t *out, int64_t ref_ids, int64_t ngrams)
{
    Py_ssize_t i, r;
    int32_t *hu = m->hyp_uni;
    Table ut, ht;
    NarrowTable nt;
    uint32_t stamp;

    stamp = next_stamp(m);
    ut = sentence_table(m->uni, ref_ids, stamp, &m->budget);
    ht = sentence_table((IdSlot *)m->high, ngrams - ref_ids, stamp, &m->budget);
    if (ut.mask >= m->ucap || ht.mask >= m->hcap)
        return -1; /* the caller sized the matcher for fewer n-grams */
    nt.slots = (NarrowSlot *)m->high;
    nt.mask = ht.mask;
    nt.shift = ht.shift;
    nt.stamp = (uint16_t)stamp;
    nt.budget = &m->budget;
    for (r = 0; r < nrefs; r++) { /* each kind of table and reference its loops */
        const int64_t *ids = refs + offs[r];
        int32_t *uni = m->ref_uni + offs[r];
        if (nrefs == 1 && m->narrow)
            add_reference(m, ut, ht, nt, 1, ids, uni, rlens[r], max_n, 1);
        else if (nrefs == 1)
            add_reference(m, ut, ht, nt, 0, ids, uni, rlens[r], max_n, 1);
        else if (m->narrow)
            add_reference(m, ut, ht, nt, 1, ids, uni, rlens[r], max_n, 0);
        else
            add_reference(m, ut, ht, nt, 0, ids, uni, rlens[r], max_n, 0);
    }
    /* the hypothesis' unigrams: hu[i], each one's slot or ABSENT */
    {
        IdSlot none = {0, 0, 0}; /* where an absent id takes from: it has none */
        Py_ssize_t got = 0;
        for (i = 0; i < hlen; i++) {
            Py_ssize_t k = get_often_absent(ut, (uint64_t)hyp[i]);
            hu[i] = (int32_t)k;
            got += take(k == ABSENT ? &none : &ut.slots[k]);
        }
        out[0] = got;
    }
    if (m->narrow)
        match_narrow(ut, ht, nt, hu, hlen, max_n, out);
    else
        match_wide(ut, ht, nt, hu, hlen, max_n, out);
    return 0;
}

/* Ids keyed: mix64(id ^ key), a bijection of 64-bit values. */
static void
key_ids(int64_t *to, const int64_t *ids, Py_ssize_t len, uint64_t key)
{
    Py_ssize_t i;
    for (i = 0; i < len; i++)
        to[i] = (int64_t)mix64((uint64_t)ids[i] ^ key);
}

int
bs_id_matches(IdMatcher *m, const int64_t *hyp, Py_ssize_t hlen, const int64_t *refs,
              const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
              Py_ssize_t max_n, Py_ssize_t *out)
{
    Py_ssize_t n, r;
    int64_t ngrams = 0, ref_ids = 0, *keyed_refs = m->keyed + hlen + 1;
    int rc;

    for (n = 0; n < max_n; n++)
        out[n] = 0;
    for (r = 0; r < nrefs; r++) {
        ref_ids += rlens[r];
        ngrams += bs_id_ngram_count(rlens[r], max_n);
    }
    if (hlen == 0 || ngrams == 0)
        return 0;
    if (max_n > MAX_TOKEN_ORDER)
        return -1;
    /* every probe: the references' n-grams, and the hypothesis' (an id's
     * higher orders only while present) */
    m->budget = PROBE_BUDGET * (ngrams + (int64_t)hlen * max_n) + 1024;
    rc = match_sentence(m, hyp, hlen, refs, offs, rlens, nrefs, max_n, out, ref_ids, ngrams);
    if (rc < 0 || m->budget >= 0)
        return rc;
    /* the probes ran long: again, with the ids keyed, to the end */
    key_ids(m->keyed, hyp, hlen, m->key);
    for (r = 0; r < nrefs; r++)
        key_ids(keyed_refs + offs[r], refs + offs[r], rlens[r], m->key);
    for (n = 0; n < max_n; n++)
        out[n] = 0;
    m->budget = INT64_MAX;
    return match_sentence(m, m->keyed, hlen, keyed_refs, offs, rlens, nrefs, max_n, out,
                          ref_ids, ngrams);
}
