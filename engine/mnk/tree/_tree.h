/*
 * Guided MCTS in C: guided mode's tree search for the boards the C solver handles
 * (freestyle with K >= 4, and renju), tens of thousands of nodes a second.  Under renju
 * black's forbidden points are never listed, and the threat knowledge is the solver's
 * renju knowledge (_solver.h); the shapes count black's fives as exactly five.  The Python side is
 * engine/mnk/tree/native.py; the reference it is tested against is the generic MCTS
 * (engine/search/mcts.py) with engine/mnk/tree/guided.py's GuidedLeaves (tests/test_tree_pair.py).
 *
 * Four headers, included in this order by _threatcore.c after _solver.h:
 *   _tree.h           the types: edges, nodes, the Tree object;
 *   _tree_knowledge.h the position and what it knows: the shape value and priors,
 *                     the threat knowledge of a new node (its defences, a VCF/VCT);
 *   _tree_search.h    node storage, expansion, one iteration, proofs, reuse;
 *   _tree_module.h    the Python type (arguments, errors, results).
 *
 * The same search as the Python tree, one leaf at a time (no batches, so no virtual
 * loss):
 * - A node is created when a descent first reaches it, with its exact status: the side
 *   to move completes a line (a proven win), the opponent has two completions (a loss),
 *   the board is full (a draw).  Its value is the learned shape value of
 *   engine/mnk/knowledge/shapes.py, kept up to date incrementally (line codes and four running
 *   sums, changed only along the four lines through the stone set or cleared).
 * - Its moves are listed on the next descent through it (GuidedLeaves.expand): the
 *   block of the opponent's completion; a VCF (then a VCT) of the side to move proves a
 *   win; the defences against the opponent's double threat or VCF; else the empty cells
 *   within distance 2 of a stone.  Moves are ordered by the learned shape priors of
 *   engine/mnk/knowledge/shapes.py, which also give the progressive bias.  A node first
 *   listed deeper than the root's children holds only the best `edge_cap` (still when
 *   tree reuse makes it a child of the root; a new root gets every move); a node whose
 *   listed moves are all proven lost is widened to every empty cell before it is
 *   declared lost.
 * - Selection: untried moves in order while progressive widening allows
 *   (w * sqrt(visits)), else UCT, q + c * sqrt(ln(R N) / n) + bias * prior / (n + 1),
 *   which is the Python tree's formula with its R playouts per leaf counted as one visit;
 *   with implicit minimax backups (`minimax` a > 0) q is (1 - a) * w / n + a * (1 - tau of
 *   the child), tau being a node's shape value backed up by max through its children.
 * - MCTS-Solver proofs as in the Python tree.
 *
 * The position lives in one solver state S: a descent plays its moves with tree_place
 * and takes them back on the way up, so the solver runs on the tree's own counts.
 * The solver's answer depends on the position alone (every list it reads is sorted), so the
 * deferred VCT's answers are remembered by position (VctMemo): a transposition, in this
 * search or a later one of the game, does not run it again.
 */

#define SH_RADIUS 4
#define SH_CODES 6561     /* 3 ** (2 * SH_RADIUS) */
#define SH_CLASSES 10
#define SH_COMBOS (SH_CLASSES * SH_CLASSES)
#define SH_FEATURES (SH_COMBOS + SH_CLASSES)
#define SH_TUPLES (SH_CLASSES * SH_CLASSES * SH_CLASSES * SH_CLASSES)

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
    float tau;           /* minimax of the leaves' static values, for the side to move */
} TNode;

/* The deferred VCT's answers by position and attacker: the first move of the line found, or
 * -1 (none found within the budget).  Direct-mapped: a newer answer overwrites an older. */
#define VCT_MEMO_SLOTS (1 << 15)
typedef struct { uint64_t key; int move; } VctMemo;

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
    /* Shape knowledge (engine/mnk/knowledge/shapes.py): line codes per player, cell and direction
     * (code[p][4 * cell + d]), the shape of each code per player, the learned weights,
     * and the value's running sums. */
    unsigned short *code[3];
    int *line_start, *line_slot, *line_pw;  /* per cell x: the slots 4 * y + d of the cells y
                                             * along its lines, and the digit x is to them */
    unsigned char cls[3][SH_CODES];
    double w_attack[SH_FEATURES], w_defence[SH_FEATURES], w_mine[SH_FEATURES], w_theirs[SH_FEATURES];
    double w_attack_lines[SH_CODES], w_defence_lines[SH_CODES];  /* the priors' pattern tables */
    /* The weights summed over the features of each tuple of a cell's four shapes (sh_tuple),
     * as sh_sum adds them: one load for a cell's terms instead of ten. */
    double *t_value;      /* [SH_TUPLES][2]: w_mine's sum, w_theirs' sum */
    double *t_attack, *t_defence;  /* [SH_TUPLES] */
    double tempo;
    double *c_mine[3], *c_theirs[3];  /* each empty cell's terms of the sums (0 when occupied) */
    double sum[3][2];     /* per side: its cells' "mine" terms and "theirs" terms, summed */
    /* Options. */
    double c_eff, log_r, bias, widen, minimax;
    int vcf_nodes, defence_nodes, vct_nodes, vct_threes, vct_visits, edge_cap;
    /* The tree. */
    TNode *nodes;
    int nnodes, alloc_nodes, cap_nodes;  /* used, allocated, the most allowed */
    Edge *edge;
    long nedge, cap_edge, max_edge;      /* used, allocated, the most allowed */
    int root_to_move, max_depth;
    long long iterations;
    int oom;
    VctMemo *vct_memo;    /* VCT_MEMO_SLOTS answers (key 0: empty) */
} TreeObject;
