/*
 * The VCF/VCT threat solver of engine/mnk/threats/solver.py, in C: the solver state
 * (LineState's window counts and hot lists), its small containers, and the search.
 * Included by _threatcore.c (the module) after _renju.h; everything here is static.
 *
 * Freestyle, and renju when the geometry says so.  Under renju the window counts still
 * find every candidate, and LineState's renju answers are kept: black's completions are
 * exactly five (s_wins_at), black's forbidden points are no moves of black's -- no four,
 * three, double threat or defence (s_forbidden) -- and a white completion whose only
 * block is forbidden for black cannot be stopped (unstoppable).
 *
 * Vocabulary as in engine/mnk/threats/kinds.py.  Cells are padded indices; a window is
 * K consecutive on-board cells; hot[p] holds the windows with no opponent
 * stone and at least K-2 stones of p (the only windows fours live in).
 */
/* ------------------------------------------------------------------------ */
/* Small growable int vectors and sets of failed positions.                  */

typedef struct { int *v; int n, cap; } IVec;

typedef struct S S;
static void oom(S *s);
typedef struct PN PN;           /* the best-first search's tree (_pns.h) */
static void pn_free(PN *t);

/* Vectors start at POOL_CAP ints, taken from and given back to the state's pool: the
 * solver makes and drops a few vectors at every node, and malloc/free would cost it
 * about a tenth of its time. */
#define POOL_CAP 64
#define POOL_MAX 64
#define FB_BITS 14          /* slots of the forbidden points' memory: 2^14 */
static int *pool_take(S *s);
static void pool_give(S *s, int *v);

static void iv_free(S *s, IVec *a) {
    if (a->cap == POOL_CAP) pool_give(s, a->v);
    else free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

static int iv_push(S *s, IVec *a, int x) {
    if (a->n == a->cap) {
        if (!a->cap) {
            if (!(a->v = pool_take(s))) { oom(s); return 0; }
            a->cap = POOL_CAP;
            a->v[a->n++] = x;
            return 1;
        }
        int cap = 2 * a->cap;
        int *v = realloc(a->v, sizeof(int) * (size_t)cap);
        if (!v) { oom(s); return 0; }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 1;
}

/* Sort v[0..n) ascending: insertion sort for short runs, quicksort (median of three,
 * the smaller side first in recursion) above them, with no calls through pointers. */
static void sort_ints(int *v, int n) {
    while (n > 24) {
        int a = v[0], b = v[n / 2], c = v[n - 1];
        int pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int i = 0, j = n - 1;
        for (;;) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i >= j) break;
            int t = v[i]; v[i] = v[j]; v[j] = t;
            i++; j--;
        }
        /* v[0..j] <= pivot <= v[j+1..n) */
        if (j + 1 < n - j - 1) { sort_ints(v, j + 1); v += j + 1; n -= j + 1; }
        else { sort_ints(v + j + 1, n - j - 1); n = j + 1; }
    }
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
}

static void sort_unique(IVec *a) {
    if (a->n < 2) return;
    sort_ints(a->v, a->n);
    int m = 1;
    for (int i = 1; i < a->n; i++)
        if (a->v[i] != a->v[m - 1]) a->v[m++] = a->v[i];
    a->n = m;
}

static int iv_has(const IVec *a, int x) {
    for (int i = 0; i < a->n; i++)
        if (a->v[i] == x) return 1;
    return 0;
}

/* Open-addressing set of (hash, tag) pairs: the solver's "no win here" memory.  A slot
 * belongs to the set while its gen byte is the set's: a new run empties the set by a new
 * gen, so the small runs of the tree (thousands a second) neither clear nor regrow a table.
 * The gens sit in an array of their own: most lookups miss, and read only that one. */
typedef struct { uint64_t *key; int *tag; unsigned char *gen; size_t cap, n; unsigned char now; } HSet;

/* Tables above this many slots are freed at a new run rather than kept. */
#define HS_KEEP_CAP 16384

static size_t hs_slot(const HSet *h, uint64_t key, int tag) {
    uint64_t x = key ^ ((uint64_t)(unsigned)tag * 0x9E3779B97F4A7C15ULL);
    x ^= x >> 31;
    size_t i = (size_t)x & (h->cap - 1);
    while (h->gen[i] == h->now && !(h->key[i] == key && h->tag[i] == tag)) i = (i + 1) & (h->cap - 1);
    return i;
}

static int hs_has(const HSet *h, uint64_t key, int tag) {
    if (!h->cap) return 0;
    return h->gen[hs_slot(h, key, tag)] == h->now;
}

static int hs_grow(HSet *h) {
    size_t cap = h->cap ? 2 * h->cap : 1024;
    HSet n = {malloc(cap * sizeof(uint64_t)), malloc(cap * sizeof(int)), calloc(cap, 1), cap, 0, 1};
    if (!n.key || !n.tag || !n.gen) { free(n.key); free(n.tag); free(n.gen); return 0; }
    for (size_t i = 0; i < h->cap; i++)
        if (h->gen[i] == h->now) {
            size_t j = hs_slot(&n, h->key[i], h->tag[i]);
            n.gen[j] = 1; n.key[j] = h->key[i]; n.tag[j] = h->tag[i]; n.n++;
        }
    free(h->key); free(h->tag); free(h->gen);
    *h = n;
    return 1;
}

static void hs_free(HSet *h) { free(h->key); free(h->tag); free(h->gen); memset(h, 0, sizeof *h); }

/* Empty the set for a new run. */
static void hs_clear(HSet *h) {
    if (h->cap > HS_KEEP_CAP) { hs_free(h); return; }
    h->n = 0;
    if (++h->now == 0) {  /* the gens wrapped: old slots would come back */
        memset(h->gen, 0, h->cap);
        h->now = 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Solver state: LineState plus the budget of one run.                       */

struct S {
    const GeomObject *g;
    int k;
    signed char *cells;   /* the padded board, with g->margin border cells on each side */
    short *cnt[3];      /* cnt[p][w]: stones of p in window w */
    int *hot[3];        /* hot windows of p, unordered */
    int nhot[3];
    int *hotpos[3];     /* index in hot[p], or -1 */
    uint64_t hash;
    long long nodes, max_nodes;
    double deadline;    /* on this module's clock; < 0: none */
    int aborted;        /* 1: budget spent, 2: out of memory */
    HSet failed, failed_vct;
    int renju;          /* g->renju */
    uint64_t *fb_key;   /* renju: the memory of black's forbidden points (FB_BITS slots) */
    unsigned char *fb_val;
    uint64_t fb_salt;   /* changes with every s_load, so a new position forgets the old */
    unsigned char *seq; /* seq[c]: c holds a stone the attacker played in the line being searched */
    int nseq;
    uint64_t seq_key;   /* those cells' keys, folded into the VCT failure set's keys */
    int *pool[POOL_MAX]; /* free vector buffers of POOL_CAP ints */
    int npool;
    PN *pn;             /* allocated by the first best-first run, freed with the state */
};

static void oom(S *s) { s->aborted = 2; }

static int *pool_take(S *s) {
    return s->npool ? s->pool[--s->npool] : malloc(sizeof(int) * POOL_CAP);
}

static void pool_give(S *s, int *v) {
    if (s->npool < POOL_MAX) s->pool[s->npool++] = v;
    else free(v);
}

/* Remember (key, tag) in h, growing it at half load. */
static void hs_add(S *s, HSet *h, uint64_t key, int tag) {
    if (hs_has(h, key, tag)) return;
    if (h->n * 2 >= h->cap && !hs_grow(h)) { oom(s); return; }
    size_t slot = hs_slot(h, key, tag);
    h->key[slot] = key;
    h->tag[slot] = tag;
    h->gen[slot] = h->now;
    h->n++;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void hot_set(S *s, int p, int w, int want) {
    int at = s->hotpos[p][w];
    if (want && at < 0) {
        s->hotpos[p][w] = s->nhot[p];
        s->hot[p][s->nhot[p]++] = w;
    } else if (!want && at >= 0) {
        int last = s->hot[p][--s->nhot[p]];
        s->hot[p][at] = last;
        s->hotpos[p][last] = at;
        s->hotpos[p][w] = -1;
    }
}

/* Keep hot[q] = {w : cnt[3-q][w] == 0 and cnt[q][w] >= K-2} for both sides. */
static inline void hot_refresh(S *s, int w) {
    int lo = s->k - 2;
    hot_set(s, 1, w, s->cnt[2][w] == 0 && s->cnt[1][w] >= lo);
    hot_set(s, 2, w, s->cnt[1][w] == 0 && s->cnt[2][w] >= lo);
}

/* Where SSE2 is at hand (every x86-64), the window counts are read and written eight at a time. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_SSE2 1

/* LANES[n]: -1 in the first n of eight 16-bit lanes, 0 in the others. */
static const short LANES[RUN_MAX + 1][8] __attribute__((aligned(16))) = {
    {0}, {-1}, {-1, -1}, {-1, -1, -1}, {-1, -1, -1, -1}, {-1, -1, -1, -1, -1},
    {-1, -1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1, -1, -1, -1},
};

/* The lanes (windows w0 + i) whose 16-bit lanes are all ones in mask m, each passed to hot_set. */
#define RUN_HOT_SET(s, side, w0, m, want)                                       \
    for (unsigned bits_ = (unsigned)_mm_movemask_epi8(m); bits_; bits_ &= bits_ - 1, bits_ &= bits_ - 1) \
        hot_set(s, side, (w0) + (__builtin_ctz(bits_) >> 1), want)

/* place/take on the runs of the windows through `cell` (Geometry.runs): add `delta` (+1 or -1)
 * to p's counts, a run at a time, and apply the hot-list transitions of place and take.  The
 * loads and stores reach up to RUN_MAX - 1 counts past a run (s_alloc pads the arrays); they
 * write back what they read there.  Always inlined: place and take each get the code for their
 * own delta. */
__attribute__((always_inline)) static inline void runs_move(S *s, int cell, int p, int delta) {
    const GeomObject *g = s->g;
    int o = 3 - p, lo = s->k - 2, want = delta > 0;
    short *own = s->cnt[p], *opp = s->cnt[o];
    const __m128i zero = _mm_setzero_si128(), step = _mm_set1_epi16((short)delta);
    const __m128i vlo1 = _mm_set1_epi16((short)(lo - 1));
    /* After the change, p's window turns hot (place) or cold (take) where it holds K-2 (place)
     * or K-3 (take) stones of p and none of o's; o's turns cold (place) or hot (take) where it
     * holds K-2 or more of o's and now 1 (place) or 0 (take) of p's. */
    const __m128i own_at = _mm_set1_epi16((short)(want ? lo : lo - 1)), opp_at = _mm_set1_epi16((short)want);
    for (int d = 0; d < 4; d++) {
        int n = g->run_n[4 * cell + d], w0 = g->run_w[4 * cell + d];
        if (!n) continue;
        __m128i m = _mm_load_si128((const __m128i *)LANES[n]);
        __m128i *at = (__m128i *)(own + w0);
        __m128i c = _mm_add_epi16(_mm_loadu_si128(at), _mm_and_si128(m, step));
        __m128i x = _mm_loadu_si128((const __m128i *)(opp + w0));
        _mm_storeu_si128(at, c);
        __m128i mine = _mm_and_si128(m, _mm_and_si128(_mm_cmpeq_epi16(c, own_at), _mm_cmpeq_epi16(x, zero)));
        __m128i theirs = _mm_and_si128(m, _mm_and_si128(_mm_cmpeq_epi16(c, opp_at), _mm_cmpgt_epi16(x, vlo1)));
        RUN_HOT_SET(s, p, w0, mine, want);
        RUN_HOT_SET(s, o, w0, theirs, !want);
    }
}
#endif

static void place(S *s, int cell, int p) {
    const GeomObject *g = s->g;
    s->cells[cell] = (signed char)p;
    s->hash ^= g->zob[2 * cell + p - 1];
#ifdef HAVE_SSE2
    if (g->runs) { runs_move(s, cell, p, 1); return; }
#endif
    /* Only two transitions are possible per window (see hot_refresh): it turns hot
     * for p on reaching K-2 stones, and stops being hot for the opponent on its
     * first stone of p (it was hot for the opponent iff it held K-2 or more of theirs). */
    int o = 3 - p, lo = s->k - 2;
    short *own = s->cnt[p], *opp = s->cnt[o];
    const int *w = g->cw + g->cw_start[cell], *end = g->cw + g->cw_start[cell + 1];
    for (; w < end; w++) {
        int wi = *w, c = ++own[wi];
        if (c == lo && opp[wi] == 0) hot_set(s, p, wi, 1);
        else if (c == 1 && opp[wi] >= lo) hot_set(s, o, wi, 0);
    }
}

static void take(S *s, int cell) {
    const GeomObject *g = s->g;
    int p = s->cells[cell];
    s->cells[cell] = 0;
    s->hash ^= g->zob[2 * cell + p - 1];
#ifdef HAVE_SSE2
    if (g->runs) { runs_move(s, cell, p, -1); return; }
#endif
    /* The reverse of place's two transitions. */
    int o = 3 - p, lo = s->k - 2;
    short *own = s->cnt[p], *opp = s->cnt[o];
    const int *w = g->cw + g->cw_start[cell], *end = g->cw + g->cw_start[cell + 1];
    for (; w < end; w++) {
        int wi = *w, c = --own[wi];
        if (c == lo - 1 && opp[wi] == 0) hot_set(s, p, wi, 0);
        else if (c == 0 && opp[wi] >= lo) hot_set(s, o, wi, 1);
    }
}

/* The first window from w on with `count` stones of p and none of the opponent's, or -1. */
static inline int next_window_with(const S *s, int p, int count, int w) {
    const int nwin = s->g->nwin;
#ifdef HAVE_SSE2
    /* Eight windows a step: the counts are padded past the last window (s_alloc). */
    const __m128i vc = _mm_set1_epi16((short)count), zero = _mm_setzero_si128();
    for (; w < nwin; w += 8) {
        __m128i mine = _mm_loadu_si128((const __m128i *)(s->cnt[p] + w));
        __m128i theirs = _mm_loadu_si128((const __m128i *)(s->cnt[3 - p] + w));
        unsigned bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi16(mine, vc), _mm_cmpeq_epi16(theirs, zero)));
        if (bits) {
            w += __builtin_ctz(bits) >> 1;
            return w < nwin ? w : -1;
        }
    }
#else
    for (; w < nwin; w++)
        if (s->cnt[p][w] == count && s->cnt[3 - p][w] == 0) return w;
#endif
    return -1;
}

static int tick(S *s) {
    s->nodes++;
    if (s->nodes > s->max_nodes) { s->aborted = 1; return 0; }
    if (s->deadline >= 0 && (s->nodes & 31) == 1 && now_seconds() > s->deadline) { s->aborted = 1; return 0; }
    return 1;
}

/* A necessary condition for black's empty c to be forbidden, from the window counts (no
 * window through c holding a white stone counts): one line through c with a window of
 * four black stones (a six once c is played) or two windows of three (a double four on one
 * line), or two lines each with a window of two (every four and three of c lies in such a
 * window: a three is c and two more stones of a straight four).  Eight windows at a time,
 * it turns most cells away before rj_may_be_forbidden reads the cells. */
static inline int s_may_be_forbidden(const S *s, int c) {
#ifdef HAVE_SSE2
    const GeomObject *g = s->g;
    if (g->runs) {
        const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi16(1);
        const __m128i two = _mm_set1_epi16(2), three = _mm_set1_epi16(3);
        int lines = 0;
        for (int d = 0; d < 4; d++) {
            int n = g->run_n[4 * c + d], w0 = g->run_w[4 * c + d];
            if (!n) continue;
            __m128i live = _mm_and_si128(_mm_load_si128((const __m128i *)LANES[n]),
                                         _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(s->cnt[2] + w0)), zero));
            __m128i black = _mm_loadu_si128((const __m128i *)(s->cnt[1] + w0));
            unsigned pairs = (unsigned)_mm_movemask_epi8(_mm_and_si128(live, _mm_cmpgt_epi16(black, one)));
            if (!pairs) continue;
            if (_mm_movemask_epi8(_mm_and_si128(live, _mm_cmpgt_epi16(black, three)))) return 1;
            if (__builtin_popcount((unsigned)_mm_movemask_epi8(_mm_and_si128(live, _mm_cmpgt_epi16(black, two)))) >= 4)
                return 1;
            if (++lines >= 2) return 1;
        }
        return 0;
    }
#endif
    (void)s;
    (void)c;
    return 1;
}

/* Renju: may black not play the empty cell c?  (Never for white, never under freestyle.) */
static inline int s_forbidden(S *s, int c, int p) {
    if (!s->renju || p != 1 || s->cells[c] != RJ_EMPTY || !s_may_be_forbidden(s, c) ||
        !rj_may_be_forbidden(s->cells, c, s->g->dirs))
        return 0;
    /* The full test costs far more than its cheap filter, and the search asks it of the
     * same cell in the same position many times (four_edges, fours_with, the defences):
     * it is remembered by position and cell.  A slot's key is never 0 (the empty slot). */
    uint64_t key = (s->hash ^ s->fb_salt ^ ((uint64_t)(c + 1) * 0x9E3779B97F4A7C15ULL)) | 1;
    size_t i = (size_t)(key >> (64 - FB_BITS));
    if (s->fb_key[i] == key) return s->fb_val[i];
    int forbidden = rj_reason(s->cells, c, s->g->dirs) != RJ_ALLOWED;
    s->fb_key[i] = key;
    s->fb_val[i] = (unsigned char)forbidden;
    return forbidden;
}

/* Does p's stone on the empty cell c, found in a window of K-1 stones of p, win?  Always
 * under freestyle and for white; black under renju needs exactly five (LineState.wins_at). */
static inline int s_wins_at(S *s, int c, int p) {
    if (!s->renju || p != 1) return 1;
    int lo, hi, win = 0;
    s->cells[c] = 1;
    for (int i = 0; i < 4 && !win; i++) win = rj_run(s->cells, c, s->g->dirs[i], &lo, &hi) == 5;
    s->cells[c] = 0;
    return win;
}

/* p's completing cells w (not empty): can no single reply stop them all (not LineState.killers)?
 * Two cannot be stopped by one stone; under renju neither can one that black may not block. */
static inline int unstoppable(S *s, int p, const IVec *w) {
    return w->n >= 2 || (w->n == 1 && s_forbidden(s, w->v[0], 3 - p));
}

/* Empty cells of the hot windows of p holding `count` stones, sorted. */
static void empties_with(S *s, int p, int count, IVec *out) {
    const GeomObject *g = s->g;
    int k = s->k;
    out->n = 0;
    for (int i = 0; i < s->nhot[p]; i++) {
        int w = s->hot[p][i];
        if (s->cnt[p][w] != count) continue;
        const int *win = g->win + w * k;
        for (int j = 0; j < k; j++)
            if (s->cells[win[j]] == 0 && !iv_push(s, out, win[j])) return;
    }
    sort_unique(out);
}

/* LineState.completing: cells where p completes a line now. */
static void completing(S *s, int p, IVec *out) {
    empties_with(s, p, s->k - 1, out);
    if (!s->renju || p != 1) return;
    int m = 0;
    for (int i = 0; i < out->n; i++)
        if (s_wins_at(s, out->v[i], p)) out->v[m++] = out->v[i];
    out->n = m;
}

/* LineState.new_completions: completing cells in the windows through `cell` (sorted when
 * `out`; with out NULL, returns at the first). */
static int new_completions(S *s, int cell, int p, IVec *out) {
    const GeomObject *g = s->g;
    int k = s->k, n = 0;
    if (out) out->n = 0;
    for (int i = g->cw_start[cell]; i < g->cw_start[cell + 1]; i++) {
        int w = g->cw[i];
        if (s->cnt[p][w] != k - 1 || s->cnt[3 - p][w] != 0) continue;
        const int *win = g->win + w * k;
        int c = -1;
        for (int j = 0; j < k && c < 0; j++)
            if (s->cells[win[j]] == 0) c = win[j];
        if (c < 0 || !s_wins_at(s, c, p)) continue;
        n++;
        if (!out) return 1;
        if (!iv_push(s, out, c)) break;
    }
    if (out) sort_unique(out);
    return out ? out->n : n;
}

static int has_new_completion(S *s, int cell, int p) { return new_completions(s, cell, p, NULL); }

/* No legal reply: the low half of a second edge of a four that black may not block. */
#define NO_REPLY 0xFFFF

/* Run [i, *end) of equal cells in edges; returns the cell. */
static inline int run_of(const IVec *edges, int i, int *end) {
    int c = edges->v[i] >> 16, j = i + 1;
    while (j < edges->n && (edges->v[j] >> 16) == c) j++;
    *end = j;
    return c;
}

/* four_edges under renju, from the window pairs: black's fours on forbidden points go, and
 * so do black's completions that are not exactly five; a four whose one completion black
 * may not block gets a second edge to NO_REPLY.  (The pairs hold every four: a new
 * completion lies in a window through the new stone, which held K-2 stones before.) */
static void renju_fours(S *s, int p, IVec *edges) {
    IVec out = {0};
    for (int i = 0, j; i < edges->n; i = j) {
        int c = run_of(edges, i, &j), kept = 0, last = -1;
        if (s_forbidden(s, c, p)) continue;
        /* The rules' tests read the cells alone (the window counts, which miss this stone, only
         * let more cells through s_may_be_forbidden); the hash keys the forbidden points' memory. */
        s->cells[c] = (signed char)p;
        s->hash ^= s->g->zob[2 * c + p - 1];
        for (int e = i; e < j; e++) {
            int b = edges->v[e] & 0xFFFF;
            if (!s_wins_at(s, b, p)) continue;
            if (!iv_push(s, &out, edges->v[e])) break;
            kept++;
            last = b;
        }
        if (kept == 1 && s_forbidden(s, last, 3 - p)) iv_push(s, &out, (c << 16) | NO_REPLY);
        s->cells[c] = 0;
        s->hash ^= s->g->zob[2 * c + p - 1];
    }
    iv_free(s, edges);
    *edges = out;
}

/* LineState.four_options: every four of p, who has no completing cell.
 * `edges` gets (cell << 16 | completion) sorted and unique: the options are its runs
 * of equal cell, the completions their low halves (one completion: the only reply;
 * two or more: a double threat, or under renju a four whose one completion black may
 * not block, marked by a second edge to NO_REPLY). */
static void four_edges(S *s, int p, IVec *edges) {
    const GeomObject *g = s->g;
    int k = s->k;
    edges->n = 0;
    for (int i = 0; i < s->nhot[p]; i++) {
        int w = s->hot[p][i];
        if (s->cnt[p][w] != k - 2) continue;
        const int *win = g->win + w * k;
        int e[2], ne = 0;
        for (int j = 0; j < k; j++)
            if (s->cells[win[j]] == 0) {
                if (ne < 2) e[ne] = win[j];
                ne++;
            }
        if (ne != 2) continue;
        if (!iv_push(s, edges, (e[0] << 16) | e[1]) || !iv_push(s, edges, (e[1] << 16) | e[0])) return;
    }
    sort_unique(edges);
    if (s->renju) renju_fours(s, p, edges);
}

/* Moves of p after which it has a completing cell (need 1: LineState.fours) or completing
 * cells no single reply stops (need 2: LineState.double_moves; one stone stops a single
 * completion, never two, unless black may not play it). */
static void fours_with(S *s, int p, int need, IVec *out) {
    IVec now = {0};
    out->n = 0;
    completing(s, p, &now);
    if (!now.n) {
        IVec edges = {0};
        four_edges(s, p, &edges);
        for (int i = 0, j; i < edges.n; i = j) {
            int c = run_of(&edges, i, &j);
            if (j - i >= need && !iv_push(s, out, c)) break;
        }
        iv_free(s, &edges);
    } else {
        IVec cand = {0}, w = {0};
        empties_with(s, p, s->k - 2, &cand);
        for (int i = 0; i < cand.n && !s->aborted; i++) {
            int c = cand.v[i];
            if (iv_has(&now, c) || s_forbidden(s, c, p)) continue;
            place(s, c, p);
            completing(s, p, &w);
            int hit = need == 1 ? w.n > 0 : w.n > 0 && unstoppable(s, p, &w);
            take(s, c);
            if (hit && !iv_push(s, out, c)) break;
        }
        iv_free(s, &cand);
        iv_free(s, &w);
    }
    iv_free(s, &now);
}

static void double_moves(S *s, int p, IVec *out) { fours_with(s, p, 2, out); }
static void fours(S *s, int p, IVec *out) { fours_with(s, p, 1, out); }

/* solver._double_defences: moves of side `sd` after which the other side has
 * no completion and no double-threat move left.  Sorted. */
static void double_defences(S *s, int sd, const IVec *threats, IVec *out) {
    const GeomObject *g = s->g;
    int k = s->k, o = 3 - sd;
    IVec cand = {0}, spoil = {0}, tmp = {0};
    out->n = 0;
    for (int t = 0; t < threats->n; t++) {
        int c0 = threats->v[t];
        spoil.n = 0;
        if (!iv_push(s, &spoil, c0)) goto done;
        for (int i = g->cw_start[c0]; i < g->cw_start[c0 + 1]; i++) {
            int w = g->cw[i];
            if (s->cnt[sd][w] != 0 || s->cnt[o][w] != k - 2) continue;
            const int *win = g->win + w * k;
            for (int j = 0; j < k; j++)
                if (s->cells[win[j]] == 0 && !iv_push(s, &spoil, win[j])) goto done;
        }
        sort_unique(&spoil);
        if (t == 0) {
            IVec sw = cand; cand = spoil; spoil = sw;
        } else {
            tmp.n = 0;
            for (int a = 0, b = 0; a < cand.n && b < spoil.n;) {
                if (cand.v[a] < spoil.v[b]) a++;
                else if (cand.v[a] > spoil.v[b]) b++;
                else { if (!iv_push(s, &tmp, cand.v[a])) goto done; a++; b++; }
            }
            IVec sw = cand; cand = tmp; tmp = sw;
        }
        if (!cand.n) goto done;
    }
    if (!s->renju) {
        /* Freestyle, worked out without playing m: a stone of sd on m leaves the other side
         * its completions but m, and the four edges of the windows that do not hold m (a
         * window with K-1 or K-2 stones of o holds the empty m iff m is one of its empties). */
        IVec comp = {0}, edges = {0};
        completing(s, o, &comp);
        if (comp.n <= 1) four_edges(s, o, &edges);
        for (int i = 0; i < cand.n && comp.n <= 1; i++) {
            int m = cand.v[i], holds = comp.n == 0 || comp.v[0] == m;
            for (int a = 0, b; a < edges.n && holds; a = b) {
                int x = run_of(&edges, a, &b), left = b - a;
                if (x == m) continue;
                for (int e = a; e < b; e++) left -= (edges.v[e] & 0xFFFF) == m;
                holds = left < 2;
            }
            if (holds && !iv_push(s, out, m)) break;
        }
        iv_free(s, &comp);
        iv_free(s, &edges);
    } else {
        IVec w = {0};
        for (int i = 0; i < cand.n && !s->aborted; i++) {
            int m = cand.v[i];
            if (s_forbidden(s, m, sd)) continue; /* black's forbidden points defend nothing */
            place(s, m, sd);
            completing(s, o, &w);
            int holds = !w.n;
            if (holds) {
                double_moves(s, o, &w);
                holds = !w.n;
            }
            take(s, m);
            if (holds && !iv_push(s, out, m)) break;
        }
        iv_free(s, &w);
    }
done:
    iv_free(s, &cand);
    iv_free(s, &spoil);
    iv_free(s, &tmp);
}

/* solver._threat_replies: the defender's real answers once `a` has played m.
 * `threats` NULL: find a's double-threat moves; returns 0 ("None") if there are none.
 * Otherwise 1, with the sorted answers in out (empty: m wins). */
static int threat_replies(S *s, int a, int m, const IVec *threats, IVec *out) {
    int d = 3 - a;
    IVec found = {0}, def = {0}, fr = {0};
    int result = 1;
    out->n = 0;
    place(s, m, a);
    if (!threats) {
        double_moves(s, a, &found);
        if (!found.n) { result = 0; goto done; }
        threats = &found;
    }
    double_defences(s, d, threats, &def);
    fours(s, d, &fr);
    for (int i = 0; i < def.n; i++) if (!iv_push(s, out, def.v[i])) goto done;
    for (int i = 0; i < fr.n; i++) if (!iv_push(s, out, fr.v[i])) goto done;
    sort_unique(out);
done:
    take(s, m);
    iv_free(s, &found);
    iv_free(s, &def);
    iv_free(s, &fr);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Lines and the search.                                                     */

typedef struct { int n; int v[]; } Line;

static Line *line_one(S *s, int m) {
    Line *l = malloc(sizeof(Line) + sizeof(int));
    if (!l) { oom(s); return NULL; }
    l->n = 1;
    l->v[0] = m;
    return l;
}

/* [m, r] + sub; frees sub. */
static Line *line_prefix(S *s, int m, int r, Line *sub) {
    Line *l = malloc(sizeof(Line) + sizeof(int) * (size_t)(sub->n + 2));
    if (!l) { free(sub); oom(s); return NULL; }
    l->n = sub->n + 2;
    l->v[0] = m;
    l->v[1] = r;
    memcpy(l->v + 2, sub->v, sizeof(int) * (size_t)sub->n);
    free(sub);
    return l;
}

static Line *vcf(S *s, int a, int depth);
static Line *vct(S *s, int a, int depth, int threes_left);

/* solver._wins_against_every_reply: a plays m; the line holds only if the search
 * (VCF when threes < 0, else VCT with `threes` left) wins after every reply. */
static Line *and_step(S *s, int a, int m, const int *replies, int nr, int depth, int threes) {
    int d = 3 - a;
    Line *line = NULL;
    place(s, m, a);
    s->seq[m]++;
    s->nseq++;
    s->seq_key ^= s->g->zob[2 * m + d - 1];
    for (int i = 0; i < nr; i++) {
        place(s, replies[i], d);
        Line *sub = threes < 0 ? vcf(s, a, depth + 1) : vct(s, a, depth + 1, threes);
        take(s, replies[i]);
        if (!sub) { free(line); line = NULL; break; }
        if (!line) {
            line = line_prefix(s, m, replies[i], sub);
            if (!line) break;
        } else {
            free(sub);
        }
    }
    s->seq_key ^= s->g->zob[2 * m + d - 1];
    s->nseq--;
    s->seq[m]--;
    take(s, m);
    return line;
}

static Line *vcf(S *s, int a, int depth) {
    if (!tick(s)) return NULL;
    int d = 3 - a;
    IVec w = {0}, edges = {0};
    Line *found = NULL;
    completing(s, a, &w);
    if (w.n) { found = line_one(s, w.v[0]); goto done; }
    if (depth >= MAX_DEPTH) goto done;
    uint64_t key = s->hash;
    if (hs_has(&s->failed, key, 0)) goto done;
    completing(s, d, &w);
    int stopper = -1;
    if (w.n) {
        if (unstoppable(s, d, &w)) goto fail; /* the defender completes a line whatever the fours */
        stopper = w.v[0];
    }
    four_edges(s, a, &edges);
    if (s->aborted) goto done;
    /* First pass: a four that leaves an unstoppable threat wins at once. */
    for (int i = 0, j; i < edges.n; i = j) {
        int m = run_of(&edges, i, &j);
        if (stopper >= 0 && m != stopper) continue;
        if (j - i >= 2) { found = line_one(s, m); goto done; }
    }
    for (int i = 0, j; i < edges.n; i = j) {
        int m = run_of(&edges, i, &j);
        if (stopper >= 0 && m != stopper) continue;
        int reply = edges.v[i] & 0xFFFF;
        found = and_step(s, a, m, &reply, 1, depth, -1);
        if (found || s->aborted) goto done;
    }
fail:
    hs_add(s, &s->failed, key, 0);
done:
    iv_free(s, &w);
    iv_free(s, &edges);
    return found;
}

typedef struct { int m, cost; IVec replies; } Branch;
typedef struct { int m; IVec dm; } Three;

/* Window w holds K-3 stones of one side and three empty cells, c among them: push the four
 * edges the other two would make once c is played (both orders); 0 when out of memory. */
static inline int push_edges_besides(S *s, int w, int c, IVec *fresh) {
    const int k = s->k, *win = s->g->win + w * k;
    int e[2], ne = 0;
    for (int j = 0; j < k; j++)
        if (win[j] != c && s->cells[win[j]] == 0 && ne < 2) e[ne++] = win[j];
    return iv_push(s, fresh, (e[0] << 16) | e[1]) && iv_push(s, fresh, (e[1] << 16) | e[0]);
}

/* Freestyle, p with no completing cell: the double_moves of p after a stone of p on the
 * empty c, worked out from `base` (p's four_edges now) and the windows through c, without
 * playing c.  dm stays empty when c makes a four instead: a window through c then holds
 * K-2 stones of p and none of the opponent's.  Otherwise the windows with K-2 stones of p
 * after c are those of now plus the ones through c that held K-3; dm gets (sorted) every
 * cell with two completions or more in them. */
static void doubles_after(S *s, int p, int c, const IVec *base, IVec *dm) {
    const GeomObject *g = s->g;
    int k = s->k, o = 3 - p;
    IVec fresh = {0};
    dm->n = 0;
#ifdef HAVE_SSE2
    if (g->runs) {
        /* The windows through c a line at a time: any with K-2 stones of p and none of o's
         * makes c a four; those with K-3 give c's new edges. */
        const __m128i zero = _mm_setzero_si128();
        const __m128i v2 = _mm_set1_epi16((short)(k - 2)), v3 = _mm_set1_epi16((short)(k - 3));
        for (int d = 0; d < 4; d++) {
            int n = g->run_n[4 * c + d], w0 = g->run_w[4 * c + d];
            if (!n) continue;
            __m128i live = _mm_and_si128(_mm_load_si128((const __m128i *)LANES[n]),
                                         _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(s->cnt[o] + w0)), zero));
            __m128i mine = _mm_loadu_si128((const __m128i *)(s->cnt[p] + w0));
            if (_mm_movemask_epi8(_mm_and_si128(live, _mm_cmpeq_epi16(mine, v2)))) goto done;
            unsigned bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(live, _mm_cmpeq_epi16(mine, v3)));
            for (; bits; bits &= bits - 1, bits &= bits - 1)
                if (!push_edges_besides(s, w0 + (__builtin_ctz(bits) >> 1), c, &fresh)) goto done;
        }
    } else
#endif
    for (int i = g->cw_start[c]; i < g->cw_start[c + 1]; i++) {
        int w = g->cw[i];
        if (s->cnt[o][w] != 0) continue;
        int n = s->cnt[p][w];
        if (n == k - 2) goto done;
        if (n == k - 3 && !push_edges_besides(s, w, c, &fresh)) goto done;
    }
    sort_unique(&fresh);
    /* Cells with two completions already (they stay: c takes no completion of p away). */
    for (int i = 0, j; i < base->n; i = j) {
        int m = run_of(base, i, &j);
        if (j - i >= 2 && !iv_push(s, dm, m)) goto done;
    }
    /* Cells c gives a completion: count the distinct ones, old and new. */
    for (int i = 0, j; i < fresh.n; i = j) {
        int m = run_of(&fresh, i, &j);
        int lo = 0, hi = base->n;  /* base's edges of m: [lo, end) */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if ((base->v[mid] >> 16) < m) lo = mid + 1; else hi = mid;
        }
        int end = lo;
        while (end < base->n && (base->v[end] >> 16) == m) end++;
        int total = (end - lo) + (j - i);  /* both lists are unique: drop the edges in both */
        for (int a = i; a < j; a++)
            for (int b = lo; b < end; b++) total -= fresh.v[a] == base->v[b];
        if (total >= 2 && !iv_push(s, dm, m)) goto done;
    }
    sort_unique(dm);
done:
    iv_free(s, &fresh);
}

/* LineState.threes, restricted to `only` when only >= 0 (other cells would be discarded), and
 * once the line being searched holds stones of p (s->seq), to the windows holding one of them
 * (vct's lines; pn_solve marks none, so it sees every three). */
static int threes_of(S *s, int p, int only, Three **out) {
    const GeomObject *g = s->g;
    int k = s->k, target = k - 3, n = 0, cap = 0;
    IVec cand = {0}, w = {0}, base = {0};
    *out = NULL;
    int related = s->nseq > 0;
    for (int wi = next_window_with(s, p, target, 0); wi >= 0; wi = next_window_with(s, p, target, wi + 1)) {
        const int *win = g->win + wi * k;
        if (related) {
            int j = 0;
            while (j < k && !s->seq[win[j]]) j++;
            if (j == k) continue;
        }
        for (int j = 0; j < k; j++)
            if (s->cells[win[j]] == 0 && (only < 0 || win[j] == only) && !iv_push(s, &cand, win[j])) goto done;
    }
    sort_unique(&cand);
    completing(s, p, &w);
    int had = w.n > 0, quick = !s->renju && !had;
    if (quick) four_edges(s, p, &base);
    for (int i = 0; i < cand.n && !s->aborted; i++) {
        int c = cand.v[i];
        IVec dm = {0};
        if (quick) {
            doubles_after(s, p, c, &base, &dm);
        } else {
            if (s_forbidden(s, c, p)) continue;
            place(s, c, p);
            int threat;
            if (had) { completing(s, p, &w); threat = w.n > 0; }
            else threat = has_new_completion(s, c, p);
            if (!threat) double_moves(s, p, &dm);
            take(s, c);
        }
        if (!dm.n) { iv_free(s, &dm); continue; }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            Three *t = realloc(*out, sizeof(Three) * (size_t)cap);
            if (!t) { iv_free(s, &dm); oom(s); break; }
            *out = t;
        }
        (*out)[n].m = c;
        (*out)[n].dm = dm;
        n++;
    }
done:
    iv_free(s, &cand);
    iv_free(s, &w);
    iv_free(s, &base);
    return n;
}

static int push_branch(S *s, Branch **b, int *n, int *cap, int m, IVec replies, int cost) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        Branch *t = realloc(*b, sizeof(Branch) * (size_t)*cap);
        if (!t) { iv_free(s, &replies); oom(s); return 0; }
        *b = t;
    }
    (*b)[*n].m = m;
    (*b)[*n].cost = cost;
    (*b)[*n].replies = replies;
    (*n)++;
    return 1;
}

/* The attacker a's moves at a VCT node (vct, and pn_expand_or in _pns.h), each with the
 * defender's replies, into br: fours first (they cost no three), then threes, then a quiet
 * block of the defender's four that keeps a double threat.  `stopper` is the cell that stops
 * the defender's four (-1: it has none); every move must be it.  A three costs one three, or
 * none when it is that forced block and `free_block` is set.  Returns a move that wins at
 * once (a four with two completions, a threat with no defence), else -1; the caller checks
 * s->aborted. */
static int vct_branches(S *s, int a, int stopper, int free_block, Branch **br, int *nb, int *capb) {
    IVec edges = {0};
    Three *th = NULL;
    int nth = 0, win = -1;
    four_edges(s, a, &edges);
    for (int i = 0, j; i < edges.n && !s->aborted; i = j) {
        int m = run_of(&edges, i, &j);
        if (stopper >= 0 && m != stopper) continue;
        if (j - i >= 2) { win = m; goto done; }
        IVec rep = {0};
        if (!iv_push(s, &rep, edges.v[i] & 0xFFFF) || !push_branch(s, br, nb, capb, m, rep, 0)) goto done;
    }
    if (s->aborted) goto done;
    nth = threes_of(s, a, stopper, &th);
    for (int i = 0; i < nth && !s->aborted; i++) {
        IVec rep = {0};
        threat_replies(s, a, th[i].m, &th[i].dm, &rep);
        if (s->aborted) { iv_free(s, &rep); goto done; }
        if (!rep.n) { iv_free(s, &rep); win = th[i].m; goto done; }
        if (!push_branch(s, br, nb, capb, th[i].m, rep, !(free_block && stopper >= 0))) goto done;
    }
    if (s->aborted || stopper < 0) goto done;
    /* The defender answered with a four of its own: a quiet block may keep the attack going. */
    for (int i = 0; i < *nb; i++) if ((*br)[i].m == stopper) goto done;
    IVec rep = {0};
    int some = threat_replies(s, a, stopper, NULL, &rep);
    if (!s->aborted && some && rep.n) {
        push_branch(s, br, nb, capb, stopper, rep, 0);  /* keeps rep, or frees it when out of memory */
        goto done;
    }
    if (!s->aborted && some) win = stopper;
    iv_free(s, &rep);
done:
    iv_free(s, &edges);
    for (int i = 0; i < nth; i++) iv_free(s, &th[i].dm);
    free(th);
    return win;
}

static Line *vct(S *s, int a, int depth, int threes_left) {
    if (!tick(s)) return NULL;
    int d = 3 - a;
    IVec w = {0};
    Branch *br = NULL;
    int nb = 0, capb = 0;
    Line *found = NULL;
    completing(s, a, &w);
    if (w.n) { found = line_one(s, w.v[0]); goto done; }
    if (depth >= MAX_DEPTH) goto done;
    found = vcf(s, a, depth);
    if (found || s->aborted || threes_left <= 0) goto done;
    uint64_t key = s->hash;
    key ^= (s->seq_key << 1) | (s->seq_key >> 63);  /* which threes count depends on the line */
    if (hs_has(&s->failed_vct, key, threes_left)) goto done;
    completing(s, d, &w);
    int stopper = -1;
    if (w.n) {
        if (unstoppable(s, d, &w)) { hs_add(s, &s->failed_vct, key, threes_left); goto done; }
        stopper = w.v[0];
    }
    int win = vct_branches(s, a, stopper, 0, &br, &nb, &capb);
    if (s->aborted) goto done;
    if (win >= 0) { found = line_one(s, win); goto done; }
    for (int i = 0; i < nb; i++) {
        found = and_step(s, a, br[i].m, br[i].replies.v, br[i].replies.n, depth, threes_left - br[i].cost);
        if (found || s->aborted) goto done;
    }
    hs_add(s, &s->failed_vct, key, threes_left);
done:
    iv_free(s, &w);
    for (int i = 0; i < nb; i++) iv_free(s, &br[i].replies);
    free(br);
    return found;
}


/* ------------------------------------------------------------------------ */
/* Life cycle of a solver state (shared by solve() and the tree search).     */

/* Allocate the arrays of a state for geometry g; returns 0 when out of memory
 * (s_release frees whatever was allocated). */
static int s_alloc(S *s, const GeomObject *g) {
    memset(s, 0, sizeof *s);
    s->g = g;
    s->k = g->k;
    s->renju = g->renju;
    signed char *base = malloc((size_t)g->npad + 2 * (size_t)g->margin);
    if (base) {
        memset(base, 3, (size_t)g->npad + 2 * (size_t)g->margin);
        memset(base + g->margin, 0, (size_t)g->npad);
        s->cells = base + g->margin;
    }
    int nw = g->nwin > 0 ? g->nwin : 1;
    for (int p = 1; p <= 2; p++) {
        s->cnt[p] = calloc((size_t)nw + RUN_MAX, sizeof(short));  /* read eight at a time (HAVE_SSE2) */
        s->hot[p] = malloc(sizeof(int) * (size_t)nw);
        s->hotpos[p] = malloc(sizeof(int) * (size_t)nw);
    }
    s->seq = calloc((size_t)g->npad, 1);
    if (s->renju) {
        s->fb_key = calloc((size_t)1 << FB_BITS, sizeof(uint64_t));
        s->fb_val = calloc((size_t)1 << FB_BITS, 1);
        if (!s->fb_key || !s->fb_val) return 0;
    }
    return s->cells && s->seq && s->cnt[1] && s->cnt[2] && s->hot[1] && s->hot[2] && s->hotpos[1] && s->hotpos[2];
}

static void s_release(S *s) {
    if (s->cells) free(s->cells - s->g->margin);
    for (int p = 1; p <= 2; p++) { free(s->cnt[p]); free(s->hot[p]); free(s->hotpos[p]); }
    free(s->seq);
    free(s->fb_key);
    free(s->fb_val);
    hs_free(&s->failed);
    hs_free(&s->failed_vct);
    pn_free(s->pn);
    while (s->npool) free(s->pool[--s->npool]);
    memset(s, 0, sizeof *s);
}

/* Set up an allocated state for the padded position `cells` (values 0..3): window
 * counts, hash and hot lists. */
static void s_load(S *s, const signed char *cells) {
    const GeomObject *g = s->g;
    memcpy(s->cells, cells, (size_t)g->npad);
    s->hash = 0;
    s->fb_salt = s->fb_salt * 0x5851F42D4C957F2DULL + 0x14057B7EF767814FULL;
    for (int c = 0; c < g->npad; c++) {
        int v = s->cells[c];
        if (v == 1 || v == 2) s->hash ^= g->zob[2 * c + v - 1];
    }
    for (int p = 1; p <= 2; p++) {
        memset(s->cnt[p], 0, sizeof(short) * (size_t)(g->nwin > 0 ? g->nwin : 1));
        s->nhot[p] = 0;
        for (int w = 0; w < g->nwin; w++) s->hotpos[p][w] = -1;
    }
    for (int w = 0; w < g->nwin; w++) {
        for (int j = 0; j < g->k; j++) {
            int v = s->cells[g->win[w * g->k + j]];
            if (v == 1 || v == 2) s->cnt[v][w]++;
        }
    }
    /* Only windows with K-2 stones of one side can be hot; the rest stay out of the
     * lists (whose order nothing depends on: every reader sorts what it collects). */
    for (int w = 0; w < g->nwin; w++)
        if (s->cnt[1][w] >= g->k - 2 || s->cnt[2][w] >= g->k - 2) hot_refresh(s, w);
}

/* Start a new run: a budget of max_nodes nodes and `seconds` of time (< 0: none),
 * and empty failure sets (their entries are only valid for one attacker). */
static void s_begin(S *s, long long max_nodes, double seconds) {
    s->nodes = 0;
    s->max_nodes = max_nodes;
    s->aborted = 0;
    s->deadline = seconds < 0 ? -1 : now_seconds() + seconds;
    hs_clear(&s->failed);
    hs_clear(&s->failed_vct);
}

static Line *pn_solve(S *s, int attacker, int threes);

/* How a VCT run searches (solver.DEPTH_FIRST, DEEPENING, BEST_FIRST). */
enum { SEARCH_DEPTH_FIRST, SEARCH_DEEPENING, SEARCH_BEST_FIRST };

/* One solver run for `attacker`: VCF when threes < 0, else VCT with up to `threes` threes:
 * depth first (vct), depth first with 1, 2, ... threes on one budget, or by proof numbers
 * (pn_solve, _pns.h).  The caller checks s->aborted. */
static Line *s_run(S *s, int attacker, int threes, int search) {
    if (threes < 0) return vcf(s, attacker, 0);
    if (search == SEARCH_BEST_FIRST) return pn_solve(s, attacker, threes);
    if (search == SEARCH_DEPTH_FIRST) return vct(s, attacker, 0, threes);
    Line *line = NULL;
    for (int t = threes > 0 ? 1 : 0; t <= threes && !line && !s->aborted; t++) line = vct(s, attacker, 0, t);
    return line;
}
