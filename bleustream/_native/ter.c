/*
 * ter.c: TER's number of edits (shifts plus beam-limited edit distance),
 * bleustream.metrics.ter_search.py_count_edits in C.
 *
 * This is a port of the pure module, decision for decision (read its
 * docstring for why each step gives SacreBLEU's result):
 *
 * - words are the reference's ids (ref.vocab, ref.ids), every word the
 *   reference lacks one "unknown" id (len(ref.vocab));
 * - while n * m <= max_exact_cells (ter_search.MAX_EXACT_CELLS), the exact
 *   edit distance comes from Myers' bit-parallel algorithm on uint64_t
 *   blocks (any m), every row of the current hypothesis kept (vp, vn, hp,
 *   hn) for its trace and for candidates that share a prefix; within
 *   ``bound`` it is the beam DP's distance, and its trace the beam DP's;
 * - otherwise the beam-limited DP is SacreBLEU's, cell by cell (its INF
 *   cells and its tie-breaking), its rows of the current hypothesis kept
 *   so that a candidate only computes the rows after its first change;
 * - shift candidates, SacreBLEU's, in the pure module's enumeration and
 *   counting (the 1000-candidate cap voids the round), scored in the pure
 *   module's order of potential with the same prunings, the best being
 *   the greatest (gain, length, -start, -target); the lower-bound stop.
 *
 * One extra shortcut, exact too: a candidate's rows (Myers' or the beam
 * DP's) that equal the current hypothesis's at the first unchanged word
 * give the current distance, so the rest is not computed.
 *
 * Scratch memory is one PyMem block per call, laid out in advance
 * (block_reserve) and freed on every path; no Python code runs while it is
 * live (dict lookups are of exact str keys' hashes, and the inputs are
 * held).
 */
#include "kernels.h"

#include <math.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>


/* tercom's limits, as SacreBLEU (and bleustream.metrics.ter_search) set them */
#define TER_MAX_SHIFT_SIZE 10
#define TER_MAX_SHIFT_DIST 50
#define TER_BEAM_WIDTH 25
#define TER_MAX_SHIFT_CANDIDATES 1000
/* ter_search.MAX_EXACT_CELLS, the default of the optional third argument */
#define TER_MAX_EXACT_CELLS ((long long)1 << 24)
/* SacreBLEU's infinity, scaled to int32_t: only compared, plus at most 2 */
#define TER_INF ((int32_t)0x3FFFFFFF)
/* segments longer than this (on either side) are refused: costs stay far below TER_INF */
#define TER_MAX_WORDS ((Py_ssize_t)1 << 28)
/* candidates one round can record: the budget, plus one block's targets */
#define TER_CAND_CAP (TER_MAX_SHIFT_CANDIDATES + TER_MAX_SHIFT_SIZE + 1)

typedef struct {
    int32_t potential, length, start, target;
} TerCand;

typedef struct {
    int32_t n, m, W, unknown, bw, bound;
    double ratio;
    int exact;
    const int32_t *ref;  /* m reference ids */
    int32_t *words;      /* n ids: the current hypothesis */
    int32_t *scratch;    /* n ids: the current hypothesis, one shift applied */
    int32_t *pos_start;  /* V + 2: positions of id v are pos[pos_start[v] .. pos_start[v+1]) */
    int32_t *pos;        /* m */
    /* Myers (exact only) */
    int32_t *peq_off;    /* V + 1 offsets into peq (0: the zero vector) */
    uint64_t *peq;       /* (K + 1) * W */
    uint64_t *steps;     /* (n + 1) rows of 4 * W: vp, vn, hp, hn */
    uint64_t *state;     /* 2 * W */
    uint64_t last_mask;  /* the valid bits of a row's last block */
    /* the beam DP */
    int32_t *lo, *hi;    /* n + 1: row i fills columns lo[i] .. hi[i] - 1 */
    size_t *row_off;     /* n + 1: row i's first cell in rows */
    int32_t *rows;       /* the current hypothesis's rows (valid when rows_valid) */
    int32_t *brow[2];    /* two rows of a candidate */
    int rows_valid;
    /* one round */
    int32_t *align, *next_hyp_err, *next_ref_err, *targets;
    uint8_t *hyp_err, *ref_err;
    TerCand *cands;
} Ter;

/* ------------------------------------------------------------------ */
/* scratch memory: one block, laid out in advance                     */
/* ------------------------------------------------------------------ */

/* Reserve count * size bytes (8-aligned) at *total; -1 on overflow. */
static int
block_reserve(size_t *total, size_t *offset, size_t count, size_t size)
{
    size_t bytes;
    if (size && count > (SIZE_MAX - 16) / size)
        return -1;
    bytes = (count * size + 7) & ~(size_t)7;
    if (*total > SIZE_MAX - 16 - bytes)
        return -1;
    *offset = *total;
    *total += bytes;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Myers' bit-parallel edit distance (Hyyrö), rows over the reference   */
/* ------------------------------------------------------------------ */

static inline int
popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
#endif
}

/* One hypothesis word: (vp, vn) of row i-1 to row i (in place allowed);
 * hp/hn (row i's horizontal deltas) stored when not NULL.  The pure
 * module's _Pair.forward, on W blocks with carries. */
static inline void
myers_row(const uint64_t *eq, const uint64_t *vp, const uint64_t *vn, uint64_t *nvp,
          uint64_t *nvn, uint64_t *ohp, uint64_t *ohn, int32_t W, uint64_t last_mask)
{
    uint64_t add_carry = 0, hp_carry = 1, hn_carry = 0;
    int32_t k;
    for (k = 0; k < W; k++) {
        uint64_t e = eq[k], p = vp[k], q = vn[k];
        uint64_t xv = e | q;
        uint64_t x = e & p;
        uint64_t s = x + p;
        uint64_t c = s < x;
        uint64_t xh, hp, hn, hp1, hn1, np;
        s += add_carry;
        c |= s < add_carry;
        add_carry = c;
        xh = (s ^ p) | e;
        hp = q | ~(xh | p);
        hn = p & xh;
        if (k == W - 1)
            hp &= last_mask;
        hp1 = (hp << 1) | hp_carry;
        hp_carry = hp >> 63;
        hn1 = (hn << 1) | hn_carry;
        hn_carry = hn >> 63;
        np = hn1 | ~(xv | hp1);
        if (k == W - 1)
            np &= last_mask;
        nvp[k] = np;
        nvn[k] = hp1 & xv;
        if (ohp != NULL) {
            ohp[k] = hp;
            ohn[k] = hn;
        }
    }
}

static inline int64_t
myers_value(const uint64_t *vp, const uint64_t *vn, int32_t W, int32_t i)
{
    int64_t d = i;
    int32_t k;
    for (k = 0; k < W; k++)
        d += popcount64(vp[k]) - popcount64(vn[k]);
    return d;
}

static inline const uint64_t *
peq_of(const Ter *T, int32_t w)
{
    return T->peq + T->peq_off[w];
}

/* Rows from + 1 .. n of the current hypothesis (rows 0 .. from kept). */
static void
myers_forward(Ter *T, int32_t from)
{
    const int32_t W = T->W, stride = 4 * W;
    int32_t i;
    for (i = from + 1; i <= T->n; i++) {
        const uint64_t *prev = T->steps + (size_t)(i - 1) * stride;
        uint64_t *cur = T->steps + (size_t)i * stride;
        myers_row(peq_of(T, T->words[i - 1]), prev, prev + W, cur, cur + W, cur + 2 * W,
                  cur + 3 * W, W, T->last_mask);
    }
}

static int64_t
myers_distance(const Ter *T)
{
    const uint64_t *row = T->steps + (size_t)T->n * 4 * T->W;
    return myers_value(row, row + T->W, T->W, T->n);
}

/* The exact distance of scratch, equal to the current hypothesis before
 * ``first`` and from ``stop`` on (_Pair.distance_from). */
static int64_t
myers_distance_from(Ter *T, int32_t first, int32_t stop)
{
    const int32_t W = T->W, n = T->n;
    const size_t stride = (size_t)4 * W;
    uint64_t *vp = T->state, *vn = T->state + W;
    const uint64_t *row = T->steps + (size_t)first * stride;
    int32_t i = first;
    memcpy(vp, row, (size_t)W * sizeof(uint64_t));
    memcpy(vn, row + W, (size_t)W * sizeof(uint64_t));
    if (stop < n) {
        for (; i < stop; i++)
            myers_row(peq_of(T, T->scratch[i]), vp, vn, vp, vn, NULL, NULL, W, T->last_mask);
        row = T->steps + (size_t)stop * stride;
        if (memcmp(vp, row, (size_t)W * sizeof(uint64_t)) == 0
            && memcmp(vn, row + W, (size_t)W * sizeof(uint64_t)) == 0)
            return myers_distance(T);
    }
    for (; i < n; i++)
        myers_row(peq_of(T, T->scratch[i]), vp, vn, vp, vn, NULL, NULL, W, T->last_mask);
    return myers_value(vp, vn, W, n);
}

/* ------------------------------------------------------------------ */
/* the beam DP, SacreBLEU's BeamEditDistance._edit_distance             */
/* ------------------------------------------------------------------ */

/* Row i (columns lo .. hi-1) of hypothesis word w from row i-1 (plo .. phi-1). */
static void
band_row(const int32_t *prev, int32_t plo, int32_t phi, int32_t *cur, int32_t lo, int32_t hi,
         int32_t w, const int32_t *ref)
{
    int32_t j = lo, left = TER_INF;
    if (j == 0) {
        /* SacreBLEU: dist[i][0] = dist[i-1][0] + 1, whatever it is */
        left = (plo == 0 ? prev[0] : TER_INF) + 1;
        cur[0] = left;
        j = 1;
    }
    for (; j < hi; j++) {
        int32_t c = TER_INF, d, u, l;
        d = (j - 1 >= plo && j - 1 < phi) ? prev[j - 1 - plo] : TER_INF;
        d += ref[j - 1] == w ? 0 : 1;
        if (d < c)
            c = d;
        u = (j < phi && j >= plo ? prev[j - plo] : TER_INF) + 1;
        if (u < c)
            c = u;
        l = left + 1;
        if (l < c)
            c = l;
        cur[j - lo] = c;
        left = c;
    }
}

static inline int32_t
band_cost(const Ter *T, int32_t i, int32_t j)
{
    if (j < T->lo[i] || j >= T->hi[i])
        return TER_INF;
    return T->rows[T->row_off[i] + (size_t)(j - T->lo[i])];
}

/* Every row of the current hypothesis. */
static void
band_all(Ter *T)
{
    int32_t i;
    for (i = 1; i <= T->n; i++)
        band_row(T->rows + T->row_off[i - 1], T->lo[i - 1], T->hi[i - 1], T->rows + T->row_off[i],
                 T->lo[i], T->hi[i], T->words[i - 1], T->ref);
    T->rows_valid = 1;
}

static int64_t
band_distance(const Ter *T)
{
    return band_cost(T, T->n, T->m);
}

/* The beam distance of scratch, equal to the current hypothesis before
 * ``first`` and from ``stop`` on: rows 0 .. first are the current's. */
static int64_t
band_distance_from(Ter *T, int32_t first, int32_t stop)
{
    const int32_t n = T->n;
    const int32_t *prev = T->rows + T->row_off[first];
    int32_t plo = T->lo[first], phi = T->hi[first], i;
    int32_t *cur = NULL;
    for (i = first + 1; i <= n; i++) {
        cur = T->brow[i & 1];
        band_row(prev, plo, phi, cur, T->lo[i], T->hi[i], T->scratch[i - 1], T->ref);
        if (i == stop && stop < n
            && memcmp(cur, T->rows + T->row_off[i], (size_t)(T->hi[i] - T->lo[i]) * sizeof(int32_t))
                   == 0)
            return band_distance(T);
        prev = cur;
        plo = T->lo[i];
        phi = T->hi[i];
    }
    if (cur == NULL) /* first == n: scratch is the current hypothesis */
        return band_distance(T);
    return cur[T->m - T->lo[n]];
}

/* ------------------------------------------------------------------ */
/* the trace: SacreBLEU's trace_to_alignment (the pure module's _trace) */
/* ------------------------------------------------------------------ */

static inline int
delta_at(const uint64_t *plus, const uint64_t *minus, int32_t bit)
{
    uint64_t b = (uint64_t)1 << (bit & 63);
    int32_t k = bit >> 6;
    return (plus[k] & b) ? 1 : (minus[k] & b) ? -1 : 0;
}

/* exact: from Myers' rows (value = D[n][m]); else from the beam DP's rows */
static void
trace(Ter *T, int exact, int64_t value)
{
    const int32_t W = T->W;
    int32_t i = T->n, j = T->m, k;
    for (k = 0; k < T->m; k++) {
        T->align[k] = 0;
        T->ref_err[k] = 1;
    }
    memset(T->hyp_err, 1, (size_t)T->n);
    while (i > 0 && j > 0) {
        int64_t diag, up, left, best;
        int op = 0, match = T->ref[j - 1] == T->words[i - 1];
        if (exact) {
            const uint64_t *row = T->steps + (size_t)i * 4 * W;
            left = value - delta_at(row, row + W, j - 1);
            up = value - delta_at(row + 2 * W, row + 3 * W, j - 1);
            if (j > 1)
                diag = left - delta_at(row + 2 * W, row + 3 * W, j - 2);
            else
                diag = left - 1;
        }
        else {
            diag = band_cost(T, i - 1, j - 1);
            up = band_cost(T, i - 1, j);
            left = band_cost(T, i, j - 1);
        }
        best = match ? diag : diag + 1;
        if (up + 1 < best) {
            best = up + 1;
            op = 1;
        }
        if (left + 1 < best)
            op = 2;
        if (op == 0) {
            value = diag;
            j--;
            i--;
            T->align[j] = i;
            if (match)
                T->hyp_err[i] = T->ref_err[j] = 0;
        }
        else if (op == 1) {
            value = up;
            i--;
        }
        else {
            value = left;
            j--;
            T->align[j] = i - 1;
        }
    }
    while (j > 0) {
        j--;
        T->align[j] = -1;
    }
}

/* ------------------------------------------------------------------ */
/* shift candidates (the pure module's _shift_candidates, _by_potential) */
/* ------------------------------------------------------------------ */

/* SacreBLEU's candidates of one round into T->cands (*found of them, with
 * repeats); returns how many it counts, stopping once that reaches budget. */
static int32_t
shift_candidates(Ter *T, int32_t budget, int32_t *found)
{
    const int32_t n = T->n, m = T->m;
    const int32_t *words = T->words, *ref = T->ref;
    int32_t k, start_h, counted = 0, nc = 0;
    T->next_hyp_err[n] = n;
    for (k = n - 1; k >= 0; k--)
        T->next_hyp_err[k] = T->hyp_err[k] ? k : T->next_hyp_err[k + 1];
    T->next_ref_err[m] = m;
    for (k = m - 1; k >= 0; k--)
        T->next_ref_err[k] = T->ref_err[k] ? k : T->next_ref_err[k + 1];
    T->targets[0] = 0;
    for (k = 0; k < m; k++)
        T->targets[k + 1] = T->align[k] + 1;

    for (start_h = 0; start_h < n; start_h++) {
        int32_t w = words[start_h], shortest_h, a, b, last_r;
        if (w == T->unknown)
            continue;
        shortest_h = T->next_hyp_err[start_h] - start_h + 1;
        if (shortest_h > TER_MAX_SHIFT_SIZE)
            continue;
        /* bisect_left(positions[w], start_h - MAX_SHIFT_DIST) */
        a = T->pos_start[w];
        b = T->pos_start[w + 1];
        while (a < b) {
            int32_t mid = a + (b - a) / 2;
            if (T->pos[mid] < start_h - TER_MAX_SHIFT_DIST)
                a = mid + 1;
            else
                b = mid;
        }
        last_r = start_h + TER_MAX_SHIFT_DIST;
        for (b = T->pos_start[w + 1]; a < b; a++) {
            int32_t start_r = T->pos[a], shortest, longest, aligned, length;
            if (start_r > last_r)
                break;
            shortest = T->next_ref_err[start_r] - start_r + 1;
            if (shortest < shortest_h)
                shortest = shortest_h;
            longest = 1;
            while (longest < TER_MAX_SHIFT_SIZE && start_h + longest < n && start_r + longest < m
                   && words[start_h + longest] == ref[start_r + longest])
                longest++;
            aligned = T->align[start_r];
            if (start_h <= aligned && aligned - start_h < longest)
                longest = aligned - start_h; /* no shift within the block itself */
            for (length = shortest; length <= longest; length++) {
                int32_t previous = -1, t;
                for (t = start_r; t <= start_r + length; t++) {
                    int32_t target = T->targets[t];
                    if (target != previous) {
                        TerCand *c = &T->cands[nc++];
                        previous = target;
                        counted++;
                        c->start = start_h;
                        c->length = length;
                        c->target = target;
                    }
                }
                if (counted >= budget) {
                    *found = nc;
                    return counted;
                }
            }
        }
    }
    *found = nc;
    return counted;
}

/* most promising first: (-potential, -length, start, target) */
static int
cand_order(const void *pa, const void *pb)
{
    const TerCand *a = (const TerCand *)pa, *b = (const TerCand *)pb;
    if (a->potential != b->potential)
        return a->potential > b->potential ? -1 : 1;
    if (a->length != b->length)
        return a->length > b->length ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    return 0;
}

/* Potentials, identity shifts dropped, sorted, repeats dropped; returns the count. */
static int32_t
by_potential(Ter *T, int32_t nc)
{
    int32_t k, out = 0;
    for (k = 0; k < nc; k++) {
        TerCand c = T->cands[k];
        int32_t jumped;
        if (c.target < c.start)
            jumped = c.start - c.target;
        else if (c.target > c.start + c.length)
            jumped = c.target - c.start - c.length;
        else
            jumped = c.target - c.start;
        if (jumped) {
            c.potential = 2 * (c.length < jumped ? c.length : jumped);
            T->cands[out++] = c;
        }
    }
    if (out > 1)
        qsort(T->cands, (size_t)out, sizeof(TerCand), cand_order);
    nc = out;
    out = 0;
    for (k = 0; k < nc; k++) {
        if (out && cand_order(&T->cands[out - 1], &T->cands[k]) == 0)
            continue;
        T->cands[out++] = T->cands[k];
    }
    return out;
}

/* Write the shift into scratch (equal to words outside [first, stop));
 * returns stop, and first through *first (SacreBLEU's _perform_shift). */
static int32_t
apply_shift(Ter *T, const TerCand *c, int32_t *first)
{
    const int32_t *w = T->words;
    int32_t *out = T->scratch;
    const int32_t start = c->start, length = c->length, target = c->target, n = T->n;
    if (target < start) {
        memcpy(out + target, w + start, (size_t)length * sizeof(int32_t));
        memcpy(out + target + length, w + target, (size_t)(start - target) * sizeof(int32_t));
        *first = target;
        return start + length;
    }
    if (target > start + length) {
        memcpy(out + start, w + start + length, (size_t)(target - start - length) * sizeof(int32_t));
        memcpy(out + target - length, w + start, (size_t)length * sizeof(int32_t));
        *first = start;
        return target;
    }
    {
        /* "within the block": words[:start] + words[start+length:length+target]
         * + words[start:start+length] + words[length+target:], slices clamped */
        int32_t e = length + target < n ? length + target : n;
        memcpy(out + start, w + start + length, (size_t)(e - start - length) * sizeof(int32_t));
        memcpy(out + e - length, w + start, (size_t)length * sizeof(int32_t));
        *first = start;
        return target + length;
    }
}

/* (g1, l1, -s1, -t1) compared with (g2, l2, -s2, -t2) */
static inline int
key_cmp(int64_t g1, int32_t l1, int32_t s1, int32_t t1, int64_t g2, int32_t l2, int32_t s2,
        int32_t t2)
{
    if (g1 != g2)
        return g1 < g2 ? -1 : 1;
    if (l1 != l2)
        return l1 < l2 ? -1 : 1;
    if (s1 != s2)
        return s1 > s2 ? -1 : 1;
    if (t1 != t2)
        return t1 > t2 ? -1 : 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* the search: the pure module's py_count_edits                         */
/* ------------------------------------------------------------------ */

static int64_t
ter_search(Ter *T, int64_t floor_distance)
{
    const int32_t n = T->n;
    int64_t shifts = 0, distance;
    int32_t checked = 0;
    if (T->exact)
        myers_forward(T, 0);
    for (;;) {
        int64_t exact_d = 0, slack, best_gain = 0;
        int32_t nc = 0, counted, k, best_first = 0, stop;
        TerCand best = {0, 0, 0, 0};
        int have_best = 0;
        T->rows_valid = 0;
        if (T->exact)
            exact_d = myers_distance(T);
        if (T->exact && exact_d <= T->bound) {
            distance = exact_d;
        }
        else {
            band_all(T);
            distance = band_distance(T);
        }
        if (distance - floor_distance <= 1)
            break; /* a shift could gain one edit at most, and costs one */
        trace(T, !T->rows_valid, exact_d);
        counted = shift_candidates(T, TER_MAX_SHIFT_CANDIDATES - checked, &nc);
        checked += counted;
        if (checked >= TER_MAX_SHIFT_CANDIDATES)
            break; /* SacreBLEU stops before applying this round's shift */
        slack = T->exact ? distance - exact_d : distance;
        nc = by_potential(T, nc);
        for (k = 0; k < nc; k++) {
            const TerCand *c = &T->cands[k];
            int32_t first, end;
            int64_t gain;
            if (have_best
                && key_cmp(c->potential + slack, c->length, c->start, c->target, best_gain,
                           best.length, best.start, best.target)
                       <= 0)
                continue;
            stop = apply_shift(T, c, &first);
            end = stop < n ? stop : n;
            if (T->exact) {
                int64_t e = myers_distance_from(T, first, stop);
                gain = distance - e;
                if (gain <= 0
                    || (have_best
                        && key_cmp(gain, c->length, c->start, c->target, best_gain, best.length,
                                   best.start, best.target)
                               <= 0))
                    goto next;
                if (e <= T->bound) {
                    best = *c;
                    best_gain = gain;
                    best_first = first;
                    have_best = 1;
                    goto next;
                }
            }
            if (!T->rows_valid)
                band_all(T);
            gain = distance - band_distance_from(T, first, stop);
            if (gain > 0
                && (!have_best
                    || key_cmp(gain, c->length, c->start, c->target, best_gain, best.length,
                               best.start, best.target)
                           > 0)) {
                best = *c;
                best_gain = gain;
                best_first = first;
                have_best = 1;
            }
        next:
            memcpy(T->scratch + first, T->words + first, (size_t)(end - first) * sizeof(int32_t));
        }
        if (!have_best)
            break;
        shifts++;
        stop = apply_shift(T, &best, &best_first);
        if (stop > n)
            stop = n;
        memcpy(T->words + best_first, T->scratch + best_first,
               (size_t)(stop - best_first) * sizeof(int32_t));
        if (T->exact)
            myers_forward(T, best_first);
    }
    return shifts + distance;
}

/* ------------------------------------------------------------------ */
/* the Python entry point                                              */
/* ------------------------------------------------------------------ */

/* An id from ref.vocab or ref.ids: an int in [0, V). */
static int
read_id(PyObject *o, Py_ssize_t V, const char *what, int32_t *out)
{
    long v;
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "count_edits: %s must be int, not %.100s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        v = -1;
    }
    if (v < 0 || v >= V) {
        PyErr_Format(PyExc_ValueError,
                     "count_edits: %s must be below len(ref.vocab) (%zd) and not negative", what, V);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* count_edits(words_hyp, ref, max_exact_cells=MAX_EXACT_CELLS, /) -> int */
BS_FASTCALL(bs_count_edits)
{
    BsState *state = bs_state(module);
    PyObject *a[3];
    PyObject *hf = NULL, *vocab = NULL, *ids = NULL, *idf = NULL, *res = NULL;
    void *block = NULL;
    long long max_exact = TER_MAX_EXACT_CELLS;
    Py_ssize_t n_, m_, V_, j;
    Ter T;
    memset(&T, 0, sizeof(T));
    if (bs_parse_args("count_edits", args, nargs, kwnames, NULL, 2, 3, a) < 0)
        return NULL;
    if (a[2] != NULL) {
        int overflow = 0;
        if (!PyLong_Check(a[2])) {
            PyErr_Format(PyExc_TypeError, "count_edits: max_exact_cells must be int, not %.100s",
                         Py_TYPE(a[2])->tp_name);
            return NULL;
        }
        max_exact = PyLong_AsLongLongAndOverflow(a[2], &overflow);
        if (max_exact == -1 && PyErr_Occurred())
            return NULL;
        if (overflow)
            max_exact = overflow > 0 ? LLONG_MAX : -1;
    }
    /* A tuple of our own: the dict lookups below may run Python code (str
     * subclasses), which then cannot change the words under us. */
    if (PyTuple_CheckExact(a[0])) {
        hf = a[0];
        Py_INCREF(hf);
    }
    else {
        hf = PySequence_Tuple(a[0]);
        if (hf == NULL) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError,
                             "count_edits: words_hyp must be a list of str, not %.100s",
                             Py_TYPE(a[0])->tp_name);
            }
            return NULL;
        }
    }
    n_ = PyTuple_GET_SIZE(hf);
    for (j = 0; j < n_; j++) {
        PyObject *s = PyTuple_GET_ITEM(hf, j);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "count_edits: a hypothesis word must be str, not %.100s",
                         Py_TYPE(s)->tp_name);
            goto done;
        }
    }
    vocab = PyObject_GetAttr(a[1], state->str_vocab);
    if (vocab == NULL)
        goto not_a_reference;
    if (!PyDict_Check(vocab)) {
        PyErr_Format(PyExc_TypeError, "count_edits: ref.vocab must be a dict, not %.100s",
                     Py_TYPE(vocab)->tp_name);
        goto done;
    }
    ids = PyObject_GetAttr(a[1], state->str_ids);
    if (ids == NULL)
        goto not_a_reference;
    idf = PySequence_Fast(ids, "count_edits: ref.ids must be a tuple of int");
    if (idf == NULL)
        goto done;
    m_ = PySequence_Fast_GET_SIZE(idf);
    V_ = PyDict_GET_SIZE(vocab);
    if (m_ == 0) {
        res = PyLong_FromSsize_t(n_);
        goto done;
    }
    if (n_ == 0) {
        res = PyLong_FromSsize_t(m_);
        goto done;
    }
    if (n_ >= TER_MAX_WORDS || m_ >= TER_MAX_WORDS) {
        PyErr_SetString(PyExc_OverflowError, "count_edits: segments of 2**28 words or more");
        goto done;
    }
    if (V_ > m_) {
        PyErr_SetString(PyExc_ValueError, "count_edits: ref.vocab has more words than ref.ids");
        goto done;
    }
    {
        const int32_t n = (int32_t)n_, m = (int32_t)m_, V = (int32_t)V_;
        int32_t W = (m + 63) / 64, i, K = 0, band_w;
        size_t total = 0, o_words, o_scratch, o_ref, o_pos_start, o_pos, o_count, o_peq_off,
               o_lo, o_hi, o_row_off, o_rows, o_brow, o_align, o_nhe, o_nre, o_targets,
               o_hyp_err, o_ref_err, o_cands, o_peq = 0, o_steps = 0, o_state = 0, band_cells;
        int32_t *count;
        int32_t *ref_ids;
        int64_t common = 0, floor_distance;
        char *base;

        T.n = n;
        T.m = m;
        T.W = W;
        T.unknown = V;
        T.ratio = (double)m / (double)n;
        if (T.ratio / 2 > TER_BEAM_WIDTH)
            T.bw = (int32_t)ceil(T.ratio / 2 + TER_BEAM_WIDTH);
        else
            T.bw = TER_BEAM_WIDTH;
        T.bound = 2 * T.bw - 4 - (m > n ? m - n : n - m);
        T.exact = (long long)n * (long long)m <= max_exact;
        band_w = 2 * T.bw < m + 1 ? 2 * T.bw : m + 1;
        /* rows 0 and n are full, the others at most 2 * bw wide */
        band_cells = (size_t)2 * ((size_t)m + 1) + (size_t)(n - 1) * (size_t)band_w;

        if (block_reserve(&total, &o_words, (size_t)n, sizeof(int32_t))
            || block_reserve(&total, &o_scratch, (size_t)n, sizeof(int32_t))
            || block_reserve(&total, &o_ref, (size_t)m, sizeof(int32_t))
            || block_reserve(&total, &o_pos_start, (size_t)V + 2, sizeof(int32_t))
            || block_reserve(&total, &o_pos, (size_t)m, sizeof(int32_t))
            || block_reserve(&total, &o_count, (size_t)V + 1, sizeof(int32_t))
            || block_reserve(&total, &o_peq_off, (size_t)V + 1, sizeof(int32_t))
            || block_reserve(&total, &o_lo, (size_t)n + 1, sizeof(int32_t))
            || block_reserve(&total, &o_hi, (size_t)n + 1, sizeof(int32_t))
            || block_reserve(&total, &o_row_off, (size_t)n + 1, sizeof(size_t))
            || block_reserve(&total, &o_rows, band_cells, sizeof(int32_t))
            || block_reserve(&total, &o_brow, (size_t)2 * ((size_t)m + 1), sizeof(int32_t))
            || block_reserve(&total, &o_align, (size_t)m, sizeof(int32_t))
            || block_reserve(&total, &o_nhe, (size_t)n + 1, sizeof(int32_t))
            || block_reserve(&total, &o_nre, (size_t)m + 1, sizeof(int32_t))
            || block_reserve(&total, &o_targets, (size_t)m + 1, sizeof(int32_t))
            || block_reserve(&total, &o_hyp_err, (size_t)n, 1)
            || block_reserve(&total, &o_ref_err, (size_t)m, 1)
            || block_reserve(&total, &o_cands, TER_CAND_CAP, sizeof(TerCand))) {
            PyErr_NoMemory();
            goto done;
        }
        if (T.exact) {
            /* peq: one zero vector, one per reference id the hypothesis holds (<= n, <= V) */
            size_t kmax = (size_t)(n < V ? n : V) + 1;
            if ((size_t)W > SIZE_MAX / 4 / ((size_t)n + 1)
                || block_reserve(&total, &o_peq, kmax * (size_t)W, sizeof(uint64_t))
                || block_reserve(&total, &o_steps, ((size_t)n + 1) * 4 * (size_t)W, sizeof(uint64_t))
                || block_reserve(&total, &o_state, (size_t)2 * W, sizeof(uint64_t))) {
                PyErr_NoMemory();
                goto done;
            }
        }
        block = PyMem_Malloc(total ? total : 1);
        if (block == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        base = (char *)block;
        T.words = (int32_t *)(base + o_words);
        T.scratch = (int32_t *)(base + o_scratch);
        ref_ids = (int32_t *)(base + o_ref);
        T.ref = ref_ids;
        T.pos_start = (int32_t *)(base + o_pos_start);
        T.pos = (int32_t *)(base + o_pos);
        count = (int32_t *)(base + o_count);
        T.peq_off = (int32_t *)(base + o_peq_off);
        T.lo = (int32_t *)(base + o_lo);
        T.hi = (int32_t *)(base + o_hi);
        T.row_off = (size_t *)(base + o_row_off);
        T.rows = (int32_t *)(base + o_rows);
        T.brow[0] = (int32_t *)(base + o_brow);
        T.brow[1] = T.brow[0] + m + 1;
        T.align = (int32_t *)(base + o_align);
        T.next_hyp_err = (int32_t *)(base + o_nhe);
        T.next_ref_err = (int32_t *)(base + o_nre);
        T.targets = (int32_t *)(base + o_targets);
        T.hyp_err = (uint8_t *)(base + o_hyp_err);
        T.ref_err = (uint8_t *)(base + o_ref_err);
        T.cands = (TerCand *)(base + o_cands);

        /* the reference: ids, and the positions of each id (a counting sort) */
        memset(T.pos_start, 0, ((size_t)V + 2) * sizeof(int32_t));
        for (i = 0; i < m; i++) {
            if (read_id(PySequence_Fast_GET_ITEM(idf, i), V, "a ref.ids entry", &ref_ids[i]) < 0)
                goto done;
            T.pos_start[ref_ids[i] + 2]++;
        }
        for (i = 2; i <= V + 1; i++)
            T.pos_start[i] += T.pos_start[i - 1];
        for (i = 0; i < m; i++)
            T.pos[T.pos_start[ref_ids[i] + 1]++] = i;
        /* now pos_start[v] .. pos_start[v+1] holds id v's positions, in order */

        /* the hypothesis: ids, unknown words one id */
        memset(count, 0, ((size_t)V + 1) * sizeof(int32_t));
        for (i = 0; i < n; i++) {
            PyObject *v = PyDict_GetItemWithError(vocab, PyTuple_GET_ITEM(hf, i));
            if (v == NULL) {
                if (PyErr_Occurred())
                    goto done;
                T.words[i] = V;
            }
            else if (read_id(v, V, "a ref.vocab value", &T.words[i]) < 0)
                goto done;
            count[T.words[i]]++;
        }
        memcpy(T.scratch, T.words, (size_t)n * sizeof(int32_t));
        /* the bag-of-words lower bound: max(n, m) minus the words in common */
        for (i = 0; i < V; i++) {
            int32_t in_ref = T.pos_start[i + 1] - T.pos_start[i];
            common += count[i] < in_ref ? count[i] : in_ref;
        }
        floor_distance = (int64_t)(n > m ? n : m) - common;

        /* the beam: SacreBLEU's pseudo-diagonal, float for float */
        T.lo[0] = 0;
        T.hi[0] = m + 1;
        T.row_off[0] = 0;
        for (i = 1; i <= n; i++) {
            double pd = floor((double)i * T.ratio);
            int64_t lo = (int64_t)pd - T.bw, hi = (int64_t)pd + T.bw;
            if (lo < 0)
                lo = 0;
            if (hi > m + 1 || i == n)
                hi = m + 1;
            T.lo[i] = (int32_t)lo;
            T.hi[i] = (int32_t)hi;
            T.row_off[i] = T.row_off[i - 1] + (size_t)(T.hi[i - 1] - T.lo[i - 1]);
        }
        for (i = 0; i <= m; i++)
            T.rows[i] = i; /* row 0: SacreBLEU's initial row */

        if (T.exact) {
            int32_t v, r;
            T.peq = (uint64_t *)(base + o_peq);
            T.steps = (uint64_t *)(base + o_steps);
            T.state = (uint64_t *)(base + o_state);
            T.last_mask = (m % 64) ? (((uint64_t)1 << (m % 64)) - 1) : ~(uint64_t)0;
            memset(T.peq, 0, (size_t)W * sizeof(uint64_t));
            K = 1;
            for (v = 0; v <= V; v++) {
                if (v == V || count[v] == 0 || T.pos_start[v] == T.pos_start[v + 1]) {
                    T.peq_off[v] = 0;
                    continue;
                }
                T.peq_off[v] = K * W;
                memset(T.peq + (size_t)K * W, 0, (size_t)W * sizeof(uint64_t));
                for (r = T.pos_start[v]; r < T.pos_start[v + 1]; r++)
                    T.peq[(size_t)K * W + (T.pos[r] >> 6)] |= (uint64_t)1 << (T.pos[r] & 63);
                K++;
            }
            /* row 0: D[0][j] = j */
            for (r = 0; r < W; r++) {
                T.steps[r] = r == W - 1 ? T.last_mask : ~(uint64_t)0;
                T.steps[W + r] = T.steps[2 * W + r] = T.steps[3 * W + r] = 0;
            }
        }
        res = PyLong_FromLongLong((long long)ter_search(&T, floor_distance));
    }
    goto done;
not_a_reference:
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "count_edits: ref must be a ter_search.Reference (with .vocab and .ids), "
                     "not %.100s",
                     Py_TYPE(a[1])->tp_name);
    }
done:
    PyMem_Free(block);
    Py_XDECREF(idf);
    Py_XDECREF(ids);
    Py_XDECREF(vocab);
    Py_DECREF(hf);
    return res;
}
