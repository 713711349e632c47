/*
 * The Reversi algorithms of engine._reversicore, written once for any bitboard type.
 *
 * _reversicore.c includes this file once per board representation, after defining:
 *   BB            the bitboard type (uint64_t, or a 4 x uint64_t struct);
 *   KFN(name)     the prefix of this instantiation's functions;
 *   STRIDE        squares per layout row (8 or 16); square = row * STRIDE + col;
 *   B_* macros    the bit operations on BB (see the 64-bit ones in _reversicore.c).
 * A board of side n <= STRIDE sits in the top-left corner of the STRIDE x STRIDE layout
 * and `valid` masks its squares.  Nothing needs more: discs never stand outside the
 * board, so a line of opponent discs never runs through an outside square, and a move
 * generated there is removed by `valid`.  Runs of opponent discs along a row are masked
 * with columns 1..STRIDE-2 (B_HMASK), so a shift that wraps from the last layout column
 * into the next row never extends a run.
 *
 * Everything here touches no Python object: the callers run it with the GIL released.
 */

#ifndef KINLINE
#define KINLINE static inline __attribute__((always_inline))
#endif

/* ----------------------------------------------------------------------------------- */
/* Move generation.                                                                     */

/* The squares reached from `gen` through runs of `om` in direction +s (a left shift):
 * a parallel-prefix fill (1, 1, 2, 2, then 4, 4 on the 16-stride layout) covers every
 * run a board of this stride can hold (STRIDE - 2 discs). */
KINLINE BB KFN(run_l)(BB gen, BB om, const int s) {
    BB t = B_AND(om, B_SHL(gen, s));
    t = B_OR(t, B_AND(om, B_SHL(t, s)));
    BB pre = B_AND(om, B_SHL(om, s));
    t = B_OR(t, B_AND(pre, B_SHL(t, 2 * s)));
    t = B_OR(t, B_AND(pre, B_SHL(t, 2 * s)));
#if STRIDE > 8
    BB pre4 = B_AND(pre, B_SHL(pre, 2 * s));
    t = B_OR(t, B_AND(pre4, B_SHL(t, 4 * s)));
    t = B_OR(t, B_AND(pre4, B_SHL(t, 4 * s)));
#endif
    return t;
}

KINLINE BB KFN(run_r)(BB gen, BB om, const int s) {
    BB t = B_AND(om, B_SHR(gen, s));
    t = B_OR(t, B_AND(om, B_SHR(t, s)));
    BB pre = B_AND(om, B_SHR(om, s));
    t = B_OR(t, B_AND(pre, B_SHR(t, 2 * s)));
    t = B_OR(t, B_AND(pre, B_SHR(t, 2 * s)));
#if STRIDE > 8
    BB pre4 = B_AND(pre, B_SHR(pre, 2 * s));
    t = B_OR(t, B_AND(pre4, B_SHR(t, 4 * s)));
    t = B_OR(t, B_AND(pre4, B_SHR(t, 4 * s)));
#endif
    return t;
}

/* The legal moves of P against O. */
KINLINE BB KFN(moves)(BB P, BB O, BB valid) {
    BB oh = B_AND(O, B_HMASK);
    BB m = B_SHL(KFN(run_l)(P, oh, 1), 1);
    m = B_OR(m, B_SHR(KFN(run_r)(P, oh, 1), 1));
    m = B_OR(m, B_SHL(KFN(run_l)(P, O, STRIDE), STRIDE));
    m = B_OR(m, B_SHR(KFN(run_r)(P, O, STRIDE), STRIDE));
    m = B_OR(m, B_SHL(KFN(run_l)(P, oh, STRIDE + 1), STRIDE + 1));
    m = B_OR(m, B_SHR(KFN(run_r)(P, oh, STRIDE + 1), STRIDE + 1));
    m = B_OR(m, B_SHL(KFN(run_l)(P, oh, STRIDE - 1), STRIDE - 1));
    m = B_OR(m, B_SHR(KFN(run_r)(P, oh, STRIDE - 1), STRIDE - 1));
    return B_ANDN(B_AND(m, valid), B_OR(P, O));
}

/* The discs of O flipped when P plays on the empty square x (a one-bit board): in each
 * direction the run of O starting next to x, kept when the square after it is P's.
 * On one uint64_t the branch-free fill of the move generator is fastest (random
 * playouts: ~410,000 against ~360,000 games a second walking each line); on four words
 * walking each line from x, which stops at once in most directions, is (10x10: 42,000
 * against 29,000). */
#if STRIDE == 8
KINLINE BB KFN(flips)(BB P, BB O, BB x) {
    BB oh = B_AND(O, B_HMASK);
    BB f = B_ZERO, t;
#define KFLIP(RUN, SH, s, OM)                                   \
    t = KFN(RUN)(x, OM, s);                                      \
    if (B_NZ(B_AND(SH(t, s), P))) f = B_OR(f, t);
    KFLIP(run_l, B_SHL, 1, oh)
    KFLIP(run_r, B_SHR, 1, oh)
    KFLIP(run_l, B_SHL, STRIDE, O)
    KFLIP(run_r, B_SHR, STRIDE, O)
    KFLIP(run_l, B_SHL, STRIDE + 1, oh)
    KFLIP(run_r, B_SHR, STRIDE + 1, oh)
    KFLIP(run_l, B_SHL, STRIDE - 1, oh)
    KFLIP(run_r, B_SHR, STRIDE - 1, oh)
#undef KFLIP
    return f;
}

#else
KINLINE BB KFN(flips)(BB P, BB O, BB x) {
    BB oh = B_AND(O, B_HMASK);
    BB f = B_ZERO, t, run;
#define KFLIP(SH, s, OM)                                         \
    t = B_AND(OM, SH(x, s));                                     \
    if (B_NZ(t)) {                                               \
        run = t;                                                 \
        t = SH(t, s);                                            \
        while (B_NZ(B_AND(t, OM))) {                             \
            run = B_OR(run, t);                                  \
            t = SH(t, s);                                        \
        }                                                        \
        if (B_NZ(B_AND(t, P))) f = B_OR(f, run);                 \
    }
    KFLIP(B_SHL, 1, oh)
    KFLIP(B_SHR, 1, oh)
    KFLIP(B_SHL, STRIDE, O)
    KFLIP(B_SHR, STRIDE, O)
    KFLIP(B_SHL, STRIDE + 1, oh)
    KFLIP(B_SHR, STRIDE + 1, oh)
    KFLIP(B_SHL, STRIDE - 1, oh)
    KFLIP(B_SHR, STRIDE - 1, oh)
#undef KFLIP
    return f;
}
#endif

/* The final disc differential for P, the empty squares given to the winner. */
static inline int KFN(final)(BB P, BB O, int area) {
    int p = B_POP(P), o = B_POP(O);
    int d = p - o, e = area - p - o;
    return d > 0 ? d + e : d < 0 ? d - e : 0;
}

/* ----------------------------------------------------------------------------------- */
/* perft: leaf counts, passes counted as moves, a finished game one leaf at every later
 * depth (the published convention). */

static uint64_t KFN(perft)(BB P, BB O, BB valid, int depth) {
    if (depth == 0) return 1;
    BB m = KFN(moves)(P, O, valid);
    if (!B_NZ(m)) {
        if (!B_NZ(KFN(moves)(O, P, valid))) return 1;
        return KFN(perft)(O, P, valid, depth - 1);
    }
    if (depth == 1) return (uint64_t)B_POP(m);
    uint64_t total = 0;
    while (B_NZ(m)) {
        BB x = B_BIT(B_LOWIDX(m));
        m = B_CLEARLOW(m);
        BB f = KFN(flips)(P, O, x);
        total += KFN(perft)(B_XOR(O, f), B_OR(P, B_OR(f, x)), valid, depth - 1);
    }
    return total;
}

/* ----------------------------------------------------------------------------------- */
/* Random playouts. */

/* Play one uniformly random game from P to move; return its final disc differential
 * for P.  The move is the k-th legal move in square order, k = the high 32 bits of the
 * next random number times the number of moves, shifted down 32 (engine/reversi/evaluation/
 * playout.py does exactly the same, so both give the same games for the same seed); no
 * random number is drawn when there is only one move or a pass. */
static int KFN(playout)(BB P, BB O, BB valid, int area, uint64_t *rng) {
    int flipped = 0; /* 1 when the side to move is the opponent of the starting P */
    for (;;) {
        BB m = KFN(moves)(P, O, valid);
        if (!B_NZ(m)) {
            m = KFN(moves)(O, P, valid);
            if (!B_NZ(m)) break;
            BB tmp = P; P = O; O = tmp;
            flipped ^= 1;
        }
        int count = B_POP(m);
        int sq;
        if (count == 1) {
            sq = B_LOWIDX(m);
        } else {
            uint64_t r = splitmix64(rng);
            int k = (int)(((r >> 32) * (uint64_t)count) >> 32);
            sq = KFN(kth)(m, k);
        }
        BB x = B_BIT(sq);
        BB f = KFN(flips)(P, O, x);
        BB np = B_XOR(O, f);
        O = B_OR(P, B_OR(f, x));
        P = np;
        flipped ^= 1;
    }
    int d = KFN(final)(P, O, area);
    return flipped ? -d : d;
}

/* ----------------------------------------------------------------------------------- */
/* Exact endgame solver: fail-soft negamax alpha-beta with principal-variation search.
 * Move ordering: with more than SHALLOW empties, the move leaving the opponent fewest
 * moves first (corners a little earlier, the transposition table's best move first);
 * near the end, squares of the board's quarters with an odd number of empties first
 * (parity: the last move of a region is worth having), found by trying each empty square
 * rather than generating moves. */

#define KMAXMOVES 64 /* solves are limited to 64 empties, so never more moves than this */

typedef struct {
    BB P, O;
    int16_t lower, upper;
    int16_t best; /* layout square, -1 none */
    int16_t empties;
} KFN(tt_entry);

typedef struct {
    BB valid;
    BB quad[4];
    BB corners;
    int area;
    int shallow;          /* at most this many empties: the parity search */
    uint64_t nodes, max_nodes;
    double deadline;      /* CLOCK_MONOTONIC seconds, 0: none */
    int aborted;
    KFN(tt_entry) *tt;    /* NULL: no table */
    uint64_t tt_mask;
    int tt_min;           /* store and probe only with at least this many empties */
    const EvalW *ev;      /* NULL: order by mobility only */
    int ev_min;           /* order by the evaluation with at least this many empties */
} KFN(ctx);

static inline int KFN(tick)(KFN(ctx) *c) {
    if (c->aborted) return 1;
    c->nodes++;
    if (c->nodes > c->max_nodes) { c->aborted = 1; return 1; }
    if (c->deadline > 0 && (c->nodes & 4095) == 0 && monotonic_now() > c->deadline) {
        c->aborted = 1;
        return 1;
    }
    return 0;
}

/* The last empty square x: P plays there if it can, else O, else nobody. */
static inline int KFN(last)(KFN(ctx) *c, BB P, BB O, int sq) {
    BB x = B_BIT(sq);
    BB f = KFN(flips)(P, O, x);
    if (B_NZ(f)) {
        int n = B_POP(f);
        return (B_POP(P) + 2 * n + 1) - B_POP(O);
    }
    f = KFN(flips)(O, P, x);
    if (B_NZ(f)) {
        c->nodes++; /* O's move is a node of its own */
        int n = B_POP(f);
        return B_POP(P) - (B_POP(O) + 2 * n + 1);
    }
    return KFN(final)(P, O, c->area);
}

/* The few last empties, in `sq` (count e), ordered once on entry. */
static int KFN(shallow)(KFN(ctx) *c, BB P, BB O, int alpha, int beta, int e, const int *sq, int passed) {
    if (KFN(tick)(c)) return 0;
    if (e == 1) return KFN(last)(c, P, O, sq[0]);
    int best = -1000, moved = 0;
    int rest[KMAXMOVES];
    for (int i = 0; i < e; i++) {
        BB x = B_BIT(sq[i]);
        BB f = KFN(flips)(P, O, x);
        if (!B_NZ(f)) continue;
        moved = 1;
        for (int j = 0, k = 0; j < e; j++)
            if (j != i) rest[k++] = sq[j];
        int v = -KFN(shallow)(c, B_XOR(O, f), B_OR(P, B_OR(f, x)), -beta, -(alpha > best ? alpha : best), e - 1, rest, 0);
        if (c->aborted) return 0;
        if (v > best) {
            best = v;
            if (v >= beta) return v;
        }
    }
    if (moved) return best;
    if (passed) return KFN(final)(P, O, c->area); /* neither side can move */
    return -KFN(shallow)(c, O, P, -beta, -alpha, e, sq, 1);
}

static inline uint64_t KFN(hash)(BB P, BB O) { return B_HASH(P, O); }

static int KFN(deep)(KFN(ctx) *c, BB P, BB O, int alpha, int beta, int e);

/* The moves of P in search order, with their flips; returns how many. */
#ifdef KEVAL
static inline int KFN(eval)(const EvalW *ev, BB P, BB O);
#endif

static int KFN(order)(KFN(ctx) *c, BB P, BB O, BB m, int tt_best, int *sqs, BB *fl, int e) {
    int keys[KMAXMOVES];
    int n = 0;
    while (B_NZ(m)) {
        int sq = B_LOWIDX(m);
        m = B_CLEARLOW(m);
        BB x = B_BIT(sq);
        BB f = KFN(flips)(P, O, x);
        BB np = B_OR(P, B_OR(f, x)), no = B_XOR(O, f);
        BB om = KFN(moves)(no, np, c->valid);
        /* fewest replies first; a corner reply costs the opponent 2 moves more. */
        int key = 16 * (B_POP(om) + 2 * B_POP(B_AND(om, c->corners)));
        if (B_NZ(B_AND(x, c->corners))) key -= 24;
#ifdef KEVAL
        /* far from the end the evaluation knows better than the reply count alone */
        if (c->ev && e >= c->ev_min) key += KFN(eval)(c->ev, no, np) / EV_ORDER_DIV;
#else
        (void)e;
#endif
        if (sq == tt_best) key = -100000;
        int i = n++;
        while (i > 0 && keys[i - 1] > key) {
            keys[i] = keys[i - 1];
            sqs[i] = sqs[i - 1];
            fl[i] = fl[i - 1];
            i--;
        }
        keys[i] = key;
        sqs[i] = sq;
        fl[i] = f;
    }
    return n;
}

/* The empty squares, odd quarters first. */
static int KFN(parity_order)(KFN(ctx) *c, BB P, BB O, int *sq) {
    BB empty = B_ANDN(c->valid, B_OR(P, O));
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int q = 0; q < 4; q++) {
            BB e = B_AND(empty, c->quad[q]);
            int odd = B_POP(e) & 1;
            if (odd != (pass == 0)) continue;
            while (B_NZ(e)) {
                sq[n++] = B_LOWIDX(e);
                e = B_CLEARLOW(e);
            }
        }
    }
    return n;
}

static int KFN(deep)(KFN(ctx) *c, BB P, BB O, int alpha, int beta, int e);

/* The moves `m` of P searched in order (principal variation search: the first with the
 * full window, the others with a null window, re-searched when they beat it); the best
 * value within (alpha, beta), its square in *best_sq.  Shared by the root and every node. */
static int KFN(children)(KFN(ctx) *c, BB P, BB O, BB m, int tt_best, int alpha, int beta, int e,
                         int *best_sq) {
    int sqs[KMAXMOVES];
    BB fl[KMAXMOVES];
    int n = KFN(order)(c, P, O, m, tt_best, sqs, fl, e);
    int best = -1000;
    *best_sq = n ? sqs[0] : -1;
    for (int i = 0; i < n; i++) {
        BB x = B_BIT(sqs[i]);
        BB np = B_XOR(O, fl[i]), no = B_OR(P, B_OR(fl[i], x));
        int a = alpha > best ? alpha : best;
        int v;
        if (i == 0) {
            v = -KFN(deep)(c, np, no, -beta, -a, e - 1);
        } else {
            v = -KFN(deep)(c, np, no, -a - 1, -a, e - 1);
            if (!c->aborted && v > a && v < beta)
                v = -KFN(deep)(c, np, no, -beta, -v, e - 1);
        }
        if (c->aborted) return 0;
        if (v > best) {
            best = v;
            *best_sq = sqs[i];
            if (v >= beta) break;
        }
    }
    return best;
}

static int KFN(deep)(KFN(ctx) *c, BB P, BB O, int alpha, int beta, int e) {
    if (e <= c->shallow) {
        int sq[KMAXMOVES];
        int n = KFN(parity_order)(c, P, O, sq);
        if (n == 0) return KFN(final)(P, O, c->area);
        return KFN(shallow)(c, P, O, alpha, beta, n, sq, 0);
    }
    if (KFN(tick)(c)) return 0;
    BB m = KFN(moves)(P, O, c->valid);
    if (!B_NZ(m)) {
        if (!B_NZ(KFN(moves)(O, P, c->valid))) return KFN(final)(P, O, c->area);
        return -KFN(deep)(c, O, P, -beta, -alpha, e);
    }
    KFN(tt_entry) *te = NULL;
    int tt_best = -1;
    if (c->tt && e >= c->tt_min) {
        te = &c->tt[KFN(hash)(P, O) & c->tt_mask];
        if (B_EQ(te->P, P) && B_EQ(te->O, O) && te->empties == e) {
            if (te->lower >= beta) return te->lower;
            if (te->upper <= alpha) return te->upper;
            if (te->lower == te->upper) return te->lower;
            if (te->lower > alpha) alpha = te->lower;
            if (te->upper < beta) beta = te->upper;
            tt_best = te->best;
        }
    }
    int alpha0 = alpha; /* the window actually searched decides what the result bounds */
    int best_sq = -1;
    int best = KFN(children)(c, P, O, m, tt_best, alpha, beta, e, &best_sq);
    if (c->aborted) return 0;
    if (te) {
        te->P = P;
        te->O = O;
        te->empties = (int16_t)e;
        te->best = (int16_t)best_sq;
        if (best <= alpha0) { te->lower = -1000; te->upper = (int16_t)best; }
        else if (best >= beta) { te->lower = (int16_t)best; te->upper = 1000; }
        else te->lower = te->upper = (int16_t)best;
    }
    return best;
}

/* The root: the value for P within (alpha, beta) and the best move (layout square, -2
 * for a pass, -1 when the game is over). */
static int KFN(root)(KFN(ctx) *c, BB P, BB O, int alpha, int beta, int *best_move) {
    int e = c->area - B_POP(P) - B_POP(O);
    c->nodes++;
    BB m = KFN(moves)(P, O, c->valid);
    if (!B_NZ(m)) {
        if (!B_NZ(KFN(moves)(O, P, c->valid))) {
            *best_move = -1;
            return KFN(final)(P, O, c->area);
        }
        *best_move = -2;
        return -KFN(deep)(c, O, P, -beta, -alpha, e);
    }
    int best = KFN(children)(c, P, O, m, -1, alpha, beta, e, best_move);
    if (c->aborted) return 0;
    return best;
}

/* The exact value by null-window searches that close in on it from `guess` (MTD(f)): each
 * pass only asks "at least b?", far cheaper than a full window, and the transposition
 * table keeps what every pass learnt.  Without a table, one full-window search. */
static int KFN(exact)(KFN(ctx) *c, BB P, BB O, int guess, int *best_move) {
    if (!c->tt) return KFN(root)(c, P, O, -1000, 1000, best_move);
    int lo = -1000, hi = 1000, g = guess, mv = -1;
    *best_move = -1;
    while (lo < hi) {
        int b = g == lo ? g + 1 : g;
        int v = KFN(root)(c, P, O, b - 1, b, &mv);
        if (c->aborted) return 0;
        if (v < b) {
            hi = v;
        } else {
            lo = v;
            *best_move = mv; /* a move reaching at least v: the best once lo == hi */
        }
        g = v;
    }
    return lo;
}

#ifdef KEVAL
/* ----------------------------------------------------------------------------------- */
/* The pattern evaluation (8x8 only: the full 64-bit board), and a fixed-depth search on it. */

/* The evaluation of P to move, in 1/EV_SCALE discs; a finished game is its exact result. */
static inline int KFN(eval)(const EvalW *ev, BB P, BB O) {
    int mp = B_POP(KFN(moves)(P, O, ~0ULL)), mo = B_POP(KFN(moves)(O, P, ~0ULL));
    if (mp == 0 && mo == 0) return EV_SCALE * KFN(final)(P, O, 64);
    return ev_sum(ev, P, O, mp, mo);
}

typedef struct {
    const EvalW *ev;
    uint64_t nodes;
} KFN(mid_ctx);

/* Negamax alpha-beta to `depth` plies (a pass is not a ply), the evaluation at the leaves;
 * the value for P in 1/EV_SCALE discs, the best square in *best (-2 a pass, -1 game over).
 * On entry *best is a move to try first when one ply remains (-1: none): a node passes each
 * child the square that refuted the child before it (the killer), which cuts about a third
 * of the evaluations.  With two or more plies left the moves go in the order of their
 * evaluations.  Fail-soft: a value inside the window is exact whatever the order, so the
 * order changes the work, never the value. */
static int KFN(mid)(KFN(mid_ctx) *c, BB P, BB O, int alpha, int beta, int depth, int *best) {
    c->nodes++;
    int killer = *best;
    *best = -1;
    if (depth <= 0) return KFN(eval)(c->ev, P, O);
    BB m = KFN(moves)(P, O, ~0ULL);
    int below = -1;
    if (!B_NZ(m)) {
        if (!B_NZ(KFN(moves)(O, P, ~0ULL))) return EV_SCALE * KFN(final)(P, O, 64);
        *best = -2;
        below = killer;
        return -KFN(mid)(c, O, P, -beta, -alpha, depth, &below);
    }
    int bestv = -1000000;
    if (depth == 1) {
        if (killer >= 0 && B_NZ(B_AND(m, B_BIT(killer)))) {
            BB x = B_BIT(killer), f = KFN(flips)(P, O, x);
            bestv = -KFN(eval)(c->ev, B_XOR(O, f), B_OR(P, B_OR(f, x)));
            *best = killer;
            if (bestv >= beta) return bestv;
            m = B_ANDN(m, x);
        }
        while (B_NZ(m)) {
            int sq = B_LOWIDX(m);
            m = B_CLEARLOW(m);
            BB x = B_BIT(sq), f = KFN(flips)(P, O, x);
            int v = -KFN(eval)(c->ev, B_XOR(O, f), B_OR(P, B_OR(f, x)));
            if (v > bestv) {
                bestv = v;
                *best = sq;
                if (v >= beta) break;
            }
        }
        return bestv;
    }
    int sqs[KMAXMOVES], keys[KMAXMOVES];
    BB fl[KMAXMOVES];
    int n = 0;
    while (B_NZ(m)) {
        int sq = B_LOWIDX(m);
        m = B_CLEARLOW(m);
        BB x = B_BIT(sq);
        BB f = KFN(flips)(P, O, x);
        int key = KFN(eval)(c->ev, B_XOR(O, f), B_OR(P, B_OR(f, x)));
        int i = n++;
        while (i > 0 && keys[i - 1] > key) { /* stable: equal keys keep square order */
            keys[i] = keys[i - 1];
            sqs[i] = sqs[i - 1];
            fl[i] = fl[i - 1];
            i--;
        }
        keys[i] = key;
        sqs[i] = sq;
        fl[i] = f;
    }
    for (int i = 0; i < n; i++) {
        BB x = B_BIT(sqs[i]);
        int a = alpha > bestv ? alpha : bestv;
        int v = -KFN(mid)(c, B_XOR(O, fl[i]), B_OR(P, B_OR(fl[i], x)), -beta, -a, depth - 1, &below);
        if (v > bestv) {
            bestv = v;
            *best = sqs[i];
            if (v >= beta) break;
        }
    }
    return bestv;
}
#endif
