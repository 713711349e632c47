/*
 * The tree's leaf search: the kernel's fixed-depth alpha-beta on the pattern evaluation
 * (k64_mid in _reversi_kernel.h) with one change of order -- with one ply left, the move
 * that refuted a sibling (the killer) is tried first, which cuts about a third of the
 * evaluations.  The root's window is full, so the search returns the exact minimax value:
 * the order changes the work, never the value (the same integers as eval_leaves).
 *
 * Included by _reversi_tree.h once per kernel build, like the kernel itself:
 *   RFN(name)   this instantiation's prefix;
 *   KF(name)    the kernel instantiation it calls (k64_ or k64p_).
 */

/* The value for P of a `depth`-ply search (a pass is not a ply), the moves ordered by their
 * evaluations when 2 or more plies remain, the killer first when one remains. */
static int RFN(mid)(const EvalW *ev, uint64_t P, uint64_t O, int alpha, int beta, int depth, int *killer) {
    if (depth <= 0) return KF(eval)(ev, P, O);
    uint64_t m = KF(moves)(P, O, ~0ULL);
    if (!m) {
        if (!KF(moves)(O, P, ~0ULL)) return EV_SCALE * KF(final)(P, O, 64);
        return -RFN(mid)(ev, O, P, -beta, -alpha, depth, killer);
    }
    if (depth == 1) {
        int bestv = -1000000, first = *killer;
        if (first >= 0 && ((m >> first) & 1)) {
            uint64_t x = 1ULL << first, f = KF(flips)(P, O, x);
            bestv = -KF(eval)(ev, O ^ f, P | f | x);
            if (bestv >= beta) return bestv;
            m &= ~x;
        }
        while (m) {
            int sq = __builtin_ctzll(m);
            m &= m - 1;
            uint64_t x = 1ULL << sq, f = KF(flips)(P, O, x);
            int v = -KF(eval)(ev, O ^ f, P | f | x);
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
        uint64_t x = 1ULL << sq, f = KF(flips)(P, O, x);
        int key = KF(eval)(ev, O ^ f, P | f | x);
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
    int bestv = -1000000, below = -1; /* the killer shared by the children's replies */
    for (int i = 0; i < n; i++) {
        uint64_t x = 1ULL << sqs[i];
        int a = alpha > bestv ? alpha : bestv;
        int v = -RFN(mid)(ev, O ^ fl[i], P | fl[i] | x, -beta, -a, depth - 1, &below);
        if (v > bestv) {
            bestv = v;
            if (v >= beta) break;
        }
    }
    return bestv;
}
