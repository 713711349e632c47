/* The guided tree's position and knowledge (see _tree.h): evaluation sums, window
 * scores, and the threat knowledge of a new node. */

/* ------------------------------------------------------------------------ */
/* The position: solver state plus evaluation sums and stone neighbourhoods. */

static inline void sum_window(TreeObject *t, int a1, int a2, double sign) {
    if (a2 == 0 && a1 > 0) { t->sum[1][0] += sign * t->own[a1]; t->sum[1][1] += sign * t->opp[a1]; }
    else if (a1 == 0 && a2 > 0) { t->sum[2][0] += sign * t->own[a2]; t->sum[2][1] += sign * t->opp[a2]; }
}

static void tree_place(TreeObject *t, int cell, int p) {
    const GeomObject *g = t->g;
    short *c1 = t->s.cnt[1], *c2 = t->s.cnt[2];
    for (int i = g->cw_start[cell]; i < g->cw_start[cell + 1]; i++) {
        int w = g->cw[i];
        sum_window(t, c1[w], c2[w], -1.0);
        sum_window(t, c1[w] + (p == 1), c2[w] + (p == 2), 1.0);
    }
    place(&t->s, cell, p);
    for (int i = t->near_start[cell]; i < t->near_start[cell + 1]; i++) t->near_cnt[t->near[i]]++;
    t->stones++;
}

static void tree_take(TreeObject *t, int cell) {
    const GeomObject *g = t->g;
    int p = t->s.cells[cell];
    short *c1 = t->s.cnt[1], *c2 = t->s.cnt[2];
    for (int i = g->cw_start[cell]; i < g->cw_start[cell + 1]; i++) {
        int w = g->cw[i];
        sum_window(t, c1[w], c2[w], -1.0);
        sum_window(t, c1[w] - (p == 1), c2[w] - (p == 2), 1.0);
    }
    take(&t->s, cell);
    for (int i = t->near_start[cell]; i < t->near_start[cell + 1]; i++) t->near_cnt[t->near[i]]--;
    t->stones--;
}

/* Evaluation value in (0, 1) for p to move (engine.evaluation.LineEvaluator). */
static inline double tree_value(const TreeObject *t, int p) {
    double logit = t->tempo + t->sum[p][0] + t->sum[3 - p][1];
    return 1.0 / (1.0 + exp(-logit));
}

/* Window score of the empty padded cell c for p (engine.patterns.cell_scores). */
static double cell_score(const TreeObject *t, int c, int p) {
    const GeomObject *g = t->g;
    const short *mine = t->s.cnt[p], *theirs = t->s.cnt[3 - p];
    double sc = t->dead;
    for (int i = g->cw_start[c]; i < g->cw_start[c + 1]; i++) {
        int w = g->cw[i], a = mine[w], b = theirs[w];
        if (b == 0) sc += t->attack[a];
        if (a == 0) sc += t->defence[b];
    }
    return sc;
}

/* ------------------------------------------------------------------------ */
/* Threat knowledge of a new node (GuidedLeaves.expand / defence._defence_cells). */

/* One solver run from the current position; returns the line (caller frees) or NULL. */
static Line *tree_solve(TreeObject *t, int attacker, long long nodes, int threes, int deepen, int *aborted) {
    s_begin(&t->s, nodes, -1);
    Line *line = s_run(&t->s, attacker, threes, deepen);
    *aborted = t->s.aborted;
    if (t->s.aborted == 2) t->oom = 1;
    if (t->s.aborted) { free(line); line = NULL; }
    return line;
}

/* defence._refutes: after s plays m, the opponent has no completion and no VCF found
 * (a spent budget counts as refuted: defence sets err towards more moves). */
static int refutes(TreeObject *t, int m, int sd, long long nodes) {
    IVec w = {0};
    int ok = 1, aborted;
    tree_place(t, m, sd);
    completing(&t->s, 3 - sd, &w);
    if (w.n) ok = 0;
    else {
        Line *line = tree_solve(t, 3 - sd, nodes, -1, 0, &aborted);
        if (line) { ok = 0; free(line); }
    }
    tree_take(t, m);
    iv_free(&w);
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
        Line *line = tree_solve(t, o, t->defence_nodes, -1, 0, &aborted);
        if (line) {
            restricted = 1;
            IVec cand = {0};
            vcf_candidates(t, sd, line, &cand);
            for (int i = 0; i < cand.n; i++)
                if (refutes(t, cand.v[i], sd, t->defence_nodes / 4)) iv_push(&t->s, out, cand.v[i]);
            if (!out->n && !counters.n) iv_push(&t->s, out, line->v[0]);
            iv_free(&cand);
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
    iv_free(&counters);
    iv_free(&threats);
    iv_free(&base);
    return restricted && out->n > 0;
}

