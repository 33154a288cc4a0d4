"""TER's edit distance with shifts: SacreBLEU 2.x's ``lib_ter``, decision for decision.

SacreBLEU's ``translation_edit_rate`` is a near-reimplementation of tercom:
a greedy search that applies, one at a time, the block shift that most
reduces a beam-limited edit distance, within tercom's limits.  Its result
depends on every detail of that search, so this module reproduces them all:

* the edit distance is a Levenshtein DP in which row ``i`` (hypothesis word
  ``i``) only fills the cells within ``beam`` of the "pseudo-diagonal"
  ``floor(i * m / n)`` (the last row is filled completely); cells outside
  are infinite, so the distance can exceed the true edit distance;
* the alignment that picks shift candidates comes from that DP's trace,
  with its tie-breaking: substitution/match, then the hypothesis-only step,
  then the reference-only step;
* candidates are enumerated in SacreBLEU's order and filtered by its rules
  (block of at most 10 words, start positions at most 50 apart, the block
  must hold a hypothesis error and its reference match a reference error,
  no shift inside the block), with its target positions and its odd
  "shift within the block" case;
* the best candidate is the greatest (gain, length, -start, -target);
* once 1000 candidates have been counted (over all rounds of one
  hypothesis-reference pair), the search stops at once and the shift of
  that round is not applied.

What is done differently, without changing any result:

* SacreBLEU computes the banded DP for every candidate (sharing rows of
  common prefixes through a cache).  Here the exact edit distance comes
  first, from Myers' bit-parallel algorithm (Hyyrö's formulation): one
  reference-long integer operation per hypothesis word instead of a row of
  cells.  Every alignment path of cost ``d`` keeps within ``(d + |m - n|) / 2``
  of the pseudo-diagonal (a cell ``(i, j)`` on it costs at least
  ``|j - i|`` to reach and ``|(m - j) - (n - i)|`` to leave), so when
  ``d + |m - n| <= 2 * beam - 4`` (two cells spare for the float ``floor``)
  every optimal path lies inside the beam: the banded distance equals the
  exact one, and so does its trace, since every cell and neighbour the
  trace compares lies on an optimal path too.  Only past that bound is the
  banded DP run, and for a candidate only when even its exact distance (a
  lower bound) would make it the best so far.
* The banded DP itself is bit-parallel too: inside a row's beam
  neighbouring costs differ by at most one, so Myers' step runs on a window
  of bits that slides with the beam, its two edges made exact (see
  ``_Pair.banded_rows``).  Its trace is recomputed from the costs, as the
  DP recorded it.
* Shifts are scored most promising first: undoing a shift of ``length``
  words over ``jumped`` words takes at most ``2 * min(length, jumped)``
  edits, so by the triangle inequality it cannot gain more than that (plus
  what the beam adds to the current distance); a shift whose best possible
  ranking cannot beat the best so far is not scored.
* A round that reaches the candidate limit discards its result, so its
  candidates are only counted, never scored.  No round can change the
  number of edits once the edit distance is within one of its
  bag-of-words lower bound (``max(n, m)`` minus the words the two have in
  common, the same for every reordering): a shift could then save one edit
  at most, and costs one itself, after which the bound is reached.  The
  search stops there.
* Words are interned to small integers per reference, and every hypothesis
  word the reference lacks becomes one "unknown" integer: such words never
  match, so which one stands where changes no distance and no candidate.
* Candidates that differ only in the reference position that suggested
  them are one shift, scored once.
* The banded DP keeps only the beam of each row, so its memory grows with
  ``n * beam``, not ``n * m``; the exact distance's rows (``m`` bits each,
  kept for its trace) only while ``n * m`` stays under
  ``MAX_EXACT_CELLS``, past which the banded DP does all the work, as in
  SacreBLEU.

The compiled kernel ``count_edits`` (``bleustream/_native/ter.c``) is this
module's algorithm in C, decision for decision, and returns the same number
for every input; ``count_edits`` is it when the kernels are loaded
(``bleustream.kernels``), else ``py_count_edits``, which stays the readable
reference.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from functools import cached_property
from typing import Callable

from bleustream.frozen import Frozen
from bleustream.kernels import native

# tercom's limits, as SacreBLEU sets them.
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
# SacreBLEU's own limit on shift candidates per hypothesis-reference pair.
MAX_SHIFT_CANDIDATES = 1000
# SacreBLEU's "infinity" for DP cells outside the beam.
_INF = 10**16
# The exact distance keeps four m-bit integers per hypothesis word (for
# its trace): past this many cells (n * m) only the beam-limited DP runs,
# whose rows hold the beam only.
MAX_EXACT_CELLS = 1 << 24

# A row of the beam DP: (lo, b, v, vp, vn, hi), see _Pair.banded_rows.
Band = tuple[int, int, int, int, int, int]

try:
    _popcount: Callable[[int], int] = int.bit_count  # type: ignore[attr-defined]
except AttributeError:  # Python < 3.10

    def _popcount(x: int) -> int:
        return bin(x).count("1")


def _cost(row: Band, j: int) -> int:
    """The cost in column ``j`` of a beam DP row (infinite outside the beam)."""
    lo, b, v, vp, vn, hi = row
    if j < lo or j >= hi:
        return _INF
    if j == b:
        return v
    low = (1 << (j - b)) - 1
    return v + _popcount(vp & low) - _popcount(vn & low)


class Reference(Frozen):
    """One tokenized reference, with what every hypothesis needs of it.

    ``ids`` are the words as integers (first occurrence order); an integer
    ``unknown`` (== the number of distinct words) stands for any word not in
    the reference.  ``peq[id]`` is the bit mask of the positions holding
    ``id`` (Myers' match vectors) and ``positions[id]`` those positions in
    order; both have an empty entry for ``unknown``.  Both are made from
    ``ids`` when the pure search first needs them (the compiled kernel
    reads ``vocab`` and ``ids`` only).
    """

    vocab: dict[str, int]
    ids: tuple[int, ...]

    def __init__(self, vocab: dict[str, int], ids: tuple[int, ...]) -> None:
        # One is made per reference: assigned directly.
        self.__dict__.update(vocab=vocab, ids=ids)

    @property
    def unknown(self) -> int:
        return len(self.vocab)

    @cached_property
    def peq(self) -> tuple[int, ...]:
        peq = [0] * (len(self.vocab) + 1)
        for pos, wid in enumerate(self.ids):
            peq[wid] |= 1 << pos
        return tuple(peq)

    @cached_property
    def positions(self) -> tuple[tuple[int, ...], ...]:
        positions: list[list[int]] = [[] for _ in range(len(self.vocab) + 1)]
        for pos, wid in enumerate(self.ids):
            positions[wid].append(pos)
        return tuple(map(tuple, positions))


def prepare_reference(words: Sequence[str]) -> Reference:
    """Interns a tokenized reference (its match vectors and position lists
    follow on first use)."""
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    return Reference(vocab, tuple(map(vocab.__getitem__, words)))


def perform_shift(words: list[int], start: int, length: int, target: int) -> list[int]:
    """SacreBLEU's ``_perform_shift``: move ``words[start:start+length]`` before ``target``.

    When ``target`` falls inside the block or just after it, SacreBLEU moves
    the block ``target - start`` words to the right (so ``target ==
    start + length`` swaps the block with the words after it), and so does
    this.
    """
    if target < start:
        return (
            words[:target]
            + words[start : start + length]
            + words[target:start]
            + words[start + length :]
        )
    if target > start + length:
        return (
            words[:start]
            + words[start + length : target]
            + words[start : start + length]
            + words[target:]
        )
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


class _Pair:
    """One hypothesis length against one reference: the constants of its search."""

    __slots__ = ("bound", "bw", "m", "mask", "n", "peq", "ratio", "ref")

    def __init__(self, ref: Reference, n: int) -> None:
        m = len(ref.ids)
        self.ref = ref
        self.m = m
        self.n = n
        self.peq = ref.peq
        self.mask = (1 << m) - 1
        # BeamEditDistance._edit_distance: the ratio of lengths and the beam.
        ratio = m / n if n else 1
        bw = math.ceil(ratio / 2 + BEAM_WIDTH) if ratio / 2 > BEAM_WIDTH else BEAM_WIDTH
        self.ratio = ratio
        self.bw = bw
        # Exact distances up to this are the banded DP's (see the module docstring).
        self.bound = 2 * bw - 4 - abs(m - n)

    # -- Myers ------------------------------------------------------------------

    def forward(
        self, words: list[int], steps: list[tuple[int, int, int, int]] | None = None, start: int = 0
    ) -> list[tuple[int, int, int, int]]:
        """Myers' algorithm over the hypothesis, keeping every step (after
        the first ``start`` steps of ``steps``, when given: a hypothesis
        that differs from ``words`` only from position ``start`` on).

        Entry ``i`` describes row ``i`` of the DP (``i`` hypothesis words
        against every reference prefix): ``(vp, vn, hp, hn)`` where bit ``k``
        of ``vp``/``vn`` says ``D[i][k+1] - D[i][k]`` is +1/-1 and bit ``k``
        of ``hp``/``hn`` says ``D[i][k+1] - D[i-1][k+1]`` is +1/-1.  Row
        ``i`` starts at ``D[i][0] == i``, so it ends at ``i + |vp| - |vn|``.
        """
        peq, mask = self.peq, self.mask
        steps = [(mask, 0, 0, 0)] if steps is None else steps[: start + 1]
        vp, vn = steps[-1][:2]
        append = steps.append
        for w in words[len(steps) - 1 :]:
            eq = peq[w]
            xv = eq | vn
            xh = (((eq & vp) + vp) ^ vp) | eq
            hp = vn | (mask & ~(xh | vp))
            hn = vp & xh
            hp1 = (hp << 1) | 1
            vp = ((hn << 1) | ~(xv | hp1)) & mask
            vn = hp1 & xv
            append((vp, vn, hp, hn))
        return steps

    def distance_from(
        self, steps: list[tuple[int, int, int, int]], words: list[int], start: int, stop: int
    ) -> int:
        """The exact edit distance of ``words``, whose first ``start`` words
        are those ``steps`` was computed for, and so are its words from
        ``stop`` on: when the state there is the same, so is the rest."""
        peq, mask = self.peq, self.mask
        vp, vn = steps[start][:2]
        if stop < self.n:
            for w in words[start:stop]:
                eq = peq[w]
                xv = eq | vn
                xh = (((eq & vp) + vp) ^ vp) | eq
                hp = (vn | ~(xh | vp)) << 1 | 1
                vp = ((vp & xh) << 1 | ~(xv | hp)) & mask
                vn = hp & xv
            here = steps[stop]
            if vp == here[0] and vn == here[1]:
                return self.distance_of(steps)
            start = stop
        for w in words[start:]:
            eq = peq[w]
            xv = eq | vn
            xh = (((eq & vp) + vp) ^ vp) | eq
            hp = (vn | ~(xh | vp)) << 1 | 1
            vp = ((vp & xh) << 1 | ~(xv | hp)) & mask
            vn = hp & xv
        return self.n + _popcount(vp) - _popcount(vn)

    def distance_of(self, steps: list[tuple[int, int, int, int]]) -> int:
        """``D[n][m]`` of the hypothesis ``steps`` was computed for."""
        vp, vn = steps[self.n][:2]
        return self.n + _popcount(vp) - _popcount(vn)

    # -- the banded DP ------------------------------------------------------------

    def first_row(self) -> Band:
        """Row 0 of the beam DP: every column, costing 0, 1, ..., m."""
        return (0, 0, 0, self.mask, 0, self.m + 1)

    def banded_rows(self, words: list[int], rows: list[Band]) -> list[Band]:
        """SacreBLEU's beam DP, continued from the rows given (at least row 0).

        Row ``i`` fills columns ``lo .. hi - 1``; the rest is SacreBLEU's
        infinity.  Inside a row's beam neighbouring costs differ by at most
        one, so the beam is computed as Myers' step on a window of bits
        ``(lo, b, v, vp, vn, hi)``: bit ``k`` of ``vp``/``vn`` says column
        ``b + k + 1`` costs one more/less than column ``b + k``, and column
        ``b`` costs ``v`` (a stand-in value when ``b`` is outside the beam).
        The beam's edges are made exact:

        * left: the infinite cell before the beam enters as a +1 horizontal
          step, which the diagonal always beats; when the beam did not move,
          the previous row's column before it (infinite too) becomes one
          more than the column after it, so that the step from above wins;
        * right: the previous row's infinite cells past its beam read as
          equal to its last cell, so the step from above into the first of
          them is never cheaper than the diagonal, and the cells past it,
          which only a step from the left can reach, get +1.

        Memory is the beam's, not the reference's length, per row.
        """
        peq = self.peq
        n, ratio, bw = self.n, self.ratio, self.bw
        end = self.m + 1
        popcount = _popcount
        floor = math.floor
        rows = list(rows)
        lo_prev, b, v, vp, vn, hi_prev = rows[-1]
        for i in range(len(rows), n + 1):
            pseudo_diag = floor(i * ratio)
            lo = pseudo_diag - bw
            if lo < 0:
                lo = 0
            hi = pseudo_diag + bw
            if hi > end or i == n:
                hi = end
            nb = lo - 1 if lo else 0  # the window's base column
            shift = nb - b
            if shift:
                low = (1 << shift) - 1
                v += popcount(vp & low) - popcount(vn & low)
                vp >>= shift
                vn >>= shift
            if nb < lo_prev:  # the base is outside the previous beam too
                v += 2 if vp & 1 else 0 if vn & 1 else 1
                vp &= ~1
                vn |= 1
            width = hi - 1 - nb
            old_width = hi_prev - 1 - nb
            mask = (1 << width) - 1
            eq = (peq[words[i - 1]] >> nb) & mask
            xv = eq | vn
            xh = (((eq & vp) + vp) ^ vp) | eq
            hp = (vn | ~(xh | vp)) << 1 | 1
            vp = ((vp & xh) << 1 | ~(xv | hp)) & mask
            vn = hp & xv
            if width > old_width + 1:
                left_only = mask ^ ((2 << old_width) - 1)
                vp |= left_only
                vn &= ~left_only
            v += 1
            b, lo_prev, hi_prev = nb, lo, hi
            rows.append((lo, b, v, vp, vn, hi))
        return rows

    def banded_trace(
        self, words: list[int], rows: list[Band]
    ) -> tuple[list[int], list[int], list[int]]:
        """The alignment of the banded DP's trace (``trace_to_alignment``),
        its choices made again from the costs, as the DP made them."""

        def neighbours(i: int, j: int, value: int) -> tuple[int, int, int]:
            cur, prev = rows[i], rows[i - 1]
            return _cost(prev, j - 1), _cost(prev, j), _cost(cur, j - 1)

        return _trace(words, self.ref.ids, self.n, self.m, 0, neighbours)

    def exact_trace(
        self, words: list[int], steps: list[tuple[int, int, int, int]]
    ) -> tuple[list[int], list[int], list[int]]:
        """The same alignment, read off Myers' bit vectors (exact distances)."""

        def neighbours(i: int, j: int, value: int) -> tuple[int, int, int]:
            # D[i-1][j-1], D[i-1][j], D[i][j-1] from value = D[i][j]
            vp, vn, hp, hn = steps[i]
            bit = 1 << (j - 1)
            left = value - (1 if vp & bit else -1 if vn & bit else 0)
            up = value - (1 if hp & bit else -1 if hn & bit else 0)
            if j > 1:
                bit >>= 1
                diag = left - (1 if hp & bit else -1 if hn & bit else 0)
            else:
                diag = left - 1  # D[i][0] - D[i-1][0] == 1
            return diag, up, left

        return _trace(words, self.ref.ids, self.n, self.m, self.distance_of(steps), neighbours)


def _trace(
    words: list[int],
    ref_ids: list[int],
    i: int,
    j: int,
    value: int,
    neighbours: Callable[[int, int, int], tuple[int, int, int]],
) -> tuple[list[int], list[int], list[int]]:
    """SacreBLEU's ``trace_to_alignment`` of a DP walked back from ``D[i][j]``
    (``value``): ``neighbours(i, j, value)`` gives the costs of the cells
    diagonally before it, above it and to its left.  Ties go to the
    diagonal, then up, then left, as SacreBLEU's DP records them."""
    align = [0] * j
    hyp_err = [1] * i
    ref_err = [1] * j
    while i > 0 and j > 0:
        diag, up, left = neighbours(i, j, value)
        match = ref_ids[j - 1] == words[i - 1]
        best = diag if match else diag + 1
        op = 0
        if up + 1 < best:
            best = up + 1
            op = 1
        if left + 1 < best:
            op = 2
        if op == 0:
            value = diag
            j -= 1
            i -= 1
            align[j] = i
            if match:
                hyp_err[i] = ref_err[j] = 0
        elif op == 1:
            value = up
            i -= 1
        else:
            value = left
            j -= 1
            align[j] = i - 1
    while j > 0:  # row 0: reference words before any hypothesis word
        j -= 1
        align[j] = -1
    return align, hyp_err, ref_err


def _shift_candidates(
    pair: _Pair,
    words: list[int],
    align: list[int],
    hyp_err: list[int],
    ref_err: list[int],
    budget: int,
) -> tuple[dict[tuple[int, int, int], None], int]:
    """SacreBLEU's shift candidates of one round, as distinct (start, length, target).

    Also returns how many candidates SacreBLEU counts (every target of every
    (start, reference start, length) that passes its filters), stopping as
    soon as the count reaches ``budget``: the round is then void.
    """
    ref = pair.ref
    ref_ids, positions, unknown = ref.ids, ref.positions, ref.unknown
    n, m = pair.n, pair.m
    # The first error at or after each position, on each side.
    next_hyp_err = [n] * (n + 1)
    for k in range(n - 1, -1, -1):
        next_hyp_err[k] = k if hyp_err[k] else next_hyp_err[k + 1]
    next_ref_err = [m] * (m + 1)
    for k in range(m - 1, -1, -1):
        next_ref_err[k] = k if ref_err[k] else next_ref_err[k + 1]
    # The target for each offset: 0 before the reference start, else after
    # the hypothesis word the reference word is aligned to.
    targets = [0] + [a + 1 for a in align]

    found: dict[tuple[int, int, int], None] = {}
    counted = 0
    for start_h in range(n):
        w = words[start_h]
        if w == unknown:
            continue
        shortest_h = next_hyp_err[start_h] - start_h + 1
        if shortest_h > MAX_SHIFT_SIZE:
            continue  # no block from here holds a hypothesis error
        where = positions[w]
        k = bisect_left(where, start_h - MAX_SHIFT_DIST)
        last_r = start_h + MAX_SHIFT_DIST
        for start_r in where[k:]:
            if start_r > last_r:
                break
            shortest = next_ref_err[start_r] - start_r + 1
            if shortest < shortest_h:
                shortest = shortest_h
            longest = 1
            while (
                longest < MAX_SHIFT_SIZE
                and start_h + longest < n
                and start_r + longest < m
                and words[start_h + longest] == ref_ids[start_r + longest]
            ):
                longest += 1
            aligned = align[start_r]
            if start_h <= aligned and aligned - start_h < longest:
                longest = aligned - start_h  # no shift within the block itself
            for length in range(shortest, longest + 1):
                previous = -1
                for target in targets[start_r : start_r + length + 1]:
                    if target != previous:
                        previous = target
                        counted += 1
                        found[(start_h, length, target)] = None
                if counted >= budget:
                    return found, counted
    return found, counted


def _by_potential(
    found: dict[tuple[int, int, int], None],
) -> list[tuple[int, int, int, int]]:
    """The shifts as (most edits a shift can save, length, start, target),
    the most promising first, identity shifts left out (they gain nothing,
    and a round without a gain ends the search).

    The best shift does not depend on the order the shifts are scored in
    (SacreBLEU's ranking has no ties left once ``start``, ``length`` and
    ``target`` are fixed), so the order only serves to find a good shift
    early and skip those that cannot beat it.
    """
    out = []
    for start, length, target in found:
        if target < start:
            jumped = start - target
        elif target > start + length:
            jumped = target - start - length
        else:
            jumped = target - start
        if jumped:
            out.append((2 * min(length, jumped), length, start, target))
    out.sort(key=lambda c: (-c[0], -c[1], c[2], c[3]))
    return out


def _lower_bound(words: list[int], ref: Reference) -> int:
    """A lower bound of the edit distance of any reordering of ``words``:
    ``max(n, m)`` minus the words the two have in common."""
    counts: dict[int, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    positions = ref.positions
    common = sum(min(c, len(positions[w])) for w, c in counts.items())
    return max(len(words), len(ref.ids)) - common


def py_count_edits(words_hyp: Sequence[str], ref: Reference) -> int:
    """SacreBLEU's ``translation_edit_rate(words_hyp, words_ref)[0]``: the
    number of edits (shifts and banded edit distance) of a tokenized
    hypothesis against a prepared reference."""
    m = len(ref.ids)
    n = len(words_hyp)
    if m == 0:
        return n
    if n == 0:
        return m
    vocab_get = ref.vocab.get
    unknown = ref.unknown
    words = [vocab_get(w, unknown) for w in words_hyp]
    pair = _Pair(ref, n)
    floor_distance = _lower_bound(words, ref)
    bound = pair.bound
    shifts = 0
    checked = 0
    steps = pair.forward(words) if n * m <= MAX_EXACT_CELLS else None
    while True:
        rows: list[Band] | None = None
        if steps is not None and pair.distance_of(steps) <= bound:
            distance = pair.distance_of(steps)
        else:
            rows = pair.banded_rows(words, [pair.first_row()])
            distance = _cost(rows[n], m)
        if distance - floor_distance <= 1:
            break  # a shift could gain one edit at most, and costs one
        if rows is None:
            align, hyp_err, ref_err = pair.exact_trace(words, steps)  # type: ignore[arg-type]
        else:
            align, hyp_err, ref_err = pair.banded_trace(words, rows)
        found, counted = _shift_candidates(
            pair, words, align, hyp_err, ref_err, MAX_SHIFT_CANDIDATES - checked
        )
        checked += counted
        if checked >= MAX_SHIFT_CANDIDATES:
            break  # SacreBLEU stops before applying this round's shift
        # The beam can only add to a distance: ``slack`` is how much it adds
        # to this one (unknown without the exact distance).
        slack = distance - pair.distance_of(steps) if steps is not None else distance
        best: tuple[int, int, int, int] | None = None
        best_words: list[int] = words
        best_first = 0
        for potential, length, start, target in _by_potential(found):
            # At most 2 * min(length, words jumped) edits undo a shift, so
            # by the triangle inequality it gains at most that (plus slack).
            if best is not None and (potential + slack, length, -start, -target) <= best:
                continue
            shifted = perform_shift(words, start, length, target)
            if target < start:
                first, stop = target, start + length
            elif target > start + length:
                first, stop = start, target
            else:
                first, stop = start, target + length
            if steps is not None:
                exact = pair.distance_from(steps, shifted, first, stop)
                # the gain if the beam changes nothing, else an upper bound
                key = (distance - exact, length, -start, -target)
                if key[0] <= 0 or (best is not None and key <= best):
                    continue
                if exact <= bound:
                    best, best_words, best_first = key, shifted, first
                    continue
            if rows is None:
                rows = pair.banded_rows(words, [pair.first_row()])
            banded = _cost(pair.banded_rows(shifted, rows[: first + 1])[n], m)
            key = (distance - banded, length, -start, -target)
            if key[0] > 0 and (best is None or key > best):
                best, best_words, best_first = key, shifted, first
        if best is None:
            break
        shifts += 1
        words = best_words
        if steps is not None:
            steps = pair.forward(words, steps, best_first)
    return shifts + distance


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
count_edits: Callable[[Sequence[str], Reference], int] = (
    py_count_edits if native is None else native.count_edits
)
