/*
 * The 8x8 pattern evaluation's weights and pattern sum (engine/reversi/patterns.py is the
 * reference: the same placements, the same integer arithmetic, so the same values).
 *
 * Included by _reversicore.c before the kernel; the kernel's 8x8 instantiations add the
 * mobility terms (which need their move generator), a fixed-depth alpha-beta on the
 * evaluation, and move ordering by the evaluation in the endgame solver.
 */

#define EV_MAXINST 64
#define EV_MAXLEN 12
#define EV_SCALE 128 /* patterns.SCALE: the evaluation's unit is 1/EV_SCALE of a disc */

typedef struct {
    int phases, size, width, ninst;
    int16_t *w;           /* phases x size, the last 3 of a phase: own mobility, opponent's, constant */
    int off[EV_MAXINST];  /* each placement's table offset */
    int len[EV_MAXINST];
    int8_t sq[EV_MAXINST][EV_MAXLEN];
} EvalW;

static inline int ev_phase(const EvalW *e, int empties) {
    int ph = (empties - 1) / e->width;
    return ph < 0 ? 0 : ph >= e->phases ? e->phases - 1 : ph;
}

/* The evaluation of P to move against O (their mobilities mp, mo) in 1/EV_SCALE discs. */
static inline int ev_sum(const EvalW *e, uint64_t P, uint64_t O, int mp, int mo) {
    int empties = 64 - __builtin_popcountll(P | O);
    const int16_t *w = e->w + (size_t)ev_phase(e, empties) * (size_t)e->size;
    int32_t t = 0;
    for (int k = 0; k < e->ninst; k++) {
        const int8_t *sq = e->sq[k];
        int idx = 0;
        for (int j = 0; j < e->len[k]; j++)
            idx = 3 * idx + (int)((P >> sq[j]) & 1) + 2 * (int)((O >> sq[j]) & 1);
        t += w[e->off[k] + idx];
    }
    t += (int32_t)w[e->size - 3] * mp + (int32_t)w[e->size - 2] * mo + w[e->size - 1];
    return (int)t;
}
