/*
 * The 8x8 pattern evaluation's weights and pattern sum (engine/reversi/evaluation/patterns.py is the
 * reference: the same placements, the same integer arithmetic, so the same values).
 *
 * Included by _reversicore.c before the kernel; the kernel's 8x8 instantiations add the
 * mobility terms (which need their move generator), a fixed-depth alpha-beta on the
 * evaluation, and move ordering by the evaluation in the endgame solver.
 *
 * A placement's index is sum_j digit(sq[j]) * 3^(len-1-j), digit 1 for the side to move's
 * disc and 2 for the opponent's, so it splits into idx = S(P) + 2 * S(O) where S(B) sums
 * the powers of 3 of the placement's squares set in B.  S is additive over any split of the
 * board, so ev_prepare tabulates it once per board nibble (4 squares, 16 values) for every
 * placement at once -- one lane of a vector of 16-bit integers per placement -- and an
 * evaluation adds 16 table rows for P and 16 for O instead of looping over each
 * placement's squares.  The vectors are GCC/Clang generic vectors (SSE2 on x86_64, NEON
 * on aarch64: no CPU-specific build flag).  Every lane stays below 3^EV_MAXLEN, so the
 * 16-bit sums are exact and the value is the same integer as the loop's.
 */

#define EV_MAXINST 48 /* 6 vectors of 8 lanes; patterns.instances() has 46 */
#define EV_MAXLEN 10 /* 3^10 - 1 fits a 16-bit lane */
#define EV_SCALE 128 /* patterns.SCALE: the evaluation's unit is 1/EV_SCALE of a disc */
#define EV_LANES 8   /* placements per vector */
#define EV_NVEC (EV_MAXINST / EV_LANES)
#define EV_STRIDE 8   /* vectors per table row (EV_NVEC used): 128 bytes, see ev_sum */

typedef uint16_t ev_vec __attribute__((vector_size(2 * EV_LANES)));
_Static_assert(sizeof(ev_vec) * EV_STRIDE == 16 * 8, "ev_sum addresses a table row as 16 * nibble * 8 bytes");

typedef struct {
    int phases, size, width, ninst;
    int16_t *w;           /* phases x size, the last 3 of a phase: own mobility, opponent's, constant */
    int off[EV_MAXINST];  /* each placement's table offset */
    int len[EV_MAXINST];
    int8_t sq[EV_MAXINST][EV_MAXLEN];
    /* nib[n][v][c] lane i: S of placement c * EV_LANES + i (0 past ninst) for the board
     * whose only discs are nibble n's squares 4n..4n+3 set in v (bit b of v: square 4n + b);
     * a nibble value's vectors are adjacent, so one lookup reads 96 contiguous bytes
     * (32 KB in all, inside the struct: the capsule frees it with the struct) */
    ev_vec nib[16][16][EV_STRIDE];
    int phase_at[65];     /* by empty squares: the phase's first weight (ev_phase * size) */
} EvalW;

static inline int ev_phase(const EvalW *e, int empties) {
    int ph = (empties - 1) / e->width;
    return ph < 0 ? 0 : ph >= e->phases ? e->phases - 1 : ph;
}

/* Fill nib and phase_at from the placements and the phases: once, when the weights are loaded. */
static void ev_prepare(EvalW *e) {
    memset(e->nib, 0, sizeof e->nib);
    for (int n = 0; n <= 64; n++) e->phase_at[n] = ev_phase(e, n) * e->size;
    for (int k = e->ninst; k < EV_MAXINST; k++) e->off[k] = 0; /* the unused lanes: see ev_sum */
    for (int k = 0; k < e->ninst; k++) {
        int pw = 1;
        for (int j = e->len[k] - 1; j >= 0; j--, pw *= 3) {
            int s = e->sq[k][j];
            for (int v = 0; v < 16; v++)
                if ((v >> (s & 3)) & 1) e->nib[s >> 2][v][k / EV_LANES][k % EV_LANES] += (uint16_t)pw;
        }
    }
}

/* The evaluation of P to move against O (their mobilities mp, mo) in 1/EV_SCALE discs. */
static inline __attribute__((always_inline)) int ev_sum(const EvalW *e, uint64_t P, uint64_t O, int mp, int mo) {
    const int16_t *w = e->w + e->phase_at[64 - __builtin_popcountll(P | O)];
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ULL;
    /* a square in both P and O (bad input) is read as P's: every index stays in its table */
    O &= ~P;
    /* byte j of *lo: nibble 2j (squares 8j..8j+3) times 16; of *hi: nibble 2j + 1 times 16 */
    uint64_t plo = (P << 4) & hi, phi = P & hi, olo = (O << 4) & hi, ohi = O & hi;
    ev_vec sp[EV_NVEC], so[EV_NVEC];
#pragma GCC unroll 8
    for (int c = 0; c < EV_NVEC; c++) sp[c] = so[c] = (ev_vec){0};
    /* A loop over the board's bytes (not unrolled: 4 row addresses an iteration keep the
     * 2 * EV_NVEC sums and the addresses in registers); a row's address is its table plus a
     * byte of the masked copies times 8 (the 128-byte row of the nibble's value). */
    const char *rows = (const char *)e->nib;
#pragma GCC unroll 1
    for (int j = 0; j < 8; j++) {
        const ev_vec *p0 = (const ev_vec *)(rows + (plo & 0xFF) * 8);
        const ev_vec *o0 = (const ev_vec *)(rows + (olo & 0xFF) * 8);
        const ev_vec *p1 = (const ev_vec *)(rows + sizeof e->nib[0] + (phi & 0xFF) * 8);
        const ev_vec *o1 = (const ev_vec *)(rows + sizeof e->nib[0] + (ohi & 0xFF) * 8);
#pragma GCC unroll 8
        for (int c = 0; c < EV_NVEC; c++) {
            sp[c] += p0[c] + p1[c];
            so[c] += o0[c] + o1[c];
        }
        rows += 2 * sizeof e->nib[0];
        plo >>= 8;
        phi >>= 8;
        olo >>= 8;
        ohi >>= 8;
    }
    union {
        ev_vec v[EV_NVEC];
        uint16_t i[EV_MAXINST];
    } idx;
#pragma GCC unroll 8
    for (int c = 0; c < EV_NVEC; c++) idx.v[c] = sp[c] + so[c] + so[c];
    /* every lane, unrolled: a lane past ninst has index 0 and offset 0, so it adds w[0],
     * taken back after */
    int32_t t = -(EV_MAXINST - e->ninst) * (int32_t)w[0];
#pragma GCC unroll 48
    for (int k = 0; k < EV_MAXINST; k++) t += w[e->off[k] + idx.i[k]];
    t += (int32_t)w[e->size - 3] * mp + (int32_t)w[e->size - 2] * mo + w[e->size - 1];
    return (int)t;
}
