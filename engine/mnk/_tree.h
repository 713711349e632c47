/*
 * Guided MCTS in C: the tree search of engine/mnk/mcts.py's guided mode for the boards the
 * solver handles (freestyle, K >= 4), some fifty times more nodes a second than the
 * Python tree.  Included by _threatcore.c; the Python side is engine/mnk/nativesearch.py.
 *
 * The same search as the Python tree, one leaf at a time (no batches, so no virtual
 * loss):
 * - A node is created when a descent first reaches it, with its exact status: the side
 *   to move completes a line (a proven win), the opponent has two completions (a loss),
 *   the board is full (a draw).  Its value is the static line evaluation of
 *   engine/mnk/evaluation.py, kept up to date incrementally (four running sums over the
 *   windows, changed only by the windows through the stone set or cleared).
 * - Its moves are listed on the next descent through it (ThreatKnowledge.suggest): the
 *   block of the opponent's completion; a VCF (then a VCT) of the side to move proves a
 *   win; the defences against the opponent's double threat or VCF; else the empty cells
 *   within distance 2 of a stone.  Moves are ordered by the window scores of
 *   engine/patterns.cell_scores, which also give the progressive bias.  Below the root
 *   only the best `edge_cap` are listed; a node whose listed moves are all proven
 *   lost is widened to every empty cell before it is declared lost.
 * - Selection: untried moves in order while progressive widening allows
 *   (w * sqrt(visits)), else UCT, q + c * sqrt(ln(R N) / n) + bias * prior / (n + 1),
 *   which is the Python tree's formula with its R playouts per leaf counted as one visit.
 * - MCTS-Solver proofs as in the Python tree.
 *
 * The position lives in one solver state S: a descent plays its moves with tree_place
 * and takes them back on the way up, so the solver runs on the tree's own counts.
 */

#define T_WIN 1
#define T_LOSS 2
#define T_DRAW 3

typedef struct {
    int move;     /* padded cell */
    int child;    /* node index, -1 before the move is first played */
    float prior;  /* progressive bias weight */
    int n;        /* visits */
    float w;      /* their summed value for the side to move at the parent */
} Edge;

typedef struct {
    long edges;          /* first edge in the arena */
    int nedges;          /* -1: not listed yet */
    int next_new;        /* moves tried so far, in order */
    int visits;
    short plies;         /* once proven a win or a loss: plies to the end with best play */
    signed char proven;  /* T_WIN / T_LOSS / T_DRAW for the side to move, or 0 */
    unsigned char complete;  /* do the listed moves cover every empty cell? */
    unsigned char vct_done;  /* the deferred VCT has run here */
    unsigned char capped;    /* only the best edge_cap candidates were listed */
} TNode;

typedef struct {
    PyObject_HEAD
    GeomObject *g;        /* owned */
    S s;                  /* the position of the descent (the root's between runs) */
    int area, full_width, dirs[4];
    int *board_cells;     /* padded cell of each compact move */
    int *compact;         /* compact move of each padded cell, -1 off the board */
    int *rank;            /* centre rank of each padded cell (tie-break of the move order) */
    int *near_start, *near;  /* on-board cells within distance 2 of each padded cell */
    int *near_cnt;        /* stones within distance 2 of each padded cell */
    int stones;
    double *own, *opp;    /* evaluation weights by stones of a live window (0..K) */
    double *attack, *defence;  /* window-score weights by stones (0..K) */
    double tempo, dead;
    double sum[3][2];     /* per side: sum of own[c] and of opp[c] over its live windows */
    /* Options. */
    double c_eff, log_r, bias, widen;
    int vcf_nodes, defence_nodes, vct_nodes, vct_threes, vct_visits, edge_cap;
    /* The tree. */
    TNode *nodes;
    int nnodes, alloc_nodes, cap_nodes;  /* used, allocated, the most allowed */
    Edge *edge;
    long nedge, cap_edge, max_edge;      /* used, allocated, the most allowed */
    int root_to_move, max_depth;
    long long iterations;
    int oom;
} TreeObject;

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
/* Threat knowledge of a new node (ThreatKnowledge.suggest / threats._defence_cells). */

/* One solver run from the current position; returns the line (caller frees) or NULL. */
static Line *tree_solve(TreeObject *t, int attacker, long long nodes, int threes, int deepen, int *aborted) {
    s_begin(&t->s, nodes, -1);
    Line *line = s_run(&t->s, attacker, threes, deepen);
    *aborted = t->s.aborted;
    if (t->s.aborted == 2) t->oom = 1;
    if (t->s.aborted) { free(line); line = NULL; }
    return line;
}

/* threats._refutes: after s plays m, the opponent has no completion and no VCF found
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

/* threats._near_lines: empty cells on the four lines through `cell`, within `reach`. */
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

/* threats._vcf_candidates: moves of sd that may refute the opponent's VCF `line`. */
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

/* threats._defence_cells for sd to move, who has no completion and faces none:
 * returns 1 with the defence set in out (sorted), or 0 when nothing restricts the moves. */
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
    iv_free(&counters);
    iv_free(&threats);
    iv_free(&base);
    return restricted && out->n > 0;
}

/* ------------------------------------------------------------------------ */
/* Tree storage.                                                             */

/* A new node's index, or -1 when the tree is full (pointers into nodes may move). */
static int new_node(TreeObject *t) {
    if (t->nnodes >= t->cap_nodes) return -1;
    if (t->nnodes == t->alloc_nodes) {
        int cap = t->alloc_nodes ? 2 * t->alloc_nodes : 1 << 12;
        if (cap > t->cap_nodes) cap = t->cap_nodes;
        TNode *nodes = realloc(t->nodes, sizeof(TNode) * (size_t)cap);
        if (!nodes) { t->oom = 1; return -1; }
        t->nodes = nodes;
        t->alloc_nodes = cap;
    }
    TNode *n = &t->nodes[t->nnodes];
    memset(n, 0, sizeof *n);
    n->nedges = -1;
    n->complete = 1;
    return t->nnodes++;
}

/* Room for `count` more edges; returns the first index or -1 (the arena is full;
 * pointers into the edges may move). */
static long alloc_edges(TreeObject *t, int count) {
    if (t->nedge + count > t->max_edge) return -1;
    if (t->nedge + count > t->cap_edge) {
        long cap = t->cap_edge ? t->cap_edge : 1 << 16;
        while (cap < t->nedge + count) cap *= 2;
        Edge *e = realloc(t->edge, sizeof(Edge) * (size_t)cap);
        if (!e) { t->oom = 1; return -1; }
        t->edge = e;
        t->cap_edge = cap;
    }
    long at = t->nedge;
    t->nedge += count;
    return at;
}

/* The exact status of a new node with p to move (Searcher._new_node). */
static void classify_new(TreeObject *t, TNode *n, int p) {
    IVec w = {0};
    completing(&t->s, p, &w);
    if (w.n) { n->proven = T_WIN; n->plies = 1; }
    else if (t->stones == t->area) n->proven = T_DRAW;
    else {
        completing(&t->s, 3 - p, &w);
        if (w.n >= 2) { n->proven = T_LOSS; n->plies = 2; }
    }
    iv_free(&w);
}

static void edge_init(Edge *e, int cell, float prior) {
    e->move = cell;
    e->child = -1;
    e->prior = prior;
    e->n = 0;
    e->w = 0.0f;
}

typedef struct { int cell; double score; int rank; } Cand;

static int cmp_cand(const void *x, const void *y) {
    const Cand *a = x, *b = y;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->rank - b->rank;
}

/* Give node n the moves `cells` (count m), ordered by window score with priors;
 * at most `cap` of them (cap <= 0: all). */
static void set_moves(TreeObject *t, TNode *n, const int *cells, int m, int p, int cap) {
    Cand *cand = malloc(sizeof(Cand) * (size_t)(m > 0 ? m : 1));
    if (!cand) { t->oom = 1; return; }
    for (int i = 0; i < m; i++) {
        cand[i].cell = cells[i];
        cand[i].score = cell_score(t, cells[i], p);
        cand[i].rank = t->rank[cells[i]];
    }
    qsort(cand, (size_t)m, sizeof(Cand), cmp_cand);
    int keep = cap > 0 && m > cap ? cap : m;
    long at = alloc_edges(t, keep);
    if (at < 0) { free(cand); return; }
    double top = keep ? cand[0].score : 1.0;
    for (int i = 0; i < keep; i++) {
        edge_init(&t->edge[at + i], cand[i].cell, (float)(top > 0 ? t->bias * cand[i].score / top : 0.0));
    }
    n->edges = at;
    n->nedges = keep;
    n->next_new = 0;
    n->complete = keep == t->area - t->stones;
    n->capped = keep < m;
    free(cand);
}

/* A single forced move (a block, or the first move of a proven win). */
static void set_forced(TreeObject *t, TNode *n, int cell) {
    long at = alloc_edges(t, 1);
    if (at < 0) return;
    edge_init(&t->edge[at], cell, 0.0f);
    n->edges = at;
    n->nedges = 1;
    n->next_new = 0;
}

/* Empty cells near a stone (all empty cells on small boards, the centre on an empty one). */
static int candidate_cells(TreeObject *t, int *out) {
    int m = 0;
    for (int i = 0; i < t->area; i++) {
        int c = t->board_cells[i];
        if (t->s.cells[c] == 0 && (t->full_width || t->near_cnt[c] > 0)) out[m++] = c;
    }
    if (m == 0) {
        int best = -1;
        for (int i = 0; i < t->area; i++) {
            int c = t->board_cells[i];
            if (t->s.cells[c] == 0 && (best < 0 || t->rank[c] < t->rank[best])) best = c;
        }
        if (best >= 0) out[m++] = best;
    }
    return m;
}

/* List the moves of node index ni (p to move, its position on the board). */
static void expand(TreeObject *t, int ni, int p, int cap) {
    TNode *n = &t->nodes[ni];
    int o = 3 - p, aborted;
    IVec w = {0};
    completing(&t->s, o, &w);
    if (w.n) {  /* one completion (two made the node a loss): the only move */
        set_forced(t, n, w.v[0]);
        iv_free(&w);
        return;
    }
    iv_free(&w);
    Line *line = NULL;
    if (t->vcf_nodes > 0) line = tree_solve(t, p, t->vcf_nodes, -1, 0, &aborted);
    if (!line && t->vct_nodes > 0 && t->vct_visits <= 0) {
        line = tree_solve(t, p, t->vct_nodes, t->vct_threes, 1, &aborted);
        n->vct_done = 1;
    }
    if (line) {
        set_forced(t, &t->nodes[ni], line->v[0]);
        t->nodes[ni].proven = T_WIN;
        t->nodes[ni].plies = 3;  /* a threat sequence of unknown length */
        free(line);
        return;
    }
    IVec def = {0};
    if (defence_cells(t, p, &def)) {
        set_moves(t, &t->nodes[ni], def.v, def.n, p, 0);
        t->nodes[ni].complete = def.n == t->area - t->stones;
        iv_free(&def);
        return;
    }
    iv_free(&def);
    int *cells = malloc(sizeof(int) * (size_t)t->area);
    if (!cells) { t->oom = 1; return; }
    int m = candidate_cells(t, cells);
    set_moves(t, &t->nodes[ni], cells, m, p, cap);
    free(cells);
}

/* Add every empty cell not yet listed (before a node whose moves all lose is proven lost). */
static void widen(TreeObject *t, int ni) {
    TNode *n = &t->nodes[ni];
    int extra = 0;
    for (int i = 0; i < t->area; i++) if (t->s.cells[t->board_cells[i]] == 0) extra++;
    for (int i = 0; i < n->nedges; i++) if (t->s.cells[t->edge[n->edges + i].move] == 0) extra--;
    n->complete = 1;
    if (extra <= 0) return;
    long at = alloc_edges(t, n->nedges + extra);
    if (at < 0) return;
    n = &t->nodes[ni];
    memcpy(&t->edge[at], &t->edge[n->edges], sizeof(Edge) * (size_t)n->nedges);
    long j = at + n->nedges;
    for (int i = 0; i < t->area; i++) {
        int c = t->board_cells[i];
        if (t->s.cells[c] != 0) continue;
        int listed = 0;
        for (int e = 0; e < n->nedges && !listed; e++) listed = t->edge[at + e].move == c;
        if (listed) continue;
        edge_init(&t->edge[j++], c, 0.0f);
    }
    n->edges = at;
    n->nedges = (int)(j - at);
}

/* ------------------------------------------------------------------------ */
/* One iteration: descend, value the leaf, back up values and proofs.        */

static double exact_value(int proven) { return proven == T_WIN ? 1.0 : proven == T_LOSS ? 0.0 : 0.5; }

/* Selection at an expanded, unproven node; -1 when no move can be chosen. */
static int select_edge(TreeObject *t, TNode *n) {
    if (n->next_new < n->nedges &&
        (n->next_new == 0 || n->next_new < t->widen * sqrt((double)n->visits) || t->widen <= 0))
        return n->next_new++;
    double lnv = log(t->log_r * (n->visits > 0 ? n->visits : 1));
    int best = -1;
    double best_score = -1e300;
    for (int i = 0; i < n->next_new; i++) {
        Edge *e = &t->edge[n->edges + i];
        if (e->child >= 0 && t->nodes[e->child].proven) continue;
        double nv = e->n > 0 ? e->n : 1;
        double sc = e->w / nv + t->c_eff * sqrt(lnv / nv) + e->prior / (e->n + 1.0);
        if (sc > best_score) { best_score = sc; best = i; }
    }
    if (best < 0 && n->next_new < n->nedges) return n->next_new++;
    return best;
}

/* After child edge i of node ni was proven (MCTS-Solver); the board holds ni's position.
 * Returns 1 when ni became proven. */
static int prove(TreeObject *t, int ni, int i) {
    TNode *n = &t->nodes[ni];
    TNode *ch = &t->nodes[t->edge[n->edges + i].child];
    if (ch->proven == T_LOSS) {
        int plies = ch->plies + 1;
        if (n->proven != T_WIN || plies < n->plies) { n->proven = T_WIN; n->plies = (short)plies; }
        return 1;
    }
    if (n->next_new < n->nedges) return 0;
    int any_draw = 0, longest = 0;
    for (int j = 0; j < n->nedges; j++) {
        int c = t->edge[n->edges + j].child;
        if (c < 0 || !t->nodes[c].proven) return 0;
        if (t->nodes[c].proven == T_DRAW) any_draw = 1;
        else if (t->nodes[c].plies > longest) longest = t->nodes[c].plies;
    }
    if (!n->complete) { widen(t, ni); return 0; }
    n->proven = any_draw ? T_DRAW : T_LOSS;
    n->plies = (short)(any_draw ? 0 : longest + 1);
    return 1;
}

typedef struct { int node, edge, move; } Step;

static void iterate(TreeObject *t, Step *path) {
    int ni = 0, p = t->root_to_move, depth = 0;
    double value;  /* for the side to move at the leaf */
    for (;;) {
        TNode *n = &t->nodes[ni];
        if (n->proven) { value = exact_value(n->proven); break; }
        if (n->nedges < 0) {
            /* A full arena cannot take the moves: value the node without its knowledge
             * (which would run again, in vain, on every visit). */
            if (t->nedge + t->area > t->max_edge) { value = tree_value(t, p); break; }
            expand(t, ni, p, ni == 0 ? 0 : t->edge_cap);
            n = &t->nodes[ni];
            if (n->nedges < 0) { value = tree_value(t, p); break; }  /* out of memory */
            if (n->proven) { value = exact_value(n->proven); break; }
        } else if (!n->vct_done && t->vct_nodes > 0 && t->vct_visits > 0 && n->visits >= t->vct_visits && ni != 0) {
            /* The deferred VCT, once a node has proved worth it. */
            int aborted;
            n->vct_done = 1;
            Line *line = tree_solve(t, p, t->vct_nodes, t->vct_threes, 1, &aborted);
            n = &t->nodes[ni];
            if (line) {
                set_forced(t, n, line->v[0]);
                n = &t->nodes[ni];
                n->proven = T_WIN;
                n->plies = 3;
                free(line);
                value = 1.0;
                break;
            }
        }
        int i = select_edge(t, n);
        if (i < 0) { value = tree_value(t, p); break; }
        Edge *e = &t->edge[n->edges + i];
        path[depth].node = ni;
        path[depth].edge = i;
        path[depth].move = e->move;
        depth++;
        tree_place(t, e->move, p);
        p = 3 - p;
        if (e->child < 0) {
            int c = new_node(t);
            if (c < 0) { value = tree_value(t, p); break; }  /* the tree is full: value without a node */
            t->edge[t->nodes[ni].edges + i].child = c;
            classify_new(t, &t->nodes[c], p);
            value = t->nodes[c].proven ? exact_value(t->nodes[c].proven) : tree_value(t, p);
            break;
        }
        ni = e->child;
    }
    if (depth > t->max_depth) t->max_depth = depth;
    int check = 1;
    for (int j = depth - 1; j >= 0; j--) {
        tree_take(t, path[j].move);
        value = 1.0 - value;
        TNode *n = &t->nodes[path[j].node];
        Edge *e = &t->edge[n->edges + path[j].edge];
        e->n += 1;
        e->w += (float)value;
        n->visits += 1;
        if (check) {
            int c = e->child;
            check = c >= 0 && t->nodes[c].proven && prove(t, path[j].node, path[j].edge);
        }
    }
    t->nodes[0].visits += depth == 0;
    t->iterations++;
}

/* ------------------------------------------------------------------------ */
/* The Python type.                                                          */

static void tree_free_tree(TreeObject *t) {
    free(t->nodes);
    free(t->edge);
    t->nodes = NULL;
    t->edge = NULL;
    t->nnodes = t->alloc_nodes = 0;
    t->nedge = t->cap_edge = 0;
}

static void tree_dealloc(TreeObject *t) {
    tree_free_tree(t);
    s_release(&t->s);
    free(t->board_cells); free(t->compact); free(t->rank);
    free(t->near_start); free(t->near); free(t->near_cnt);
    free(t->own); free(t->opp); free(t->attack); free(t->defence);
    Py_XDECREF(t->g);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* Read a sequence of K + 1 floats into a new array. */
static double *read_weights(PyObject *obj, int k) {
    PyObject *seq = PySequence_Fast(obj, "weights must be a sequence");
    if (!seq) return NULL;
    double *out = NULL;
    if (PySequence_Fast_GET_SIZE(seq) != k + 1) {
        PyErr_SetString(PyExc_ValueError, "weights need K + 1 entries (indexed by stones in a window)");
    } else if ((out = malloc(sizeof(double) * (size_t)(k + 1))) == NULL) {
        PyErr_NoMemory();
    } else {
        for (int i = 0; i <= k; i++) {
            out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
            if (PyErr_Occurred()) { free(out); out = NULL; break; }
        }
    }
    Py_DECREF(seq);
    return out;
}

static int tree_init(TreeObject *t, PyObject *args, PyObject *kwds) {
    PyObject *geom_obj, *board_cells, *dirs, *own, *opp, *attack, *defence;
    int full_width;
    static char *kwlist[] = {"geometry", "board_cells", "directions", "full_width", "own", "opponent", "tempo",
                             "attack", "defence", "dead", "exploration", "per_leaf", "bias", "widening",
                             "vcf_nodes", "defence_nodes", "vct_nodes", "vct_threes", "vct_visits", "edge_cap",
                             "max_nodes", NULL};
    double per_leaf, c;
    int max_nodes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOpOOdOOddddd" "iiiiiii", kwlist, &GeomType, &geom_obj,
                                     &board_cells, &dirs, &full_width, &own, &opp, &t->tempo, &attack, &defence,
                                     &t->dead, &c, &per_leaf, &t->bias, &t->widen, &t->vcf_nodes, &t->defence_nodes,
                                     &t->vct_nodes, &t->vct_threes, &t->vct_visits, &t->edge_cap, &max_nodes))
        return -1;
    if (t->g) { PyErr_SetString(PyExc_RuntimeError, "Tree is initialised once"); return -1; }
    GeomObject *g = (GeomObject *)geom_obj;
    if (g->k < 4) { PyErr_SetString(PyExc_ValueError, "the native tree needs K >= 4"); return -1; }
    if (per_leaf < 1 || max_nodes < 1) { PyErr_SetString(PyExc_ValueError, "per_leaf and max_nodes must be >= 1"); return -1; }
    Py_INCREF(g);
    t->g = g;
    t->full_width = full_width;
    t->c_eff = c / sqrt(per_leaf);
    t->log_r = per_leaf;
    PyObject *seq = PySequence_Fast(board_cells, "board_cells must be a sequence");
    if (!seq) return -1;
    t->area = (int)PySequence_Fast_GET_SIZE(seq);
    t->board_cells = malloc(sizeof(int) * (size_t)(t->area + 1));
    t->compact = malloc(sizeof(int) * (size_t)g->npad);
    t->rank = malloc(sizeof(int) * (size_t)g->npad);
    t->near_cnt = calloc((size_t)g->npad, sizeof(int));
    t->near_start = calloc((size_t)g->npad + 1, sizeof(int));
    t->near = malloc(sizeof(int) * (size_t)(t->area * 24 + 1));
    if (!t->board_cells || !t->compact || !t->rank || !t->near_cnt || !t->near_start || !t->near) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (int c2 = 0; c2 < g->npad; c2++) { t->compact[c2] = -1; t->rank[c2] = 1 << 30; }
    for (int i = 0; i < t->area; i++) {
        long c2 = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (c2 < 0 || c2 >= g->npad) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "board cell out of range");
            return -1;
        }
        t->board_cells[i] = (int)c2;
        t->compact[c2] = i;
    }
    Py_DECREF(seq);
    seq = PySequence_Fast(dirs, "directions must be a sequence");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 4) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "4 directions"); return -1; }
    for (int d = 0; d < 4; d++) t->dirs[d] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, d));
    Py_DECREF(seq);
    if (PyErr_Occurred()) return -1;
    /* Centre ranks and the distance-2 neighbourhoods, from the padded layout: the row
     * stride is dirs[1]; a padded cell is on the board when it is in board_cells. */
    int stride = t->dirs[1];
    int first = t->board_cells[0];
    int width = 0;
    while (width < t->area && t->board_cells[width] == first + width) width++;
    int height = width ? t->area / width : 0;
    double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
    {
        /* rank by (distance to the centre, move), as mcts.Tables orders cells */
        Cand *order = malloc(sizeof(Cand) * (size_t)(t->area + 1));
        if (!order) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < t->area; i++) {
            double dx = i % width - cx, dy = i / width - cy;
            order[i].cell = i;
            order[i].score = -(dx * dx + dy * dy);  /* cmp_cand sorts high scores first */
            order[i].rank = i;
        }
        qsort(order, (size_t)t->area, sizeof(Cand), cmp_cand);
        for (int r = 0; r < t->area; r++) t->rank[t->board_cells[order[r].cell]] = r;
        free(order);
    }
    int nn = 0;
    for (int c2 = 0; c2 < g->npad; c2++) {
        t->near_start[c2] = nn;
        if (t->compact[c2] < 0) continue;
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                if (!dx && !dy) continue;
                int x = c2 + dy * stride + dx;
                if (x >= 0 && x < g->npad && t->compact[x] >= 0) {
                    int mx = t->compact[x] % width, my = t->compact[x] / width;
                    int m0x = t->compact[c2] % width, m0y = t->compact[c2] / width;
                    if (abs(mx - m0x) <= 2 && abs(my - m0y) <= 2) t->near[nn++] = x;
                }
            }
    }
    t->near_start[g->npad] = nn;
    if (!(t->own = read_weights(own, g->k)) || !(t->opp = read_weights(opp, g->k)) ||
        !(t->attack = read_weights(attack, g->k)) || !(t->defence = read_weights(defence, g->k)))
        return -1;
    if (!s_alloc(&t->s, g)) { PyErr_NoMemory(); return -1; }
    t->cap_nodes = max_nodes;
    t->max_edge = (long)max_nodes * 24 + 4L * t->area;
    return 0;
}

/* set_root(cells, to_move): a fresh tree for the padded position `cells`. */
static PyObject *tree_set_root(TreeObject *t, PyObject *args) {
    PyObject *cells_obj;
    int to_move;
    if (!t->g) { PyErr_SetString(PyExc_RuntimeError, "Tree not initialised"); return NULL; }
    if (!PyArg_ParseTuple(args, "Oi", &cells_obj, &to_move)) return NULL;
    if (to_move != 1 && to_move != 2) { PyErr_SetString(PyExc_ValueError, "to_move must be 1 or 2"); return NULL; }
    const GeomObject *g = t->g;
    PyObject *seq = PySequence_Fast(cells_obj, "cells must be a sequence");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != g->npad) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "cells do not match the geometry");
        return NULL;
    }
    signed char *cells = malloc((size_t)g->npad);
    if (!cells) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (int c = 0; c < g->npad; c++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, c));
        if (v < 0 || v > 3 || (v == 3) != (t->compact[c] < 0)) {
            free(cells);
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cells do not match the board layout");
            return NULL;
        }
        cells[c] = (signed char)v;
    }
    Py_DECREF(seq);
    s_load(&t->s, cells);
    free(cells);
    memset(t->near_cnt, 0, sizeof(int) * (size_t)g->npad);
    memset(t->sum, 0, sizeof t->sum);
    t->stones = 0;
    for (int i = 0; i < t->area; i++) {
        int c = t->board_cells[i], v = t->s.cells[c];
        if (v != 1 && v != 2) continue;
        t->stones++;
        for (int j = t->near_start[c]; j < t->near_start[c + 1]; j++) t->near_cnt[t->near[j]]++;
    }
    for (int w = 0; w < g->nwin; w++) sum_window(t, t->s.cnt[1][w], t->s.cnt[2][w], 1.0);
    /* A new tree (the old nodes are dropped, their memory kept). */
    t->nnodes = 0;
    t->nedge = 0;
    t->iterations = 0;
    t->max_depth = 0;
    t->oom = 0;
    t->root_to_move = to_move;
    int r = new_node(t);
    if (r < 0) return PyErr_NoMemory();
    classify_new(t, &t->nodes[r], to_move);
    Py_RETURN_NONE;
}

static int tree_ready(TreeObject *t) {
    if (!t->g || t->nnodes == 0) { PyErr_SetString(PyExc_RuntimeError, "set_root first"); return 0; }
    return 1;
}

/* root_moves() -> list of compact moves, in the tree's order (lists them if needed). */
static PyObject *tree_root_moves(TreeObject *t, PyObject *unused) {
    if (!tree_ready(t)) return NULL;
    TNode *r = &t->nodes[0];
    if (r->nedges < 0 && !r->proven) expand(t, 0, t->root_to_move, 0);
    if (t->oom) return PyErr_NoMemory();
    r = &t->nodes[0];
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int i = 0; r->nedges > 0 && i < r->nedges; i++) {
        PyObject *m = PyLong_FromLong(t->compact[t->edge[r->edges + i].move]);
        if (!m || PyList_Append(out, m) < 0) { Py_XDECREF(m); Py_DECREF(out); return NULL; }
        Py_DECREF(m);
    }
    return out;
}

/* drop_root_moves(moves) -> number removed (never all of them, never from a proven root). */
static PyObject *tree_drop_root_moves(TreeObject *t, PyObject *arg) {
    if (!tree_ready(t)) return NULL;
    PyObject *seq = PySequence_Fast(arg, "moves must be a sequence");
    if (!seq) return NULL;
    TNode *r = &t->nodes[0];
    int removed = 0;
    if (!r->proven && r->nedges > 0) {
        char *drop = calloc((size_t)t->area, 1);
        if (!drop) { Py_DECREF(seq); return PyErr_NoMemory(); }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            if (m == -1 && PyErr_Occurred()) { free(drop); Py_DECREF(seq); return NULL; }
            if (m >= 0 && m < t->area) drop[m] = 1;
        }
        int keep = 0;
        for (int i = 0; i < r->nedges; i++) keep += !drop[t->compact[t->edge[r->edges + i].move]];
        if (keep > 0 && keep < r->nedges) {
            /* Tried moves are the first next_new edges: a stable in-place pass keeps them in
             * front, so that "untried moves are the tail" still holds. */
            Edge *e = t->edge + r->edges;
            int j = 0, tried = 0;
            for (int i = 0; i < r->nedges; i++) {
                if (drop[t->compact[e[i].move]]) continue;
                tried += i < r->next_new;
                e[j++] = e[i];
            }
            removed = r->nedges - keep;
            r->nedges = keep;
            r->next_new = tried;
            r->complete = 0;
        }
        free(drop);
    }
    Py_DECREF(seq);
    return PyLong_FromLong(removed);
}

/* run(seconds, iterations, max_nodes) -> reason: search until `seconds` have passed
 * (None: no time limit), `iterations` more iterations were made, or the root is
 * proven; the tree holds at most max_nodes nodes (then leaves are valued without
 * new nodes).  Reasons: "proven", "deadline", "nodes". */
static PyObject *tree_run(TreeObject *t, PyObject *args) {
    PyObject *seconds_obj;
    long long iterations;
    int max_nodes;
    if (!PyArg_ParseTuple(args, "OLi", &seconds_obj, &iterations, &max_nodes)) return NULL;
    if (!tree_ready(t)) return NULL;
    if (max_nodes < 1) { PyErr_SetString(PyExc_ValueError, "max_nodes must be >= 1"); return NULL; }
    t->cap_nodes = max_nodes;
    /* Listed moves: edge_cap a node at most, and 24 a node on average (most nodes are
     * leaves with none), about 0.5 KB a node in all, as the Python tree. */
    t->max_edge = (long)max_nodes * 24 + 4L * t->area;
    double seconds = -1;
    if (seconds_obj != Py_None) {
        seconds = PyFloat_AsDouble(seconds_obj);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
        if (seconds < 0) seconds = 0;
    }
    Step *path = malloc(sizeof(Step) * (size_t)(t->area + 1));
    if (!path) return PyErr_NoMemory();
    const char *reason = "nodes";
    Py_BEGIN_ALLOW_THREADS
    double deadline = seconds < 0 ? -1 : now_seconds() + seconds;
    for (long long it = 0;; it++) {
        if (t->nodes[0].proven) { reason = "proven"; break; }
        if (t->oom) break;
        if (it >= iterations) { reason = "nodes"; break; }
        if (deadline >= 0 && now_seconds() >= deadline) { reason = "deadline"; break; }
        iterate(t, path);
    }
    Py_END_ALLOW_THREADS
    free(path);
    if (t->oom) return PyErr_NoMemory();
    return PyUnicode_FromString(reason);
}

/* stats() -> list of (move, visits, value_sum, proven) of the root's tried or proven
 * moves; proven is the child's status for its own side to move (1 win, 2 loss, 3 draw). */
static PyObject *tree_stats(TreeObject *t, PyObject *unused) {
    if (!tree_ready(t)) return NULL;
    TNode *r = &t->nodes[0];
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int i = 0; r->nedges > 0 && i < r->nedges; i++) {
        Edge *e = &t->edge[r->edges + i];
        int proven = e->child >= 0 ? t->nodes[e->child].proven : 0;
        int plies = e->child >= 0 ? t->nodes[e->child].plies : 0;
        if (e->n == 0 && !proven) continue;
        PyObject *item = Py_BuildValue("(iidii)", t->compact[e->move], e->n, (double)e->w, proven, plies);
        if (!item || PyList_Append(out, item) < 0) { Py_XDECREF(item); Py_DECREF(out); return NULL; }
        Py_DECREF(item);
    }
    return out;
}

/* The child to follow for a principal variation: a move to a lost node (the fastest),
 * else the most visited move not proven to win for the opponent. */
static int pv_edge(TreeObject *t, const TNode *n) {
    int best = -1, best_n = -1, win = -1, win_plies = 1 << 30;
    for (int i = 0; i < n->nedges; i++) {
        const Edge *e = &t->edge[n->edges + i];
        int pr = e->child >= 0 ? t->nodes[e->child].proven : 0;
        if (pr == T_LOSS && t->nodes[e->child].plies < win_plies) { win = i; win_plies = t->nodes[e->child].plies; }
        if (pr != T_WIN && e->n > best_n) { best = i; best_n = e->n; }
    }
    return win >= 0 ? win : best;
}

/* pv(limit) -> compact moves down the tree. */
static PyObject *tree_pv(TreeObject *t, PyObject *args) {
    int limit;
    if (!PyArg_ParseTuple(args, "i", &limit)) return NULL;
    if (!tree_ready(t)) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    int ni = 0;
    while (ni >= 0 && PyList_GET_SIZE(out) < limit) {
        const TNode *n = &t->nodes[ni];
        if (n->nedges <= 0) break;
        int i = pv_edge(t, n);
        if (i < 0) break;
        const Edge *e = &t->edge[n->edges + i];
        if (e->n == 0 && !(e->child >= 0 && t->nodes[e->child].proven)) break;
        PyObject *m = PyLong_FromLong(t->compact[e->move]);
        if (!m || PyList_Append(out, m) < 0) { Py_XDECREF(m); Py_DECREF(out); return NULL; }
        Py_DECREF(m);
        ni = e->child;
    }
    return out;
}

/* root() -> (proven, plies, visits): the root's status for its side to move. */
static PyObject *tree_root(TreeObject *t, PyObject *unused) {
    if (!tree_ready(t)) return NULL;
    const TNode *r = &t->nodes[0];
    return Py_BuildValue("(iii)", r->proven, r->plies, r->visits);
}

/* counts() -> (iterations, nodes, max_depth) since set_root. */
static PyObject *tree_counts(TreeObject *t, PyObject *unused) {
    return Py_BuildValue("(Lii)", t->iterations, t->nnodes, t->max_depth);
}

/* value(to_move) -> the static evaluation of the current position (for tests). */
static PyObject *tree_value_py(TreeObject *t, PyObject *args) {
    int p;
    if (!PyArg_ParseTuple(args, "i", &p)) return NULL;
    if (!tree_ready(t)) return NULL;
    if (p != 1 && p != 2) { PyErr_SetString(PyExc_ValueError, "to_move must be 1 or 2"); return NULL; }
    return PyFloat_FromDouble(tree_value(t, p));
}

/* ------------------------------------------------------------------------ */
/* Tree reuse: the subtree of a later position becomes the new tree.        */

/* Keep only the subtree of node `root`, renumbered from 0 in breadth-first order
 * (every node has one parent, so each is copied once); returns 0 when out of memory. */
static int keep_subtree(TreeObject *t, int root) {
    int cap = t->nnodes;
    long ecap = t->nedge > 0 ? t->nedge : 1;
    TNode *nodes = malloc(sizeof(TNode) * (size_t)cap);
    Edge *edges = malloc(sizeof(Edge) * (size_t)ecap);
    int *queue = malloc(sizeof(int) * (size_t)cap);
    if (!nodes || !edges || !queue) { free(nodes); free(edges); free(queue); return 0; }
    int head = 0, tail = 0;
    long ne = 0;
    queue[tail++] = root;
    while (head < tail) {
        TNode n = t->nodes[queue[head]];
        if (n.nedges > 0) {
            memcpy(&edges[ne], &t->edge[n.edges], sizeof(Edge) * (size_t)n.nedges);
            n.edges = ne;
            for (int i = 0; i < n.nedges; i++) {
                Edge *e = &edges[ne + i];
                if (e->child >= 0) { queue[tail] = e->child; e->child = tail++; }
            }
            ne += n.nedges;
        }
        nodes[head++] = n;
    }
    free(queue);
    free(t->nodes);
    free(t->edge);
    t->nodes = nodes;
    t->alloc_nodes = cap;
    t->nnodes = tail;
    t->edge = edges;
    t->cap_edge = ecap;
    t->nedge = ne;
    return 1;
}

/* A root listed as an inner node holds only its best edge_cap candidates: append the
 * rest, by window score, so that the root offers every move a fresh tree would. */
static void list_all_root_moves(TreeObject *t) {
    TNode *r = &t->nodes[0];
    if (r->proven || r->nedges < 0 || !r->capped) return;
    int p = t->root_to_move;
    int *cells = malloc(sizeof(int) * (size_t)t->area);
    Cand *cand = malloc(sizeof(Cand) * (size_t)t->area);
    if (!cells || !cand) { free(cells); free(cand); t->oom = 1; return; }
    int m = candidate_cells(t, cells), extra = 0;
    double top = 0.0;
    for (int i = 0; i < m; i++) {
        double sc = cell_score(t, cells[i], p);
        if (sc > top) top = sc;
        int listed = 0;
        for (int e = 0; e < r->nedges && !listed; e++) listed = t->edge[r->edges + e].move == cells[i];
        if (listed) continue;
        cand[extra].cell = cells[i];
        cand[extra].score = sc;
        cand[extra].rank = t->rank[cells[i]];
        extra++;
    }
    qsort(cand, (size_t)extra, sizeof(Cand), cmp_cand);
    long at = alloc_edges(t, r->nedges + extra);
    r = &t->nodes[0];
    if (at >= 0) {
        memcpy(&t->edge[at], &t->edge[r->edges], sizeof(Edge) * (size_t)r->nedges);
        for (int i = 0; i < extra; i++)
            edge_init(&t->edge[at + r->nedges + i], cand[i].cell,
                      (float)(top > 0 ? t->bias * cand[i].score / top : 0.0));
        r->edges = at;
        r->nedges += extra;
        r->capped = 0;
        r->complete = r->nedges == t->area - t->stones;
    }
    free(cells);
    free(cand);
}

/* advance(moves) -> bool: when the compact `moves`, played from the root in turn, lead to
 * a node of the tree, that node's subtree becomes the tree and the position moves on;
 * otherwise nothing changes and the answer is False. */
static PyObject *tree_advance(TreeObject *t, PyObject *arg) {
    if (!tree_ready(t)) return NULL;
    PyObject *seq = PySequence_Fast(arg, "moves must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *cells = malloc(sizeof(int) * (size_t)(n + 1));
    if (!cells) { Py_DECREF(seq); return PyErr_NoMemory(); }
    int ni = 0, ok = 1;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) { free(cells); Py_DECREF(seq); return NULL; }
        ok = m >= 0 && m < t->area;
        if (!ok) break;
        cells[i] = t->board_cells[m];
        const TNode *node = &t->nodes[ni];
        int next = -1;
        for (int e = 0; e < node->nedges; e++)
            if (t->edge[node->edges + e].move == cells[i]) { next = t->edge[node->edges + e].child; break; }
        ok = next >= 0;
        ni = next;
    }
    Py_DECREF(seq);
    if (ok && ni != 0 && !keep_subtree(t, ni)) { free(cells); return PyErr_NoMemory(); }
    if (ok) {
        int p = t->root_to_move;
        for (Py_ssize_t i = 0; i < n; i++, p = 3 - p) tree_place(t, cells[i], p);
        t->root_to_move = p;
        t->iterations = 0;
        t->max_depth = 0;
        list_all_root_moves(t);
    }
    free(cells);
    if (t->oom) return PyErr_NoMemory();
    return PyBool_FromLong(ok);
}

static PyMethodDef tree_methods[] = {
    {"set_root", (PyCFunction)tree_set_root, METH_VARARGS, "set_root(cells, to_move): a new tree for this padded position."},
    {"advance", (PyCFunction)tree_advance, METH_O, "advance(moves) -> whether the tree moved on to the position after them."},
    {"root_moves", (PyCFunction)tree_root_moves, METH_NOARGS, "root_moves() -> the root's moves (compact), in order."},
    {"drop_root_moves", (PyCFunction)tree_drop_root_moves, METH_O, "drop_root_moves(moves) -> how many were removed."},
    {"run", (PyCFunction)tree_run, METH_VARARGS, "run(seconds, iterations, max_nodes) -> why the run stopped."},
    {"stats", (PyCFunction)tree_stats, METH_NOARGS, "stats() -> [(move, visits, value_sum, proven, plies)] of the root."},
    {"pv", (PyCFunction)tree_pv, METH_VARARGS, "pv(limit) -> principal variation (compact moves)."},
    {"root", (PyCFunction)tree_root, METH_NOARGS, "root() -> (proven, plies, visits)."},
    {"counts", (PyCFunction)tree_counts, METH_NOARGS, "counts() -> (iterations, nodes, max_depth)."},
    {"value", (PyCFunction)tree_value_py, METH_VARARGS, "value(to_move) -> static evaluation of the root position."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.mnk._threatcore.Tree",
    .tp_doc = "Tree(geometry, board_cells, directions, ...): guided MCTS in C (see engine/mnk/nativesearch.py).",
    .tp_basicsize = sizeof(TreeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tree_init,
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_methods = tree_methods,
};
