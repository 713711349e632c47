/* The guided tree's search (see _tree.h): node storage, expansion, one iteration,
 * proofs, and reuse of a subtree. */

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

/* The exact status of a new node with p to move (Searcher._new_node): the opponent's
 * completions are a loss when no move stops them (two, or under renju one that black may
 * not block). */
static void classify_new(TreeObject *t, TNode *n, int p) {
    IVec w = {0};
    completing(&t->s, p, &w);
    if (w.n) { n->proven = T_WIN; n->plies = 1; }
    else if (t->stones == t->area) n->proven = T_DRAW;
    else {
        completing(&t->s, 3 - p, &w);
        if (w.n && unstoppable(&t->s, 3 - p, &w)) { n->proven = T_LOSS; n->plies = 2; }
    }
    iv_free(&t->s, &w);
}

static void edge_init(Edge *e, int cell, float prior) {
    e->move = cell;
    e->child = -1;
    e->prior = prior;
    e->n = 0;
    e->w = 0.0f;
}

typedef struct { int cell; double score; int rank; } Cand;

/* The progressive bias of a move whose prior logit is `score`, the best move's `top`: the
 * bias times the move's prior probability relative to the best (the Python tree's
 * prior / top, with priors exp(logit)). */
static inline float prior_of(const TreeObject *t, double score, double top) {
    return (float)(t->bias * exp(score - top));
}

static int cmp_cand(const void *x, const void *y) {
    const Cand *a = x, *b = y;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->rank - b->rank;
}

/* Give node n the moves `cells` (count m), ordered by prior (best first);
 * at most `cap` of them (cap <= 0: all).  With `allowed`, black's forbidden points under
 * renju are passed over, tested in score order only until `cap` moves are found.
 * Returns the number of moves given; 0 leaves the node as it was. */
static int set_moves(TreeObject *t, TNode *n, const int *cells, int m, int p, int cap, int allowed) {
    Cand *cand = malloc(sizeof(Cand) * (size_t)(m > 0 ? m : 1));
    if (!cand) { t->oom = 1; return 0; }
    for (int i = 0; i < m; i++) {
        cand[i].cell = cells[i];
        cand[i].score = cell_score(t, cells[i], p);
        cand[i].rank = t->rank[cells[i]];
    }
    qsort(cand, (size_t)m, sizeof(Cand), cmp_cand);
    int want = cap > 0 && m > cap ? cap : m, keep = 0, seen = 0;
    for (; seen < m && keep < want; seen++) {
        if (allowed && s_forbidden(&t->s, cand[seen].cell, p)) continue;
        cand[keep++] = cand[seen];
    }
    long at = keep || !m ? alloc_edges(t, keep) : -1;
    if (at < 0) { free(cand); return 0; }
    double top = keep ? cand[0].score : 0.0;
    for (int i = 0; i < keep; i++) edge_init(&t->edge[at + i], cand[i].cell, prior_of(t, cand[i].score, top));
    n->edges = at;
    n->nedges = keep;
    n->next_new = 0;
    n->complete = keep == t->area - t->stones;
    n->capped = seen < m;
    free(cand);
    return keep;
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

/* Every empty cell. */
static int empty_cells(TreeObject *t, int *out) {
    int m = 0;
    for (int i = 0; i < t->area; i++)
        if (t->s.cells[t->board_cells[i]] == 0) out[m++] = t->board_cells[i];
    return m;
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
        iv_free(&t->s, &w);
        return;
    }
    iv_free(&t->s, &w);
    Line *line = NULL;
    if (t->vcf_nodes > 0) line = tree_solve(t, p, t->vcf_nodes, -1, SEARCH_DEPTH_FIRST, &aborted);
    if (!line && t->vct_nodes > 0 && t->vct_visits <= 0) {
        line = tree_solve(t, p, t->vct_nodes, t->vct_threes, SEARCH_DEEPENING, &aborted);
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
        set_moves(t, &t->nodes[ni], def.v, def.n, p, 0, 0);
        t->nodes[ni].complete = def.n == t->area - t->stones;
        iv_free(&t->s, &def);
        return;
    }
    iv_free(&t->s, &def);
    int *cells = malloc(sizeof(int) * (size_t)t->area);
    if (!cells) { t->oom = 1; return; }
    int m = candidate_cells(t, cells);
    if (!set_moves(t, &t->nodes[ni], cells, m, p, cap, 1) && m > 0 && !t->oom) {
        /* Every candidate is forbidden for black: every empty cell, then (black with no
         * legal move at all, too rare to need a rule) the forbidden points themselves. */
        m = empty_cells(t, cells);
        if (!set_moves(t, &t->nodes[ni], cells, m, p, cap, 1) && !t->oom)
            set_moves(t, &t->nodes[ni], cells, m, p, cap, 0);
    }
    free(cells);
}

/* Add every empty cell p may play not yet listed (before a node whose moves all lose is
 * proven lost; black's forbidden points stay out). */
static void widen(TreeObject *t, int ni, int p) {
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
        if (listed || s_forbidden(&t->s, c, p)) continue;
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
        double q = e->w / nv;
        /* The implicit minimax backup: a refutation deep below counts at once, not averaged in. */
        if (e->child >= 0 && e->n > 0) q += t->minimax * (1.0 - t->nodes[e->child].tau - q);
        double sc = q + t->c_eff * sqrt(lnv / nv) + e->prior / (e->n + 1.0);
        if (sc > best_score) { best_score = sc; best = i; }
    }
    if (best < 0 && n->next_new < n->nedges) return n->next_new++;
    return best;
}

/* After child edge i of node ni was proven (MCTS-Solver); the board holds ni's position,
 * p to move.  Returns 1 when ni became proven. */
static int prove(TreeObject *t, int ni, int i, int p) {
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
    if (!n->complete) { widen(t, ni, p); return 0; }
    n->proven = any_draw ? T_DRAW : T_LOSS;
    n->plies = (short)(any_draw ? 0 : longest + 1);
    return 1;
}

/* Implicit minimax backup: a node's tau is the best of its children's (1 - tau), a leaf's
 * its static value, a proven node's its exact value. */
static void update_tau(TreeObject *t, int ni) {
    TNode *n = &t->nodes[ni];
    if (n->proven) { n->tau = (float)exact_value(n->proven); return; }
    float best = -1.0f;
    for (int i = 0; i < n->next_new && i < n->nedges; i++) {
        int c = t->edge[n->edges + i].child;
        if (c < 0) continue;
        TNode *ch = &t->nodes[c];
        float v = 1.0f - (ch->proven ? (float)exact_value(ch->proven) : ch->tau);
        if (v > best) best = v;
    }
    if (best >= 0.0f) n->tau = best;
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
            /* The root and the opponent's replies to its moves list every move: a quiet reply
             * the priors rank low decides many lost games (docs/RESULTS.md). */
            expand(t, ni, p, depth <= 1 ? 0 : t->edge_cap);
            n = &t->nodes[ni];
            if (n->nedges < 0) { value = tree_value(t, p); break; }  /* out of memory */
            if (n->proven) { value = exact_value(n->proven); break; }
        } else if (!n->vct_done && t->vct_nodes > 0 && t->vct_visits > 0 && n->visits >= t->vct_visits && ni != 0) {
            /* The deferred VCT, once a node has proved worth it. */
            n->vct_done = 1;
            int first = tree_vct(t, p);
            n = &t->nodes[ni];
            if (first >= 0) {
                set_forced(t, n, first);
                n = &t->nodes[ni];
                n->proven = T_WIN;
                n->plies = 3;
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
            t->nodes[c].tau = (float)value;
            break;
        }
        ni = e->child;
    }
    if (depth > t->max_depth) t->max_depth = depth;
    int check = 1;
    for (int j = depth - 1; j >= 0; j--) {
        int mover = t->s.cells[path[j].move];
        tree_take(t, path[j].move);
        value = 1.0 - value;
        TNode *n = &t->nodes[path[j].node];
        Edge *e = &t->edge[n->edges + path[j].edge];
        e->n += 1;
        e->w += (float)value;
        n->visits += 1;
        if (check) {
            int c = e->child;
            check = c >= 0 && t->nodes[c].proven && prove(t, path[j].node, path[j].edge, mover);
        }
        if (t->minimax > 0) update_tau(t, path[j].node);
    }
    t->nodes[0].visits += depth == 0;
    t->iterations++;
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
 * rest, by prior, so that the root offers every move a fresh tree would. */
static void list_all_root_moves(TreeObject *t) {
    TNode *r = &t->nodes[0];
    if (r->proven || r->nedges < 0 || !r->capped) return;
    int p = t->root_to_move;
    int *cells = malloc(sizeof(int) * (size_t)t->area);
    Cand *cand = malloc(sizeof(Cand) * (size_t)t->area);
    if (!cells || !cand) { free(cells); free(cand); t->oom = 1; return; }
    int m = candidate_cells(t, cells), extra = 0;
    double top = -HUGE_VAL;
    for (int i = 0; i < m; i++) {
        if (s_forbidden(&t->s, cells[i], p)) continue;
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
            edge_init(&t->edge[at + r->nedges + i], cand[i].cell, prior_of(t, cand[i].score, top));
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
