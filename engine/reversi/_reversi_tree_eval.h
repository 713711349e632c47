/*
 * The tree's leaf: the pattern evaluation and its fixed-depth search (the kernel's eval and
 * mid, _reversi_kernel.h), the same integers, with each placement's base-3 index read by
 * two PEXT instructions and a table instead of a loop over its squares (a few times
 * faster) on CPUs with fast BMI2.  Elsewhere the kernel's own functions run.
 *
 * For placement k with squares sq[0..len) (most significant digit first), tab[k][b] is
 * the base-3 weight of the squares whose bits are set in b, b being the placement's
 * squares gathered in ascending order (what PEXT with the placement's mask returns); the
 * index is then tab[k][pext(P)] + 2 * tab[k][pext(O)].  Included by _reversi_tree.h.
 */

typedef struct {
    const EvalW *ev;
    int fast;                      /* PEXT available and fast: use the tables */
    uint64_t mask[EV_MAXINST];
    uint16_t *tab[EV_MAXINST];     /* into `store` */
    uint16_t *store;
} RtEval;

static void rt_eval_free(RtEval *r) {
    free(r->store);
    r->store = NULL;
}

/* Build the tables of `ev`; 0 when out of memory. */
static int rt_eval_init(RtEval *r, const EvalW *ev, int fast) {
    memset(r, 0, sizeof *r);
    r->ev = ev;
    r->fast = fast;
    if (!fast) return 1;
    size_t total = 0;
    for (int k = 0; k < ev->ninst; k++) total += (size_t)1 << ev->len[k];
    r->store = malloc(sizeof(uint16_t) * total);
    if (!r->store) return 0;
    size_t at = 0;
    for (int k = 0; k < ev->ninst; k++) {
        int len = ev->len[k];
        int weight[64]; /* a square's base-3 weight in this placement, by square */
        uint64_t mask = 0;
        for (int j = 0; j < len; j++) {
            int w = 1;
            for (int q = j + 1; q < len; q++) w *= 3;
            weight[ev->sq[k][j]] = w;
            mask |= 1ULL << ev->sq[k][j];
        }
        r->mask[k] = mask;
        r->tab[k] = r->store + at;
        for (int b = 0; b < (1 << len); b++) {
            int v = 0, i = 0;
            for (uint64_t m = mask; m; m &= m - 1, i++)
                if ((b >> i) & 1) v += weight[__builtin_ctzll(m)];
            r->tab[k][b] = (uint16_t)v;
        }
        at += (size_t)1 << len;
    }
    return 1;
}

/* Does this CPU have a fast PEXT?  (AMD's before Zen 3 run it in microcode.) */
static int rt_fast_pext(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    if (!__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("popcnt")) return 0;
    if (__builtin_cpu_is("amd") && (__builtin_cpu_is("znver1") || __builtin_cpu_is("znver2"))) return 0;
    return 1;
#else
    return 0;
#endif
}

#if defined(__GNUC__) && defined(__x86_64__)
#define RT_HAVE_PEXT 1
#include <immintrin.h>

/* The evaluation of P to move (k64_eval's value). */
__attribute__((target("bmi2,popcnt"))) static inline int rt_eval_pext(const RtEval *r, uint64_t P, uint64_t O) {
    const EvalW *e = r->ev;
    int mp = __builtin_popcountll(k64_moves(P, O, ~0ULL)), mo = __builtin_popcountll(k64_moves(O, P, ~0ULL));
    if (mp == 0 && mo == 0) return EV_SCALE * k64_final(P, O, 64);
    int empties = 64 - __builtin_popcountll(P | O);
    const int16_t *w = e->w + (size_t)ev_phase(e, empties) * (size_t)e->size;
    int32_t t = 0;
    for (int k = 0; k < e->ninst; k++) {
        const uint16_t *tab = r->tab[k];
        t += w[e->off[k] + tab[_pext_u64(P, r->mask[k])] + 2 * tab[_pext_u64(O, r->mask[k])]];
    }
    t += (int32_t)w[e->size - 3] * mp + (int32_t)w[e->size - 2] * mo + w[e->size - 1];
    return (int)t;
}

/* k64_mid's value with rt_eval_pext: negamax alpha-beta to `depth` plies (a pass is not a
 * ply), moves in the order of their evaluations when 2 or more plies remain.  With one ply
 * left the move that refuted a sibling (`killer`, a square, -1 none) is tried first: a
 * different order, so fewer evaluations, never a different value (the root's window is
 * full, so the search returns the exact minimax value). */
__attribute__((target("bmi2,popcnt"))) static int rt_mid_pext(const RtEval *r, uint64_t P, uint64_t O, int alpha,
                                                             int beta, int depth, int *killer) {
    if (depth <= 0) return rt_eval_pext(r, P, O);
    uint64_t m = k64_moves(P, O, ~0ULL);
    if (!m) {
        if (!k64_moves(O, P, ~0ULL)) return EV_SCALE * k64_final(P, O, 64);
        return -rt_mid_pext(r, O, P, -beta, -alpha, depth, killer);
    }
    if (depth == 1) {
        int bestv = -1000000, first = *killer;
        if (first >= 0 && ((m >> first) & 1)) {
            uint64_t x = 1ULL << first, f = k64_flips(P, O, x);
            bestv = -rt_eval_pext(r, O ^ f, P | f | x);
            if (bestv >= beta) return bestv;
            m &= ~x;
        }
        while (m) {
            int sq = __builtin_ctzll(m);
            m &= m - 1;
            uint64_t x = 1ULL << sq, f = k64_flips(P, O, x);
            int v = -rt_eval_pext(r, O ^ f, P | f | x);
            if (v > bestv) {
                bestv = v;
                *killer = sq;
                if (v >= beta) break;
            }
        }
        return bestv;
    }
    int sqs[64], keys[64];
    uint64_t fl[64];
    int n = 0;
    while (m) {
        int sq = __builtin_ctzll(m);
        m &= m - 1;
        uint64_t x = 1ULL << sq, f = k64_flips(P, O, x);
        int key = rt_eval_pext(r, O ^ f, P | f | x);
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
    int bestv = -1000000, below = -1;
    for (int i = 0; i < n; i++) {
        uint64_t x = 1ULL << sqs[i];
        int a = alpha > bestv ? alpha : bestv;
        int v = -rt_mid_pext(r, O ^ fl[i], P | fl[i] | x, -beta, -a, depth - 1, &below);
        if (v > bestv) {
            bestv = v;
            if (v >= beta) break;
        }
    }
    return bestv;
}
#endif

/* The value for P of a `depth`-ply search on the evaluation (0: the evaluation), in
 * 1/EV_SCALE discs: what eval_leaves gives. */
static int rt_search(const RtEval *r, uint64_t P, uint64_t O, int depth) {
#ifdef RT_HAVE_PEXT
    int killer = -1;
    if (r->fast) return rt_mid_pext(r, P, O, -1000000, 1000000, depth, &killer);
#endif
    int best;
    uint64_t nodes = 0;
    return depth == 0 ? EV_CALL(eval, r->ev, P, O) : ev_search(r->ev, P, O, depth, &best, &nodes);
}
