/* The guided tree as a Python type (see _tree.h). */

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
    free(t->line_start); free(t->line_slot); free(t->line_pw);
    free(t->t_value); free(t->t_attack); free(t->t_defence);
    free(t->vct_memo);
    for (int q = 1; q <= 2; q++) { free(t->code[q]); free(t->c_mine[q]); free(t->c_theirs[q]); }
    Py_XDECREF(t->g);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* Read a sequence of n floats into out; 0 with an exception set when it is not one. */
static int read_weights(PyObject *obj, double *out, int n) {
    PyObject *seq = PySequence_Fast(obj, "shape weights must be a sequence");
    if (!seq) return 0;
    int ok = PySequence_Fast_GET_SIZE(seq) == n;
    if (!ok) PyErr_Format(PyExc_ValueError, "shape weights need %d entries", n);
    for (int i = 0; ok && i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        ok = !PyErr_Occurred();
    }
    Py_DECREF(seq);
    return ok;
}

/* Read the two shape tables (bytes of SH_CODES shapes below SH_CLASSES, black's then white's). */
static int read_classes(PyObject *obj, TreeObject *t) {
    PyObject *seq = PySequence_Fast(obj, "classes must be a sequence");
    if (!seq) return 0;
    int ok = PySequence_Fast_GET_SIZE(seq) == 2;
    for (int q = 1; ok && q <= 2; q++) {
        PyObject *b = PySequence_Fast_GET_ITEM(seq, q - 1);
        ok = PyBytes_Check(b) && PyBytes_GET_SIZE(b) == SH_CODES;
        if (ok) {
            const unsigned char *src = (const unsigned char *)PyBytes_AS_STRING(b);
            for (int i = 0; ok && i < SH_CODES; i++) ok = src[i] < SH_CLASSES;
            if (ok) memcpy(t->cls[q], src, SH_CODES);
        }
    }
    Py_DECREF(seq);
    if (!ok) PyErr_Format(PyExc_ValueError, "classes must be two bytes objects of %d shapes below %d", SH_CODES, SH_CLASSES);
    return ok;
}

static int tree_init(TreeObject *t, PyObject *args, PyObject *kwds) {
    PyObject *geom_obj, *board_cells, *dirs, *classes, *attack, *defence, *attack_lines, *defence_lines, *mine, *theirs;
    int full_width;
    static char *kwlist[] = {"geometry", "board_cells", "directions", "full_width", "classes", "attack", "defence",
                             "attack_lines", "defence_lines", "mine", "theirs", "tempo", "exploration", "per_leaf",
                             "bias", "widening", "minimax",
                             "vcf_nodes", "defence_nodes", "vct_nodes", "vct_threes", "vct_visits", "edge_cap",
                             "max_nodes", NULL};
    double per_leaf, c;
    int max_nodes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOpOOOOOOOdddddd" "iiiiiii", kwlist, &GeomType, &geom_obj,
                                     &board_cells, &dirs, &full_width, &classes, &attack, &defence, &attack_lines,
                                     &defence_lines, &mine, &theirs,
                                     &t->tempo, &c, &per_leaf, &t->bias, &t->widen, &t->minimax, &t->vcf_nodes, &t->defence_nodes,
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
    if (!sh_lines(t)) { PyErr_NoMemory(); return -1; }
    if (!read_classes(classes, t) || !read_weights(attack, t->w_attack, SH_FEATURES) ||
        !read_weights(defence, t->w_defence, SH_FEATURES) || !read_weights(attack_lines, t->w_attack_lines, SH_CODES) ||
        !read_weights(defence_lines, t->w_defence_lines, SH_CODES) || !read_weights(mine, t->w_mine, SH_FEATURES) ||
        !read_weights(theirs, t->w_theirs, SH_FEATURES))
        return -1;
    if (!sh_tables(t)) { PyErr_NoMemory(); return -1; }
    for (int q = 1; q <= 2; q++) {
        t->code[q] = calloc(4 * (size_t)g->npad, sizeof(unsigned short));
        t->c_mine[q] = calloc((size_t)g->npad, sizeof(double));
        t->c_theirs[q] = calloc((size_t)g->npad, sizeof(double));
        if (!t->code[q] || !t->c_mine[q] || !t->c_theirs[q]) { PyErr_NoMemory(); return -1; }
    }
    if (!s_alloc(&t->s, g)) { PyErr_NoMemory(); return -1; }
    t->vct_memo = calloc(VCT_MEMO_SLOTS, sizeof(VctMemo));
    if (!t->vct_memo) { PyErr_NoMemory(); return -1; }
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
    t->stones = 0;
    for (int i = 0; i < t->area; i++) {
        int c = t->board_cells[i], v = t->s.cells[c];
        if (v != 1 && v != 2) continue;
        t->stones++;
        for (int j = t->near_start[c]; j < t->near_start[c + 1]; j++) t->near_cnt[t->near[j]]++;
    }
    sh_load(t);
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

/* The moves (compact) listed at node ni, in order. */
static PyObject *listed_moves(const TreeObject *t, int ni) {
    const TNode *n = &t->nodes[ni];
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int i = 0; i < n->nedges; i++) {
        PyObject *m = PyLong_FromLong(t->compact[t->edge[n->edges + i].move]);
        if (!m || PyList_Append(out, m) < 0) { Py_XDECREF(m); Py_DECREF(out); return NULL; }
        Py_DECREF(m);
    }
    return out;
}

/* root_moves() -> list of compact moves, in the tree's order (lists them if needed). */
static PyObject *tree_root_moves(TreeObject *t, PyObject *unused) {
    if (!tree_ready(t)) return NULL;
    TNode *r = &t->nodes[0];
    if (r->nedges < 0 && !r->proven) expand(t, 0, t->root_to_move, 0);
    if (t->oom) return PyErr_NoMemory();
    return listed_moves(t, 0);
}

/* The node the compact moves of `seq` (a fast sequence), played from the root in turn,
 * lead to, with their padded cells in `cells` unless it is NULL: -1 when that node is not
 * in the tree, -2 with an exception set when a move is not an integer. */
static int walk(const TreeObject *t, PyObject *seq, int *cells) {
    int ni = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) return -2;
        if (m < 0 || m >= t->area) return -1;
        int cell = t->board_cells[m];
        if (cells) cells[i] = cell;
        const TNode *node = &t->nodes[ni];
        int next = -1;
        for (int e = 0; e < node->nedges; e++)
            if (t->edge[node->edges + e].move == cell) { next = t->edge[node->edges + e].child; break; }
        if (next < 0) return -1;
        ni = next;
    }
    return ni;
}

/* listed(moves) -> the moves listed at the node the compact `moves` lead to from the
 * root, or None while that node is not in the tree or not yet listed. */
static PyObject *tree_listed(TreeObject *t, PyObject *arg) {
    if (!tree_ready(t)) return NULL;
    PyObject *seq = PySequence_Fast(arg, "moves must be a sequence");
    if (!seq) return NULL;
    int ni = walk(t, seq, NULL);
    Py_DECREF(seq);
    if (ni == -2) return NULL;
    if (ni < 0 || t->nodes[ni].nedges < 0) Py_RETURN_NONE;
    return listed_moves(t, ni);
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

/* pv(limit, first=-1) -> compact moves down the tree; with first >= 0 the line starts with
 * that root move (a multi-PV report's line for a move the tree does not prefer). */
static PyObject *tree_pv(TreeObject *t, PyObject *args) {
    int limit, first = -1;
    if (!PyArg_ParseTuple(args, "i|i", &limit, &first)) return NULL;
    if (!tree_ready(t)) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    int ni = 0;
    while (ni >= 0 && PyList_GET_SIZE(out) < limit) {
        const TNode *n = &t->nodes[ni];
        if (n->nedges <= 0) break;
        int i = -1;
        if (ni == 0 && first >= 0) {
            for (int j = 0; j < n->nedges; j++)
                if (t->compact[t->edge[n->edges + j].move] == first) { i = j; break; }
        } else {
            i = pv_edge(t, n);
        }
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

/* priors(moves, to_move) -> the prior logit of each empty compact move at the root. */
static PyObject *tree_priors_py(TreeObject *t, PyObject *args) {
    PyObject *moves;
    int p;
    if (!PyArg_ParseTuple(args, "Oi", &moves, &p)) return NULL;
    if (!tree_ready(t)) return NULL;
    if (p != 1 && p != 2) { PyErr_SetString(PyExc_ValueError, "to_move must be 1 or 2"); return NULL; }
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred() || m < 0 || m >= t->area || t->s.cells[t->board_cells[m]] != 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "priors are of empty cells");
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, PyFloat_FromDouble(cell_score(t, t->board_cells[m], p)));
    }
    Py_DECREF(seq);
    return out;
}


static PyObject *tree_advance(TreeObject *t, PyObject *arg) {
    if (!tree_ready(t)) return NULL;
    PyObject *seq = PySequence_Fast(arg, "moves must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *cells = malloc(sizeof(int) * (size_t)(n + 1));
    if (!cells) { Py_DECREF(seq); return PyErr_NoMemory(); }
    int ni = walk(t, seq, cells);
    Py_DECREF(seq);
    if (ni == -2) { free(cells); return NULL; }
    int ok = ni >= 0;
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
    {"listed", (PyCFunction)tree_listed, METH_O, "listed(moves) -> the moves listed at the node after them, or None."},
    {"drop_root_moves", (PyCFunction)tree_drop_root_moves, METH_O, "drop_root_moves(moves) -> how many were removed."},
    {"run", (PyCFunction)tree_run, METH_VARARGS, "run(seconds, iterations, max_nodes) -> why the run stopped."},
    {"stats", (PyCFunction)tree_stats, METH_NOARGS, "stats() -> [(move, visits, value_sum, proven, plies)] of the root."},
    {"pv", (PyCFunction)tree_pv, METH_VARARGS, "pv(limit, first=-1) -> principal variation (compact moves), from root move first when given."},
    {"root", (PyCFunction)tree_root, METH_NOARGS, "root() -> (proven, plies, visits)."},
    {"counts", (PyCFunction)tree_counts, METH_NOARGS, "counts() -> (iterations, nodes, max_depth)."},
    {"value", (PyCFunction)tree_value_py, METH_VARARGS, "value(to_move) -> static evaluation of the root position."},
    {"priors", (PyCFunction)tree_priors_py, METH_VARARGS, "priors(moves, to_move) -> prior logits of empty moves at the root."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.mnk._threatcore.Tree",
    .tp_doc = "Tree(geometry, board_cells, directions, ...): guided MCTS in C (see engine/mnk/tree/native.py).",
    .tp_basicsize = sizeof(TreeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tree_init,
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_methods = tree_methods,
};

