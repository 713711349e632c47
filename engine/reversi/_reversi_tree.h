/*
 * The 8x8 Reversi search tree in C with pattern-evaluation leaves: the Python type
 * engine.reversi._reversicore.Tree behind engine/reversi/tree/native.py.
 *
 * It is the generic MCTS of engine/search/mcts.py, step for step, for the evaluator of
 * engine/reversi/evaluation/patternleaves.py and the oracle of engine/reversi/endgame/oracle.py: UCT with
 * the same lazily refreshed exploration term, untried moves first in the evaluator's order,
 * progressive widening, progressive bias and implicit minimax as the Python tree applies
 * them, MCTS-Solver proofs (finished games, the endgame solver's win/draw/loss verdicts
 * from tree_empties within tree_nodes solver nodes, proofs from the children).  Every
 * floating-point expression is written in the Python tree's order (a numpy refresh divides
 * by sqrt(n) where a selection multiplies by pow(n, -0.5)) so that, one leaf at a time,
 * both trees make the same choices (tests/engine/test_reversi_tree_pair.py).
 *
 * Included by _reversicore.c after the kernel, the evaluation and the solver; nothing in
 * run() touches a Python object, so it runs with the GIL released (a busy flag refuses
 * other calls meanwhile).
 */

/* The value for P of a `depth`-ply search on the evaluation (0: the evaluation), in
 * 1/EV_SCALE discs: the kernel's alpha-beta, as eval_leaves gives it. */
static int rt_search(const EvalW *ev, uint64_t P, uint64_t O, int depth) {
    int best = -1;
    uint64_t nodes = 0;
    if (depth == 0) return EV_CALL(eval, ev, P, O);
    return ev_search(ev, P, O, depth, &best, &nodes);
}

#define RT_UNKNOWN 0 /* outcomes for a node's side to move: engine.game.Outcome's values */
#define RT_WIN 1
#define RT_LOSS 2
#define RT_DRAW 3
#define RT_EXCLUDED (-1e9) /* selection score of a proven move: never selected again */
#define RT_PASS 64
#define RT_MAXPATH 256      /* a game has at most 60 moves and 60 passes */
#define RT_CACHE_BITS 16    /* verdicts kept (a position met again costs a lookup) */
#define RT_EDGE_RESERVE 130 /* edges one iteration may add: one listing, one verdict move */

static const double RT_SCORE[4] = {0.0, 1.0, 0.0, 0.5};

typedef struct {
    double n, w, score, prior; /* playouts, their summed score for the node's mover, UCT score, bias */
    int32_t child;             /* node index, -1: none yet */
    uint8_t move;              /* square 0..63, RT_PASS */
    uint8_t excluded;          /* proven: never selected again */
} RtEdge;

typedef struct {
    int32_t first;   /* first edge, -1: moves not listed yet */
    int16_t nmoves, next_new;
    int8_t outcome, win_first, has_prior;
    int16_t plies;   /* once proven WIN/LOSS: plies to the end with best play */
    double total, cref, tref, tau;
} RtNode;

typedef struct {
    uint64_t P, O;
    int8_t state; /* 0 empty, 1 solved or given up */
    int8_t outcome;
    uint8_t move;
} RtCached;

typedef struct {
    PyObject_HEAD
    PyObject *leaf_cap, *order_cap;
    const EvalW *leaf_ev, *order_ev;
    int depth;                   /* plies searched on the evaluation per leaf */
    double leaf_k, prior_t, R;   /* logistic slope, prior temperature, playouts per leaf */
    double c, widen, bias, mix;  /* TreeSettings */
    int solver, tree_empties, ev_min;
    unsigned long long tree_nodes;
    RtNode *nodes;
    long nnodes, alloc_nodes;
    RtEdge *edges;
    long nedges, alloc_edges;
    uint64_t rootP, rootO;
    int ready, busy, oom;
    long long playouts, created, counted;
    int max_depth;
    long long solves, solved, solver_nodes;
    RtCached *cache;
} RtTree;

static PyTypeObject RtTreeType;

/* ------------------------------------------------------------------------ */
/* Storage.                                                                  */

static int rt_reserve(RtTree *t, long nodes, long edges) {
    if (t->nnodes + nodes > t->alloc_nodes) {
        long want = t->alloc_nodes ? t->alloc_nodes : 1024;
        while (want < t->nnodes + nodes) want *= 2;
        RtNode *p = realloc(t->nodes, sizeof(RtNode) * (size_t)want);
        if (!p) return 0;
        t->nodes = p;
        t->alloc_nodes = want;
    }
    if (t->nedges + edges > t->alloc_edges) {
        long want = t->alloc_edges ? t->alloc_edges : 8192;
        while (want < t->nedges + edges) want *= 2;
        RtEdge *p = realloc(t->edges, sizeof(RtEdge) * (size_t)want);
        if (!p) return 0;
        t->edges = p;
        t->alloc_edges = want;
    }
    return 1;
}

static int32_t rt_new_node(RtTree *t) {
    RtNode *nd = &t->nodes[t->nnodes];
    memset(nd, 0, sizeof *nd);
    nd->first = -1;
    nd->tau = -1.0;
    return (int32_t)t->nnodes++;
}

/* List `k` moves at node `ni` with no statistics (the caller fills in the moves). */
static RtEdge *rt_set_moves(RtTree *t, int32_t ni, int k) {
    RtNode *nd = &t->nodes[ni];
    nd->first = (int32_t)t->nedges;
    nd->nmoves = (int16_t)k;
    nd->next_new = 0;
    nd->cref = nd->tref = 0.0;
    nd->has_prior = 0;
    RtEdge *e = &t->edges[t->nedges];
    memset(e, 0, sizeof(RtEdge) * (size_t)k);
    for (int i = 0; i < k; i++) e[i].child = -1;
    t->nedges += k;
    return e;
}

static void rt_clear(RtTree *t) {
    t->nnodes = 0;
    t->nedges = 0;
    t->ready = 0;
}

/* ------------------------------------------------------------------------ */
/* The board, the evaluation and the oracle.                                 */

static inline uint64_t rt_moves(uint64_t P, uint64_t O) {
    return k64_moves(P, O, ~0ULL);
}

/* Play `move` for P: the next position, its side to move first. */
static inline void rt_play(uint64_t *P, uint64_t *O, int move) {
    uint64_t p = *P, o = *O;
    if (move == RT_PASS) {
        *P = o;
        *O = p;
        return;
    }
    uint64_t x = 1ULL << move, f = k64_flips(p, o, x);
    *P = o ^ f;
    *O = p | f | x;
}

static inline int rt_final_outcome(uint64_t P, uint64_t O) {
    int d = __builtin_popcountll(P) - __builtin_popcountll(O);
    return d > 0 ? RT_WIN : d < 0 ? RT_LOSS : RT_DRAW;
}

/* The leaf value for P (patternleaves.PatternLeaves.values). */
static double rt_leaf_value(RtTree *t, uint64_t P, uint64_t O) {
    int d = rt_search(t->leaf_ev, P, O, t->depth);
    double x = d * t->leaf_k;
    return x > -700 ? 1.0 / (1.0 + exp(-x)) : 0.0;
}

/* A win/draw/loss solve as solver.solve_position(exact=False) makes it: the same table
 * size, window and move ordering, so the same verdict and the same move. */
static void rt_solve(RtTree *t, uint64_t P, uint64_t O, int *outcome, int *move) {
    int empties = 64 - __builtin_popcountll(P | O);
    int tt_bits = empties >= 16 ? 20 : empties >= 14 ? 16 : 0;
    void *tt = NULL;
    if (tt_bits > 0) {
        tt = calloc((size_t)1 << tt_bits, sizeof(k64_tt_entry));
        if (!tt) tt_bits = 0; /* out of memory: solve without the table (the same value, more work) */
    }
    uint64_t quad[4] = {0, 0, 0, 0};
    for (int r = 0; r < 8; r++)
        for (int col = 0; col < 8; col++) quad[(r >= 4) * 2 + (col >= 4)] |= 1ULL << (r * 8 + col);
    uint64_t corners = 1ULL | (1ULL << 7) | (1ULL << 56) | (1ULL << 63);
    int value, best = -1, aborted;
    uint64_t nodes;
#define RT_SOLVE(PFX)                                                      \
    {                                                                      \
        PFX##_ctx c;                                                       \
        memset(&c, 0, sizeof c);                                           \
        c.valid = ~0ULL;                                                   \
        c.area = 64;                                                       \
        c.shallow = 6;                                                     \
        c.max_nodes = t->tree_nodes ? t->tree_nodes : UINT64_MAX;          \
        c.deadline = 0.0;                                                  \
        c.tt_min = 7;                                                      \
        c.ev = t->order_ev;                                                \
        c.ev_min = t->ev_min;                                              \
        memcpy(c.quad, quad, sizeof quad);                                 \
        c.corners = corners;                                               \
        c.tt = tt;                                                         \
        c.tt_mask = tt ? ((uint64_t)1 << tt_bits) - 1 : 0;                 \
        value = PFX##_root(&c, P, O, -1, 1, &best);                        \
        nodes = c.nodes;                                                   \
        aborted = c.aborted;                                               \
    }
#ifdef HAVE_POPCNT_BUILD
    if (use_popcnt) RT_SOLVE(k64p) else
#endif
    RT_SOLVE(k64)
#undef RT_SOLVE
    free(tt);
    t->solves++;
    t->solver_nodes += (long long)nodes;
    if (aborted || best == -1) {
        *outcome = RT_UNKNOWN;
        *move = -1;
        return;
    }
    t->solved++;
    *outcome = value > 0 ? RT_WIN : value < 0 ? RT_LOSS : RT_DRAW;
    *move = best == -2 ? RT_PASS : best;
}

/* A new node for the position P to move (ReversiOracle.verdict, or the end of the game
 * when there is no oracle); the caller has reserved its room. */
static int32_t rt_child(RtTree *t, uint64_t P, uint64_t O) {
    int32_t ni = rt_new_node(t);
    int over = !rt_moves(P, O) && !rt_moves(O, P);
    if (over) {
        t->nodes[ni].outcome = (int8_t)rt_final_outcome(P, O);
        return ni;
    }
    if (!t->solver) return ni;
    int empties = 64 - __builtin_popcountll(P | O);
    if (empties > t->tree_empties) return ni;
    uint64_t h = (P ^ (O * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL; /* every bit of both boards */
    h ^= h >> 31;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 29;
    RtCached *ce = &t->cache[h & (((uint64_t)1 << RT_CACHE_BITS) - 1)];
    int outcome, move;
    if (ce->state && ce->P == P && ce->O == O) {
        outcome = ce->outcome;
        move = outcome ? ce->move : -1;
    } else {
        rt_solve(t, P, O, &outcome, &move);
        ce->P = P;
        ce->O = O;
        ce->state = 1;
        ce->outcome = (int8_t)outcome;
        ce->move = (uint8_t)(move < 0 ? 0 : move);
    }
    if (outcome) {
        RtNode *nd = &t->nodes[ni];
        nd->outcome = (int8_t)outcome;
        nd->plies = (int16_t)empties;
        if (move >= 0) {
            RtEdge *e = rt_set_moves(t, ni, 1);
            e[0].move = (uint8_t)move;
            t->nodes[ni].win_first = outcome == RT_WIN;
        }
    }
    return ni;
}

/* List the moves of the unproven node `ni` (position P to move): best one-ply value
 * first, ties in square order, with softmax priors (PatternLeaves.expand). */
static void rt_expand(RtTree *t, int32_t ni, uint64_t P, uint64_t O) {
    uint64_t m = k64_moves(P, O, ~0ULL);
    int sqs[64], vals[64], n = 0;
    while (m) {
        int sq = __builtin_ctzll(m);
        m &= m - 1;
        uint64_t x = 1ULL << sq, f = k64_flips(P, O, x);
        int v = -rt_search(t->leaf_ev, O ^ f, P | f | x, 0);
        int i = n++;
        while (i > 0 && vals[i - 1] < v) { /* stable: equal values keep square order */
            vals[i] = vals[i - 1];
            sqs[i] = sqs[i - 1];
            i--;
        }
        vals[i] = v;
        sqs[i] = sq;
    }
    double pri[64];
    if (n == 0) { /* a pass is the only move */
        sqs[0] = RT_PASS;
        pri[0] = 1.0;
        n = 1;
    } else {
        int top = vals[0];
        for (int i = 0; i < n; i++) pri[i] = exp((double)(vals[i] - top) * t->prior_t);
    }
    RtEdge *e = rt_set_moves(t, ni, n);
    for (int i = 0; i < n; i++) e[i].move = (uint8_t)sqs[i];
    if (t->bias > 0) {
        double top = pri[0];
        for (int i = 1; i < n; i++)
            if (pri[i] > top) top = pri[i];
        if (top > 0) {
            for (int i = 0; i < n; i++) {
                double p = pri[i] / top;
                p = p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
                e[i].prior = p * t->bias;
            }
            t->nodes[ni].has_prior = 1;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The search: mcts.MCTS._select, _backprop, _prove, _refresh.                */

static inline double rt_tau(const RtTree *t, int32_t ci) {
    if (ci < 0) return -1.0;
    const RtNode *c = &t->nodes[ci];
    return c->outcome ? RT_SCORE[c->outcome] : c->tau;
}

static inline double rt_mixed(const RtTree *t, int32_t ci, double q) {
    double tv = rt_tau(t, ci);
    return tv < 0 ? q : q + t->mix * (1.0 - tv - q);
}

static void rt_refresh(RtTree *t, RtNode *nd, int upto) {
    RtEdge *e = &t->edges[nd->first];
    double cref = t->c * sqrt(log(nd->total));
    for (int k = 0; k < upto; k++) {
        double s = e[k].w / e[k].n;
        if (t->mix) s = rt_mixed(t, e[k].child, s);
        s += cref / sqrt(e[k].n);
        if (nd->has_prior) s += e[k].prior * t->R / (e[k].n + t->R);
        if (e[k].excluded) s = RT_EXCLUDED;
        e[k].score = s;
    }
    nd->cref = cref;
    nd->tref = nd->total * 1.1;
}

static inline int rt_argmax(const RtEdge *e, int k) {
    int best = 0;
    for (int i = 1; i < k; i++)
        if (e[i].score > e[best].score) best = i;
    return best;
}

typedef struct {
    int32_t node;
    int16_t edge;
} RtStep;

/* Node `path[j].node` after its child may have been proven; 1 when it became proven. */
static int rt_prove(RtTree *t, RtStep *path, int j) {
    RtNode *nd = &t->nodes[path[j].node];
    RtEdge *e = &t->edges[nd->first];
    int32_t ci = e[path[j].edge].child;
    if (ci < 0 || !t->nodes[ci].outcome) return 0;
    RtNode *ch = &t->nodes[ci];
    if (ch->outcome == RT_LOSS) {
        int plies = ch->plies + 1;
        if (nd->outcome != RT_WIN || plies < nd->plies) {
            nd->outcome = RT_WIN;
            nd->plies = (int16_t)plies;
        }
        return 1;
    }
    e[path[j].edge].score = RT_EXCLUDED;
    e[path[j].edge].excluded = 1;
    if (nd->next_new < nd->nmoves) return 0;
    int any_draw = 0, longest = 0;
    for (int k = 0; k < nd->nmoves; k++) {
        int32_t c = e[k].child;
        if (c < 0 || !t->nodes[c].outcome) return 0;
        if (t->nodes[c].outcome == RT_DRAW) any_draw = 1;
        else if (t->nodes[c].plies > longest) longest = t->nodes[c].plies;
    }
    /* every listed move is every legal move here (the evaluator lists them all) */
    nd->outcome = any_draw ? RT_DRAW : RT_LOSS;
    nd->plies = (int16_t)(any_draw ? 0 : longest + 1);
    return 1;
}

static void rt_back_up_tau(RtTree *t, RtNode *nd) {
    RtEdge *e = &t->edges[nd->first];
    double best = -1.0;
    for (int k = 0; k < nd->next_new; k++) {
        double tv = rt_tau(t, e[k].child);
        if (tv >= 0 && 1.0 - tv > best) best = 1.0 - tv;
    }
    if (best >= 0) nd->tau = best;
}

static void rt_backprop(RtTree *t, RtStep *path, int depth, double value, int proven) {
    double R = t->R, v = value;
    int check = proven;
    if (t->mix && depth) {
        int32_t ci = t->edges[t->nodes[path[depth - 1].node].first + path[depth - 1].edge].child;
        if (ci >= 0 && t->nodes[ci].tau < 0) t->nodes[ci].tau = value / R;
    }
    for (int j = depth - 1; j >= 0; j--) {
        RtNode *nd = &t->nodes[path[j].node];
        RtEdge *e = &t->edges[nd->first + path[j].edge];
        v = R - v;
        double w = e->w + v;
        e->w = w;
        int32_t ci = e->child;
        if (ci < 0 || !t->nodes[ci].outcome) {
            double n_i = e->n, q = w / n_i;
            if (t->mix) q = rt_mixed(t, ci, q);
            e->score = q + nd->cref * pow(n_i, -0.5);
            if (nd->has_prior) e->score += e->prior * R / (n_i + R);
        }
        if (check) check = rt_prove(t, path, j);
        if (t->mix) rt_back_up_tau(t, nd);
    }
}

/* One selection, leaf value and backpropagation; 0 when out of memory (nothing changed). */
static int rt_iterate(RtTree *t, long cap, RtStep *path) {
    if (!rt_reserve(t, 2, RT_EDGE_RESERVE)) return 0;
    double R = t->R, inv_sqrt_r = pow(R, -0.5), inv_r = 1.0 / R;
    uint64_t P = t->rootP, O = t->rootO;
    int32_t ni = 0, leaf = 0;
    int depth = 0, created = 0;
    for (;;) {
        RtNode *nd = &t->nodes[ni];
        if (nd->outcome) break;
        if (nd->first < 0) rt_expand(t, ni, P, O);
        RtEdge *e = &t->edges[nd->first];
        int i = nd->next_new, k = nd->nmoves;
        int untried = i < k;
        if (untried && t->widen && i && i >= t->widen * sqrt(nd->total * inv_r)) {
            /* progressive widening: the next untried move waits unless every tried one is proven */
            if (nd->total > nd->tref) rt_refresh(t, nd, i);
            int j = rt_argmax(e, i);
            if (e[j].score > RT_EXCLUDED / 2) {
                i = j;
                untried = 0;
            }
        } else if (!untried) {
            if (nd->total > nd->tref) rt_refresh(t, nd, i);
            i = rt_argmax(e, k);
        }
        if (untried) {
            nd->next_new = (int16_t)(i + 1);
            e[i].n = R;
            e[i].score = nd->cref * inv_sqrt_r;
            if (nd->has_prior) e[i].score += 0.5 * e[i].prior;
        } else {
            double n_i = e[i].n + R;
            e[i].n = n_i;
            double q = e[i].w / n_i; /* virtual loss until the backpropagation */
            if (t->mix) q = rt_mixed(t, e[i].child, q);
            e[i].score = q + nd->cref * pow(n_i, -0.5);
            if (nd->has_prior) e[i].score += e[i].prior * R / (n_i + R);
        }
        nd->total += R;
        path[depth].node = ni;
        path[depth].edge = (int16_t)i;
        depth++;
        rt_play(&P, &O, e[i].move);
        int32_t ci = e[i].child;
        if (ci < 0) {
            if (t->nnodes >= cap) {
                leaf = -1; /* at the memory cap: value the position without a node */
                break;
            }
            ci = rt_child(t, P, O);
            t->edges[t->nodes[ni].first + i].child = ci;
            created = 1;
            leaf = ci;
            break;
        }
        ni = ci;
        leaf = ni;
        if (depth >= RT_MAXPATH - 1) break; /* cannot happen: a game is shorter */
    }
    double value;
    int proven = leaf >= 0 && t->nodes[leaf].outcome;
    if (proven) {
        value = RT_SCORE[t->nodes[leaf].outcome] * R;
    } else {
        value = R * rt_leaf_value(t, P, O);
        t->playouts += (long long)R;
    }
    t->created += created;
    t->counted += created || !proven;
    if (depth > t->max_depth) t->max_depth = depth;
    rt_backprop(t, path, depth, value, proven);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Reuse: the subtree of the new root copied into fresh arrays.             */

static int rt_keep_subtree(RtTree *t, int32_t keep) {
    if (keep == 0) return 1;
    RtNode *nodes = malloc(sizeof(RtNode) * (size_t)(t->alloc_nodes));
    RtEdge *edges = malloc(sizeof(RtEdge) * (size_t)(t->alloc_edges));
    int32_t *from = malloc(sizeof(int32_t) * (size_t)(t->alloc_nodes));
    if (!nodes || !edges || !from) {
        free(nodes); free(edges); free(from);
        return 0;
    }
    long nn = 1, ne = 0;
    nodes[0] = t->nodes[keep];
    from[0] = keep;
    for (long q = 0; q < nn; q++) { /* breadth first: the copies are the queue */
        RtNode *nd = &nodes[q];
        if (nd->first < 0) continue;
        RtEdge *src = &t->edges[nd->first];
        nd->first = (int32_t)ne;
        memcpy(&edges[ne], src, sizeof(RtEdge) * (size_t)nd->nmoves);
        for (int k = 0; k < nd->nmoves; k++) {
            int32_t c = edges[ne + k].child;
            if (c < 0) continue;
            nodes[nn] = t->nodes[c];
            from[nn] = c;
            edges[ne + k].child = (int32_t)nn++;
        }
        ne += nd->nmoves;
    }
    free(from);
    free(t->nodes);
    free(t->edges);
    t->nodes = nodes;
    t->edges = edges;
    t->nnodes = nn;
    t->nedges = ne;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The Python type.                                                          */

static void rt_dealloc(RtTree *t) {
    free(t->nodes);
    free(t->edges);
    free(t->cache);
    Py_XDECREF(t->leaf_cap);
    Py_XDECREF(t->order_cap);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int rt_init(RtTree *t, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"leaf_ev", "order_ev", "depth", "leaf_k", "prior_t", "weight", "exploration",
                             "widening", "prior_bias", "minimax", "solver", "tree_empties", "tree_nodes",
                             "ev_min", NULL};
    PyObject *leaf_cap, *order_cap;
    int depth, solver, tree_empties, ev_min;
    unsigned long long tree_nodes;
    double leaf_k, prior_t, R, c, widen, bias, mix;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOidddddddpiKi", kwlist, &leaf_cap, &order_cap, &depth, &leaf_k,
                                     &prior_t, &R, &c, &widen, &bias, &mix, &solver, &tree_empties, &tree_nodes,
                                     &ev_min))
        return -1;
    if (t->leaf_cap) {
        PyErr_SetString(PyExc_RuntimeError, "Tree is initialised once");
        return -1;
    }
    const EvalW *leaf_ev = get_eval(leaf_cap);
    if (!leaf_ev) return -1;
    const EvalW *order_ev = NULL;
    if (order_cap != Py_None && !(order_ev = get_eval(order_cap))) return -1;
    if (depth < 0 || depth > 8) {
        PyErr_SetString(PyExc_ValueError, "depth must be 0..8");
        return -1;
    }
    if (!(R >= 1) || !(c >= 0) || !(widen >= 0) || !(bias >= 0) || !(mix >= 0 && mix <= 1) || !(leaf_k > 0) ||
        !(prior_t > 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "weight must be >= 1, exploration, widening and prior_bias >= 0, minimax in [0, 1], "
                        "leaf_k and prior_t > 0");
        return -1;
    }
    if (tree_empties < 0 || tree_empties > 64) {
        PyErr_SetString(PyExc_ValueError, "tree_empties must be 0..64");
        return -1;
    }
    t->cache = calloc((size_t)1 << RT_CACHE_BITS, sizeof(RtCached));
    if (!t->cache) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(leaf_cap);
    t->leaf_cap = leaf_cap;
    Py_INCREF(order_cap);
    t->order_cap = order_cap;
    t->leaf_ev = leaf_ev;
    t->order_ev = order_ev;
    t->depth = depth;
    t->leaf_k = leaf_k;
    t->prior_t = prior_t;
    t->R = R;
    t->c = c;
    t->widen = widen;
    t->bias = bias;
    t->mix = mix;
    t->solver = solver;
    t->tree_empties = tree_empties;
    t->tree_nodes = tree_nodes;
    t->ev_min = ev_min;
    return 0;
}

static int rt_usable(RtTree *t, int need_root) {
    if (!t->leaf_cap) {
        PyErr_SetString(PyExc_RuntimeError, "Tree was not initialised");
        return 0;
    }
    if (t->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the tree is searching");
        return 0;
    }
    if (need_root && !t->ready) {
        PyErr_SetString(PyExc_RuntimeError, "no root position: call set_root first");
        return 0;
    }
    return 1;
}

/* Read (black, white, to_move) as P, O for the side to move; 0 with an exception. */
static int rt_read_position(PyObject *black, PyObject *white, int to_move, uint64_t *P, uint64_t *O) {
    uint64_t b, w;
    if (to_move != 1 && to_move != 2) {
        PyErr_SetString(PyExc_ValueError, "to_move must be 1 (black) or 2 (white)");
        return 0;
    }
    if (!PyLong_Check(black) || !PyLong_Check(white)) {
        PyErr_SetString(PyExc_TypeError, "a bitboard must be an int");
        return 0;
    }
    if (read64(black, &b) < 0 || read64(white, &w) < 0) return 0;
    if (b & w) {
        PyErr_SetString(PyExc_ValueError, "black and white discs on the same square");
        return 0;
    }
    *P = to_move == 1 ? b : w;
    *O = to_move == 1 ? w : b;
    return 1;
}

/* The root's moves listed when it has none yet (MCTS.set_root). */
static int rt_list_root(RtTree *t) {
    RtNode *r = &t->nodes[0];
    if (r->first >= 0 || r->outcome) return 1;
    if (!rt_reserve(t, 0, RT_EDGE_RESERVE)) return 0;
    rt_expand(t, 0, t->rootP, t->rootO);
    return 1;
}

static void rt_reset_counts(RtTree *t) {
    t->playouts = t->created = t->counted = 0;
    t->max_depth = 0;
}

/* set_root(black, white, to_move, outcome, plies, moves): a new tree; the root's verdict
 * (the oracle's, from Python) is given: outcome 0 unknown, moves its listed moves or None. */
static PyObject *rt_set_root(RtTree *t, PyObject *args) {
    PyObject *black, *white, *moves;
    int to_move, outcome, plies;
    if (!PyArg_ParseTuple(args, "OOiiiO", &black, &white, &to_move, &outcome, &plies, &moves)) return NULL;
    if (!rt_usable(t, 0)) return NULL;
    uint64_t P, O;
    if (!rt_read_position(black, white, to_move, &P, &O)) return NULL;
    if (outcome < 0 || outcome > 3 || plies < 0 || plies > 200) {
        PyErr_SetString(PyExc_ValueError, "outcome must be 0..3 and plies 0..200");
        return NULL;
    }
    if (!rt_moves(P, O) && !rt_moves(O, P)) {
        PyErr_SetString(PyExc_ValueError, "the game is over: no move to search");
        return NULL;
    }
    int listed[65], k = 0;
    if (moves != Py_None) {
        PyObject *seq = PySequence_Fast(moves, "moves must be a sequence or None");
        if (!seq) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int ok = n <= 65;
        uint64_t legal = rt_moves(P, O);
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            ok = (m == RT_PASS && !legal) || (m >= 0 && m < 64 && ((legal >> m) & 1));
            listed[k++] = (int)m;
        }
        Py_DECREF(seq);
        if (!ok) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the verdict's moves must be legal moves");
            return NULL;
        }
    }
    rt_clear(t);
    if (!rt_reserve(t, 2, RT_EDGE_RESERVE + 65)) return PyErr_NoMemory();
    rt_new_node(t);
    t->rootP = P;
    t->rootO = O;
    RtNode *r = &t->nodes[0];
    if (outcome) {
        r->outcome = (int8_t)outcome;
        r->plies = (int16_t)plies;
    }
    if (k) { /* the oracle's moves: nothing else need be tried (kept for the PV when proven) */
        RtEdge *e = rt_set_moves(t, 0, k);
        for (int i = 0; i < k; i++) e[i].move = (uint8_t)listed[i];
        t->nodes[0].win_first = outcome == RT_WIN;
    }
    if (!rt_list_root(t)) return PyErr_NoMemory();
    rt_reset_counts(t);
    t->ready = 1;
    Py_RETURN_NONE;
}

/* advance(moves, black, white, to_move) -> whether the tree moved on to the position after
 * `moves` from the root (every one in the tree), keeping that subtree. */
static PyObject *rt_advance(RtTree *t, PyObject *args) {
    PyObject *moves, *black, *white;
    int to_move;
    if (!PyArg_ParseTuple(args, "OOOi", &moves, &black, &white, &to_move)) return NULL;
    if (!rt_usable(t, 1)) return NULL;
    uint64_t P, O;
    if (!rt_read_position(black, white, to_move, &P, &O)) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int32_t ni = 0;
    uint64_t p = t->rootP, o = t->rootO;
    int found = 1;
    for (Py_ssize_t i = 0; found && i < n; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        RtNode *nd = &t->nodes[ni];
        int k = -1;
        for (int j = 0; nd->first >= 0 && j < nd->nmoves; j++)
            if (t->edges[nd->first + j].move == m) k = j;
        if (k < 0 || t->edges[nd->first + k].child < 0) {
            found = 0;
            break;
        }
        rt_play(&p, &o, (int)m);
        ni = t->edges[nd->first + k].child;
    }
    Py_DECREF(seq);
    if (!found || p != P || o != O) Py_RETURN_FALSE;
    if (!rt_keep_subtree(t, ni)) return PyErr_NoMemory();
    t->rootP = P;
    t->rootO = O;
    if (!rt_list_root(t)) return PyErr_NoMemory();
    rt_reset_counts(t);
    Py_RETURN_TRUE;
}

/* begin(): the search counters (playouts, nodes, counted, depth) back to 0. */
static PyObject *rt_begin(RtTree *t, PyObject *unused) {
    if (!rt_usable(t, 1)) return NULL;
    rt_reset_counts(t);
    Py_RETURN_NONE;
}

/* leaf(p, o) -> the tree's value of a leaf with p to move against o (8x8 bitboards), in
 * 1/128 discs: the evaluation searched `depth` plies, as eval_leaves gives it. */
static PyObject *rt_leaf(RtTree *t, PyObject *args) {
    PyObject *po, *oo;
    uint64_t P, O;
    if (!PyArg_ParseTuple(args, "OO", &po, &oo)) return NULL;
    if (!rt_usable(t, 0)) return NULL;
    if (read64(po, &P) < 0 || read64(oo, &O) < 0) return NULL;
    if (P & O) {
        PyErr_SetString(PyExc_ValueError, "black and white discs on the same square");
        return NULL;
    }
    return PyLong_FromLong(rt_search(t->leaf_ev, P, O, t->depth));
}

static PyObject *rt_reset(RtTree *t, PyObject *unused) {
    if (!rt_usable(t, 0)) return NULL;
    rt_clear(t);
    Py_RETURN_NONE;
}

/* run(seconds, nodes, playouts, max_nodes) -> why it stopped: "proven", "nodes" (counted
 * iterations reached `nodes`), "playouts", "time" (`seconds` passed; None: no limit), with
 * the tree held to max_nodes nodes.  nodes or playouts < 0: no limit. */
static PyObject *rt_run(RtTree *t, PyObject *args) {
    PyObject *seconds_obj;
    long long nodes_limit, playouts_limit, cap;
    if (!PyArg_ParseTuple(args, "OLLL", &seconds_obj, &nodes_limit, &playouts_limit, &cap)) return NULL;
    if (!rt_usable(t, 1)) return NULL;
    if (cap < 1) {
        PyErr_SetString(PyExc_ValueError, "max_nodes must be >= 1");
        return NULL;
    }
    double seconds = -1;
    if (seconds_obj != Py_None) {
        seconds = PyFloat_AsDouble(seconds_obj);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
        if (!(seconds >= 0)) seconds = 0;
    }
    RtStep path[RT_MAXPATH];
    const char *reason;
    t->busy = 1;
    t->oom = 0;
    Py_BEGIN_ALLOW_THREADS
    double end = seconds < 0 ? -1 : monotonic_now() + seconds;
    for (;;) {
        if (t->nodes[0].outcome) { reason = "proven"; break; }
        if (nodes_limit >= 0 && t->counted >= nodes_limit) { reason = "nodes"; break; }
        if (playouts_limit >= 0 && t->playouts >= playouts_limit) { reason = "playouts"; break; }
        if (end >= 0 && monotonic_now() >= end) { reason = "time"; break; }
        if (!rt_iterate(t, (long)cap, path)) { t->oom = 1; reason = "memory"; break; }
    }
    Py_END_ALLOW_THREADS
    t->busy = 0;
    if (t->oom) return PyErr_NoMemory();
    return PyUnicode_FromString(reason);
}

/* node(moves) -> None when the node after `moves` from the root is not in the tree, else
 * (outcome, plies, win_first, [(move, n, w, child outcome, child plies)]) with the child's
 * outcome for its own side to move (0: unknown or no child); [] when not listed yet. */
static PyObject *rt_node(RtTree *t, PyObject *moves) {
    if (!rt_usable(t, 1)) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int32_t ni = 0;
    for (Py_ssize_t i = 0; i < n && ni >= 0; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        RtNode *nd = &t->nodes[ni];
        int32_t next = -1;
        for (int j = 0; nd->first >= 0 && j < nd->nmoves; j++)
            if (t->edges[nd->first + j].move == m) next = t->edges[nd->first + j].child;
        ni = next;
    }
    Py_DECREF(seq);
    if (ni < 0) Py_RETURN_NONE;
    RtNode *nd = &t->nodes[ni];
    int k = nd->first >= 0 ? nd->nmoves : 0;
    PyObject *list = PyList_New(k);
    for (int j = 0; list && j < k; j++) {
        RtEdge *e = &t->edges[nd->first + j];
        int co = 0, cp = 0;
        if (e->child >= 0) {
            co = t->nodes[e->child].outcome;
            cp = t->nodes[e->child].plies;
        }
        PyObject *item = Py_BuildValue("iddii", (int)e->move, e->n, e->w, co, cp);
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, j, item);
    }
    if (!list) return NULL;
    return Py_BuildValue("iiON", (int)nd->outcome, (int)nd->plies, nd->win_first ? Py_True : Py_False, list);
}

/* counts() -> (playouts, nodes created, counted iterations, max depth, tree nodes, solves,
 * solved, solver nodes): the search counters since the root was set, the solver's since
 * the tree was made. */
static PyObject *rt_counts(RtTree *t, PyObject *unused) {
    if (!rt_usable(t, 0)) return NULL;
    return Py_BuildValue("LLLilLLL", t->playouts, t->created, t->counted, t->max_depth, t->nnodes, t->solves,
                         t->solved, t->solver_nodes);
}

static PyMethodDef rt_methods[] = {
    {"set_root", (PyCFunction)rt_set_root, METH_VARARGS,
     "set_root(black, white, to_move, outcome, plies, moves): a new tree, the root's verdict given"},
    {"advance", (PyCFunction)rt_advance, METH_VARARGS,
     "advance(moves, black, white, to_move) -> whether the tree moved on to the position after moves"},
    {"reset", (PyCFunction)rt_reset, METH_NOARGS, "reset(): forget the tree"},
    {"leaf", (PyCFunction)rt_leaf, METH_VARARGS,
     "leaf(p, o) -> the value of a leaf, p to move, in 1/128 discs (as eval_leaves at the tree's depth)"},
    {"begin", (PyCFunction)rt_begin, METH_NOARGS, "begin(): a new search's counters"},
    {"run", (PyCFunction)rt_run, METH_VARARGS,
     "run(seconds, nodes, playouts, max_nodes) -> 'proven', 'nodes', 'playouts' or 'time'"},
    {"node", (PyCFunction)rt_node, METH_O,
     "node(moves) -> (outcome, plies, win_first, [(move, n, w, child outcome, child plies)]) or None"},
    {"counts", (PyCFunction)rt_counts, METH_NOARGS,
     "counts() -> (playouts, nodes, counted, depth, tree nodes, solves, solved, solver nodes)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RtTreeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.reversi._reversicore.Tree",
    .tp_doc = "Tree(leaf_ev, order_ev, depth, leaf_k, prior_t, weight, exploration, widening, prior_bias, "
              "minimax, solver, tree_empties, tree_nodes, ev_min): the 8x8 MCTS with pattern leaves "
              "(see engine/reversi/tree/native.py)",
    .tp_basicsize = sizeof(RtTree),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)rt_init,
    .tp_dealloc = (destructor)rt_dealloc,
    .tp_methods = rt_methods,
};
