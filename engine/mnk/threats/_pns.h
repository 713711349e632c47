/*
 * Proof-number search over the threat solver's moves: the same AND/OR tree as vct() in
 * _solver.h (the attacker's fours and threes, the defender's real answers), searched best
 * first.  Each step walks from the root to the most-proving leaf -- at the attacker's
 * nodes the child with the fewest leaves left to prove, at the defender's the one with the
 * fewest left to disprove -- expands it and backs the numbers up.  A depth-first search
 * that deepens by threes repeats its shallow lines and spends its budget in the first wide
 * branch; the numbers go where a proof is cheapest (Allis, "Searching for Solutions in
 * Games and Artificial Intelligence", 1994).  Included by _threatcore.c after _solver.h.
 *
 * The tree lives in one growable array of nodes.  An attacker node (OR) is expanded in
 * full when selected: a completion or a VCF proves it at once, otherwise its children are
 * the defender nodes (AND) after each four and three, with their replies kept in a pool of
 * ints.  A defender node's children, the attacker nodes after each reply, are made when it
 * is first selected.  Disproved attacker positions are remembered by hash and threes left.
 */

#define PN_INF 0x3FFFFFFFu
#define PN_MAX_NODES (1 << 21)   /* 80 MB of nodes, and some more of replies: the run stops there as if out of budget */
#define PN_BY_VCF (-2)           /* an attacker node proved by a VCF (the line is found again) */

typedef struct {
    int move;       /* the cell played into this node (-1 at the root) */
    int parent;
    int child;      /* the first of nchild children (contiguous); -1 while unexpanded */
    int nchild;
    uint32_t pn, dn;
    int win;        /* attacker node proved at its expansion: the winning cell, PN_BY_VCF; else -1 */
    int reply_at;   /* defender node: its replies are rpool[reply_at .. reply_at + nreply) */
    int nreply;
    short threes;   /* threes left to the attacker at this node (defender node: after its move) */
    unsigned char and_node;
} PNode;

/* The tree of a state's best-first runs (S.pn); a run empties it. */
struct PN {
    PNode *n;
    int len, cap;
    int *rpool;
    int rlen, rcap;
    HSet disproved;     /* (hash, threes) of attacker positions with no win */
};

static void pn_free(PN *t) {
    if (!t) return;
    free(t->n);
    free(t->rpool);
    hs_free(&t->disproved);
    free(t);
}

static int pn_new(S *s, PN *t, int count) {
    if (t->len + count > PN_MAX_NODES) { s->aborted = 1; return -1; }
    if (t->len + count > t->cap) {
        int cap = t->cap ? t->cap : 4096;
        while (cap < t->len + count) cap *= 2;
        PNode *n = realloc(t->n, sizeof(PNode) * (size_t)cap);
        if (!n) { oom(s); return -1; }
        t->n = n;
        t->cap = cap;
    }
    int at = t->len;
    t->len += count;
    return at;
}

static int pn_replies(S *s, PN *t, const IVec *rep) {
    if (t->rlen + rep->n > t->rcap) {
        int cap = t->rcap ? t->rcap : 4096;
        while (cap < t->rlen + rep->n) cap *= 2;
        int *r = realloc(t->rpool, sizeof(int) * (size_t)cap);
        if (!r) { oom(s); return -1; }
        t->rpool = r;
        t->rcap = cap;
    }
    int at = t->rlen;
    memcpy(t->rpool + at, rep->v, sizeof(int) * (size_t)rep->n);
    t->rlen += rep->n;
    return at;
}

static void pn_init(PNode *x, int move, int parent, int threes, int and_node) {
    x->move = move;
    x->parent = parent;
    x->child = -1;
    x->nchild = 0;
    x->pn = x->dn = 1;
    x->win = -1;
    x->reply_at = 0;
    x->nreply = 0;
    x->threes = (short)threes;
    x->and_node = (unsigned char)and_node;
}

static void pn_proved(PNode *x, int win) {
    x->win = win;
    x->pn = 0;
    x->dn = PN_INF;
}

/* Expand the attacker node x (its path's stones on the board, `a` to move, `depth` plies from
 * the root): settle it, or give it its defender children.  The moves and their replies are
 * vct()'s: fours, threes (restricted to the cell that stops the defender's four, if it has
 * one), and a quiet block that keeps a double threat. */
static void pn_expand_or(S *s, PN *t, int x, int a, int depth) {
    int d = 3 - a;
    PNode *nx = &t->n[x];
    int threes = nx->threes;
    IVec w = {0};
    Branch *br = NULL;
    int nb = 0, capb = 0;
    if (!tick(s)) return;
    completing(s, a, &w);
    if (w.n) { pn_proved(nx, w.v[0]); goto done; }
    if (depth >= MAX_DEPTH || hs_has(&t->disproved, s->hash, threes)) goto lost;
    Line *line = vcf(s, a, depth);
    if (line) { free(line); pn_proved(nx, PN_BY_VCF); goto done; }
    if (s->aborted) goto done;
    if (threes <= 0) goto lost;
    completing(s, d, &w);
    int stopper = -1;
    if (w.n) {
        if (unstoppable(s, d, &w)) goto lost;
        stopper = w.v[0];
    }
    /* A three that blocks the defender's four is forced: it costs no three, as a quiet block. */
    int win = vct_branches(s, a, stopper, 1, &br, &nb, &capb);
    if (s->aborted) goto done;
    if (win >= 0) { pn_proved(nx, win); goto done; }
    if (!nb) goto lost;
    int first = pn_new(s, t, nb);
    if (first < 0) goto done;
    nx = &t->n[x];  /* pn_new may have moved the nodes */
    nx->child = first;
    nx->nchild = nb;
    uint32_t pn = PN_INF, dn = 0;
    for (int i = 0; i < nb; i++) {
        PNode *c = &t->n[first + i];
        pn_init(c, br[i].m, x, threes - br[i].cost, 1);
        int at = pn_replies(s, t, &br[i].replies);
        if (at < 0) goto done;
        c->reply_at = at;
        c->nreply = br[i].replies.n;
        c->pn = (uint32_t)br[i].replies.n;  /* every reply must be refuted */
        c->dn = 1;
        if (c->pn < pn) pn = c->pn;
        dn += c->dn;
    }
    nx->pn = pn;
    nx->dn = dn < PN_INF ? dn : PN_INF;
    goto done;
lost:
    nx->pn = PN_INF;
    nx->dn = 0;
done:
    iv_free(s, &w);
    for (int i = 0; i < nb; i++) iv_free(s, &br[i].replies);
    free(br);
}

/* Give the defender node x its attacker children, one a reply. */
static void pn_expand_and(S *s, PN *t, int x) {
    int n = t->n[x].nreply;
    int first = pn_new(s, t, n);
    if (first < 0) return;
    PNode *nx = &t->n[x];
    nx->child = first;
    nx->nchild = n;
    for (int i = 0; i < n; i++) pn_init(&t->n[first + i], t->rpool[nx->reply_at + i], x, nx->threes, 0);
    nx->pn = (uint32_t)n;
    nx->dn = 1;
}

/* Recompute x's numbers from its children. */
static void pn_update(PN *t, int x) {
    PNode *nx = &t->n[x];
    if (nx->child < 0) return;
    uint32_t lo = PN_INF, sum = 0;
    for (int i = 0; i < nx->nchild; i++) {
        const PNode *c = &t->n[nx->child + i];
        uint32_t small = nx->and_node ? c->dn : c->pn, big = nx->and_node ? c->pn : c->dn;
        if (small < lo) lo = small;
        sum += big;
        if (sum > PN_INF) sum = PN_INF;
    }
    if (nx->and_node) { nx->dn = lo; nx->pn = sum; }
    else { nx->pn = lo; nx->dn = sum; }
}

/* The winning line below the proved attacker node x (its path's stones on the board): the
 * moves of the first proved branch and the first reply at each defender node, as vct(). */
static Line *pn_line(S *s, PN *t, int x, int a, int depth) {
    const PNode *nx = &t->n[x];
    if (nx->win >= 0) return line_one(s, nx->win);
    if (nx->win == PN_BY_VCF) {
        long long max_nodes = s->max_nodes;
        double deadline = s->deadline;
        s->max_nodes = LLONG_MAX;
        s->deadline = -1;
        Line *line = vcf(s, a, depth);
        s->max_nodes = max_nodes;
        s->deadline = deadline;
        return line;
    }
    for (int i = 0; i < nx->nchild; i++) {
        const PNode *c = &t->n[nx->child + i];
        if (c->pn) continue;
        int m = c->move;
        const PNode *r = &t->n[c->child];
        place(s, m, a);
        place(s, r->move, 3 - a);
        Line *sub = pn_line(s, t, c->child, a, depth + 2);
        take(s, r->move);
        take(s, m);
        return sub ? line_prefix(s, m, r->move, sub) : NULL;
    }
    return NULL;
}

/* Proof-number VCT for `attacker` with up to `threes` threes on the budget s_begin set:
 * the line (as vct()), or NULL with s->aborted 0 when every line was refuted. */
static Line *pn_solve(S *s, int attacker, int threes) {
    if (!s->pn && !(s->pn = calloc(1, sizeof(PN)))) { oom(s); return NULL; }
    PN *t = s->pn;
    t->len = t->rlen = 0;
    hs_clear(&t->disproved);
    int root = pn_new(s, t, 1);
    if (root < 0) return NULL;
    pn_init(&t->n[root], -1, -1, threes, 0);
    int path[MAX_DEPTH + 2];
    while (t->n[root].pn && t->n[root].dn && !s->aborted) {
        /* Down to the most-proving leaf, placing the stones of the path. */
        int x = root, depth = 0;
        while (t->n[x].child >= 0 || t->n[x].and_node) {
            if (t->n[x].child < 0) {
                pn_expand_and(s, t, x);
                if (s->aborted) break;
            }
            const PNode *nx = &t->n[x];
            int best = nx->child;
            for (int i = 1; i < nx->nchild; i++) {
                const PNode *c = &t->n[nx->child + i];
                if (nx->and_node ? c->dn < t->n[best].dn : c->pn < t->n[best].pn) best = nx->child + i;
            }
            place(s, t->n[best].move, nx->and_node ? 3 - attacker : attacker);
            path[depth++] = best;
            x = best;
        }
        if (!s->aborted) pn_expand_or(s, t, x, attacker, depth);
        /* Back up the numbers, taking the stones back. */
        for (int i = depth - 1; i >= 0; i--) {
            int c = path[i];
            if (!t->n[c].and_node && !t->n[c].dn) hs_add(s, &t->disproved, s->hash, t->n[c].threes);
            take(s, t->n[c].move);
            pn_update(t, t->n[c].parent);
        }
    }
    return !s->aborted && !t->n[root].pn ? pn_line(s, t, root, attacker, 0) : NULL;
}
