/* The guided tree's position and knowledge (see _tree.h): the learned shape value and
 * priors, kept up to date as stones come and go, and the threat knowledge of a new node. */

/* ------------------------------------------------------------------------ */
/* The position: solver state plus shape codes, value sums and stone neighbourhoods. */

static const int SH_POW[2 * SH_RADIUS] = {1, 3, 9, 27, 81, 243, 729, 2187};

/* The digit of a neighbour `off` cells along the line (-4..-1, 1..4): shapes.OFFSETS. */
static inline int sh_digit(int off) { return off < 0 ? off + SH_RADIUS : off + SH_RADIUS - 1; }

/* The feature indices of a cell whose four shapes are s0..s3 (shapes.ShapeBoard.feature_index):
 * its combination (the best two of its four shapes), then each shape. */
static void sh_features(int s0, int s1, int s2, int s3, int f[5]) {
    int a1 = s0 > s1 ? s0 : s1, b1 = s0 > s1 ? s1 : s0;
    int a2 = s2 > s3 ? s2 : s3, b2 = s2 > s3 ? s3 : s2;
    int top, second;
    if (a1 >= a2) { top = a1; second = b1 > a2 ? b1 : a2; }
    else { top = a2; second = b2 > a1 ? b2 : a1; }
    f[0] = top * SH_CLASSES + second;
    f[1] = SH_COMBOS + s0; f[2] = SH_COMBOS + s1; f[3] = SH_COMBOS + s2; f[4] = SH_COMBOS + s3;
}

/* The weights w summed over the feature indices f. */
static inline double sh_sum(const double *w, const int f[5]) {
    return w[f[0]] + w[f[1]] + w[f[2]] + w[f[3]] + w[f[4]];
}

/* The tuple of empty cell c's four shapes for p: its row in the term tables. */
static inline int sh_tuple(const TreeObject *t, int c, int p) {
    const unsigned short *code = t->code[p] + 4 * c;
    const unsigned char *cls = t->cls[p];
    return ((cls[code[0]] * SH_CLASSES + cls[code[1]]) * SH_CLASSES + cls[code[2]]) * SH_CLASSES + cls[code[3]];
}

/* Fill the term tables from the weights; 0 when out of memory. */
static int sh_tables(TreeObject *t) {
    t->t_value = malloc(sizeof(double) * 2 * SH_TUPLES);
    t->t_attack = malloc(sizeof(double) * SH_TUPLES);
    t->t_defence = malloc(sizeof(double) * SH_TUPLES);
    if (!t->t_value || !t->t_attack || !t->t_defence) return 0;
    for (int i = 0; i < SH_TUPLES; i++) {
        int f[5];
        sh_features(i / 1000, i / 100 % 10, i / 10 % 10, i % 10, f);
        t->t_value[2 * i] = sh_sum(t->w_mine, f);
        t->t_value[2 * i + 1] = sh_sum(t->w_theirs, f);
        t->t_attack[i] = sh_sum(t->w_attack, f);
        t->t_defence[i] = sh_sum(t->w_defence, f);
    }
    return 1;
}

/* Set cell c's terms of q's value sums (an occupied cell has none). */
static inline void sh_refresh_one(TreeObject *t, int c, int q) {
    double m = 0.0, th = 0.0;
    if (t->s.cells[c] == 0) {
        const double *v = t->t_value + 2 * sh_tuple(t, c, q);
        m = v[0];
        th = v[1];
    }
    t->sum[q][0] += m - t->c_mine[q][c];
    t->sum[q][1] += th - t->c_theirs[q][c];
    t->c_mine[q][c] = m;
    t->c_theirs[q][c] = th;
}

static inline void sh_refresh(TreeObject *t, int c) {
    sh_refresh_one(t, c, 1);
    sh_refresh_one(t, c, 2);
}

/* Is padded cell y off the board (the walk along a line stops there)? */
static inline int off_board(const TreeObject *t, int y) {
    return y < 0 || y >= t->g->npad || t->s.cells[y] == 3;
}

/* Every line code and value term from the cells of t->s (a new root). */
static void sh_load(TreeObject *t) {
    const int npad = t->g->npad;
    for (int q = 1; q <= 2; q++) {
        memset(t->code[q], 0, sizeof(unsigned short) * 4 * (size_t)npad);
        memset(t->c_mine[q], 0, sizeof(double) * (size_t)npad);
        memset(t->c_theirs[q], 0, sizeof(double) * (size_t)npad);
    }
    memset(t->sum, 0, sizeof t->sum);
    for (int i = 0; i < t->area; i++) {
        int c = t->board_cells[i];
        for (int d = 0; d < 4; d++)
            for (int sign = -1; sign <= 1; sign += 2) {
                int wall = 0;
                for (int k = 1; k <= SH_RADIUS; k++) {
                    int y = c + sign * k * t->dirs[d], pw = SH_POW[sh_digit(sign * k)];
                    if (!wall && off_board(t, y)) wall = 1;
                    int v = wall ? 3 : t->s.cells[y];
                    for (int q = 1; q <= 2; q++)
                        t->code[q][4 * c + d] += (unsigned short)(pw * (v == 0 ? 0 : v == q ? 1 : 2));
                }
            }
    }
    for (int i = 0; i < t->area; i++) sh_refresh(t, t->board_cells[i]);
}

/* The cells along the four lines of every board cell, up to SH_RADIUS away and short of
 * the edge, as code slots with the digit the cell is to them (sh_move's walk, made once). */
static int sh_lines(TreeObject *t) {
    const int npad = t->g->npad;
    t->line_start = calloc((size_t)npad + 1, sizeof(int));
    t->line_slot = malloc(sizeof(int) * (size_t)(8 * SH_RADIUS * t->area + 1));
    t->line_pw = malloc(sizeof(int) * (size_t)(8 * SH_RADIUS * t->area + 1));
    if (!t->line_start || !t->line_slot || !t->line_pw) return 0;
    int n = 0;
    for (int x = 0; x < npad; x++) {
        t->line_start[x] = n;
        if (t->compact[x] < 0) continue;
        for (int d = 0; d < 4; d++)
            for (int side = -1; side <= 1; side += 2)
                for (int k = 1; k <= SH_RADIUS; k++) {
                    int y = x + side * k * t->dirs[d];
                    if (y < 0 || y >= npad || t->compact[y] < 0) break;
                    t->line_slot[n] = 4 * y + d;
                    t->line_pw[n++] = SH_POW[sh_digit(-side * k)];  /* x seen from y */
                }
    }
    t->line_start[npad] = n;
    return 1;
}

/* Stone p set (sign 1) or taken (sign -1) at cell x: the codes of the cells along its four
 * lines, and the value terms of the empty ones among them whose shape changed (a cell's
 * terms depend on its shapes alone, and most distant stones change none). */
static void sh_move(TreeObject *t, int x, int p, int sign) {
    const int o = 3 - p;
    unsigned short *code_p = t->code[p], *code_o = t->code[o];
    const unsigned char *cls_p = t->cls[p], *cls_o = t->cls[o];
    for (int i = t->line_start[x]; i < t->line_start[x + 1]; i++) {
        int slot = t->line_slot[i], y = slot >> 2, pw = sign * t->line_pw[i];
        int was_p = cls_p[code_p[slot]], was_o = cls_o[code_o[slot]];
        code_p[slot] = (unsigned short)(code_p[slot] + pw);
        code_o[slot] = (unsigned short)(code_o[slot] + 2 * pw);
        if (t->s.cells[y] != 0) continue;
        if (cls_p[code_p[slot]] != was_p) sh_refresh_one(t, y, p);
        if (cls_o[code_o[slot]] != was_o) sh_refresh_one(t, y, o);
    }
    sh_refresh(t, x);
}

static void tree_place(TreeObject *t, int cell, int p) {
    place(&t->s, cell, p);
    sh_move(t, cell, p, 1);
    for (int i = t->near_start[cell]; i < t->near_start[cell + 1]; i++) t->near_cnt[t->near[i]]++;
    t->stones++;
}

static void tree_take(TreeObject *t, int cell) {
    int p = t->s.cells[cell];
    take(&t->s, cell);
    sh_move(t, cell, p, -1);
    for (int i = t->near_start[cell]; i < t->near_start[cell + 1]; i++) t->near_cnt[t->near[i]]--;
    t->stones--;
}

/* Learned value in (0, 1) for p to move (shapes.ShapeBoard.values). */
static inline double tree_value(const TreeObject *t, int p) {
    double logit = t->tempo + t->sum[p][0] + t->sum[3 - p][1];
    return 1.0 / (1.0 + exp(-logit));
}

/* Prior logit of p playing the empty padded cell c (shapes.ShapeBoard.prior_logits). */
static double cell_score(const TreeObject *t, int c, int p) {
    double sc = t->t_attack[sh_tuple(t, c, p)] + t->t_defence[sh_tuple(t, c, 3 - p)];
    const unsigned short *code_own = t->code[p] + 4 * c, *code_opp = t->code[3 - p] + 4 * c;
    for (int d = 0; d < 4; d++) sc += t->w_attack_lines[code_own[d]] + t->w_defence_lines[code_opp[d]];
    return sc;
}

/* ------------------------------------------------------------------------ */
/* Threat knowledge of a new node (GuidedLeaves.expand / defence._defence_cells). */

/* One solver run from the current position; returns the line (caller frees) or NULL. */
static Line *tree_solve(TreeObject *t, int attacker, long long nodes, int threes, int search, int *aborted) {
    s_begin(&t->s, nodes, -1);
    Line *line = s_run(&t->s, attacker, threes, search);
    *aborted = t->s.aborted;
    if (t->s.aborted == 2) t->oom = 1;
    if (t->s.aborted) { free(line); line = NULL; }
    /* The flag belongs to this run: the solver's helpers between runs (double_defences,
     * fours) stop early on it, so a spent budget must not cut their next answer short. */
    t->s.aborted = 0;
    return line;
}

/* The first move of attacker p's VCT from the current position (tree_solve with the tree's
 * VCT budget), or -1 when none is found: asked of the memo first, kept there after. */
static int tree_vct(TreeObject *t, int p) {
    /* The attacker salts the position's key; the low bit keeps every key nonzero. */
    uint64_t key = (t->s.hash ^ (p == 2 ? 0x9E3779B97F4A7C15ULL : 0)) | 1;
    VctMemo *slot = &t->vct_memo[(key >> 32) & (VCT_MEMO_SLOTS - 1)];
    if (slot->key == key) return slot->move;
    int aborted;
    Line *line = tree_solve(t, p, t->vct_nodes, t->vct_threes, SEARCH_DEEPENING, &aborted);
    int move = line ? line->v[0] : -1;
    free(line);
    if (!t->oom) { slot->key = key; slot->move = move; }  /* out of memory cut the run short */
    return move;
}

/* defence._refutes: after s plays m, the opponent has no completion and no VCF found
 * (a spent budget counts as refuted: defence sets err towards more moves).  Only the
 * solver looks at the trial stone, so it is set in the solver state alone (the shapes and
 * neighbourhoods stay the node's). */
static int refutes(TreeObject *t, int m, int sd, long long nodes) {
    IVec w = {0};
    int ok = 1, aborted;
    place(&t->s, m, sd);
    completing(&t->s, 3 - sd, &w);
    if (w.n) ok = 0;
    else {
        Line *line = tree_solve(t, 3 - sd, nodes, -1, SEARCH_DEPTH_FIRST, &aborted);
        if (line) { ok = 0; free(line); }
    }
    take(&t->s, m);
    iv_free(&t->s, &w);
    return ok;
}

/* defence._near_lines: empty cells on the four lines through `cell`, within `reach`. */
static void near_lines(TreeObject *t, int cell, int reach, IVec *out) {
    const signed char *cells = t->s.cells;
    if (cells[cell] == 0) iv_push(&t->s, out, cell);
    for (int d = 0; d < 4; d++)
        for (int sign = -1; sign <= 1; sign += 2) {
            int c = cell;
            for (int r = 0; r < reach; r++) {
                c += sign * t->dirs[d];
                /* The border row above the board is one cell short of a diagonal step. */
                if (c < 0 || c >= t->g->npad || cells[c] == 3) break;
                if (cells[c] == 0) iv_push(&t->s, out, c);
            }
        }
}

/* defence._vcf_candidates: moves of sd that may refute the opponent's VCF `line`. */
static void vcf_candidates(TreeObject *t, int sd, const Line *line, IVec *out) {
    const GeomObject *g = t->g;
    const short *mine = t->s.cnt[sd], *theirs = t->s.cnt[3 - sd];
    int k = g->k;
    for (int i = 0; i < line->n; i++) {
        int c = line->v[i];
        if (i % 2 == 0) near_lines(t, c, 2, out);
        else iv_push(&t->s, out, c);
        for (int j = g->cw_start[c]; j < g->cw_start[c + 1]; j++) {
            int w = g->cw[j];
            int hit = i % 2 == 0 ? (mine[w] == 0 && theirs[w] >= k - 3) : (theirs[w] == 0 && mine[w] >= k - 3);
            if (!hit) continue;
            for (int x = 0; x < k; x++) {
                int cx = g->win[w * k + x];
                if (t->s.cells[cx] == 0) iv_push(&t->s, out, cx);
            }
        }
    }
    sort_unique(out);
}

/* defence._defence_cells for sd to move, who has no completion and faces none:
 * returns 1 with the defence set in out (sorted), or 0 when nothing restricts the moves
 * (or, under renju, when every defence of black's is forbidden). */
static int defence_cells(TreeObject *t, int sd, IVec *out) {
    int o = 3 - sd, aborted;
    IVec counters = {0}, threats = {0}, base = {0};
    int restricted = 0;
    out->n = 0;
    fours(&t->s, sd, &counters);
    double_moves(&t->s, o, &threats);
    if (threats.n) {
        restricted = 1;
        double_defences(&t->s, sd, &threats, &base);
        if (!base.n) {
            for (int i = 0; i < threats.n; i++) iv_push(&t->s, out, threats.v[i]);
        } else {
            /* Prefer the defences that also leave no VCF, when any do. */
            for (int i = 0; i < base.n; i++)
                if (refutes(t, base.v[i], sd, t->defence_nodes / 4)) iv_push(&t->s, out, base.v[i]);
            if (!out->n)
                for (int i = 0; i < base.n; i++) iv_push(&t->s, out, base.v[i]);
        }
    } else {
        Line *line = tree_solve(t, o, t->defence_nodes, -1, SEARCH_DEPTH_FIRST, &aborted);
        if (line) {
            restricted = 1;
            IVec cand = {0};
            vcf_candidates(t, sd, line, &cand);
            for (int i = 0; i < cand.n; i++)
                if (refutes(t, cand.v[i], sd, t->defence_nodes / 4)) iv_push(&t->s, out, cand.v[i]);
            if (!out->n && !counters.n) iv_push(&t->s, out, line->v[0]);
            iv_free(&t->s, &cand);
            free(line);
        }
    }
    if (restricted)
        for (int i = 0; i < counters.n; i++) iv_push(&t->s, out, counters.v[i]);
    sort_unique(out);
    if (t->s.renju && sd == 1) {
        /* A forbidden defence is no defence; with none left the node lists its ordinary
         * candidates, and its children prove the loss. */
        int m = 0;
        for (int i = 0; i < out->n; i++)
            if (!s_forbidden(&t->s, out->v[i], sd)) out->v[m++] = out->v[i];
        out->n = m;
    }
    iv_free(&t->s, &counters);
    iv_free(&t->s, &threats);
    iv_free(&t->s, &base);
    return restricted && out->n > 0;
}

