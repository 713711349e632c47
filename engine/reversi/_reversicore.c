/*
 * engine.reversi._reversicore: the Reversi kernel in C -- perft, batched random playouts,
 * the exact endgame solver and the pattern evaluation -- for engine/reversi/board/perft.py,
 * evaluation/playout.py, endgame/solver.py and evaluation/patterns.py, and the 8x8 search tree of
 * engine/reversi/tree/native.py (_reversi_tree.h).
 *
 * Boards cross the boundary as Python ints in the row-major layout of engine/reversi/board/
 * bitboard.py (bit row * n + col); here a board of side n <= 8 lives in one uint64_t
 * (layout stride 8) and a larger one (10..16) in four (stride 16).  The algorithms are
 * written once, in _reversi_kernel.h, and included for both representations; the
 * uint64_t one is also compiled a second time for CPUs with the POPCNT instruction and
 * chosen at run time (every x86-64 of the last decade has it; the compiler cannot
 * assume so).
 *
 * Random numbers: splitmix64 from the caller's seed, one stream consumed game after
 * game (and leaf after leaf); engine/reversi/evaluation/playout.py draws the same numbers the same
 * way, so the Python fallback plays exactly the same games.
 *
 * Long calls release the GIL: nothing after argument parsing touches a Python object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

/* ----------------------------------------------------------------------------------- */
/* Shared helpers. */

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of Python's time.monotonic() */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline uint64_t mix64(uint64_t a, uint64_t b) {
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return h ^ (h >> 29);
}

#include "_reversi_eval.h"

/* The solver orders moves by reply count (16 a reply) plus the evaluation over this (8 a disc). */
#define EV_ORDER_DIV 16

/* ----------------------------------------------------------------------------------- */
/* One uint64_t: boards up to 8x8. */

#define BB uint64_t
#define STRIDE 8
#define B_ZERO 0ULL
#define B_AND(a, b) ((a) & (b))
#define B_OR(a, b) ((a) | (b))
#define B_XOR(a, b) ((a) ^ (b))
#define B_ANDN(a, b) ((a) & ~(b))
#define B_SHL(a, s) ((a) << (s))
#define B_SHR(a, s) ((a) >> (s))
#define B_NZ(a) ((a) != 0)
#define B_EQ(a, b) ((a) == (b))
#define B_POP(a) __builtin_popcountll(a)
#define B_BIT(i) (1ULL << (i))
#define B_LOWIDX(a) __builtin_ctzll(a)
#define B_CLEARLOW(a) ((a) & ((a) - 1))
#define B_HMASK 0x7E7E7E7E7E7E7E7EULL
#define B_HASH(p, o) mix64(p, o)

#define KEVAL 1
#define KFN(x) k64_##x
static inline int k64_kth(uint64_t m, int k) {
    while (k-- > 0) m &= m - 1;
    return __builtin_ctzll(m);
}
#include "_reversi_kernel.h"
#undef KFN

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_POPCNT_BUILD 1
#pragma GCC push_options
#pragma GCC target("popcnt")
#define KFN(x) k64p_##x
static inline int k64p_kth(uint64_t m, int k) {
    while (k-- > 0) m &= m - 1;
    return __builtin_ctzll(m);
}
#include "_reversi_kernel.h"
#undef KFN
#pragma GCC pop_options
#endif

#undef KEVAL
#undef BB
#undef STRIDE
#undef B_ZERO
#undef B_AND
#undef B_OR
#undef B_XOR
#undef B_ANDN
#undef B_SHL
#undef B_SHR
#undef B_NZ
#undef B_EQ
#undef B_POP
#undef B_BIT
#undef B_LOWIDX
#undef B_CLEARLOW
#undef B_HMASK
#undef B_HASH

/* ----------------------------------------------------------------------------------- */
/* Four uint64_t: boards 10x10..16x16 (layout stride 16, four rows a word). */

typedef struct { uint64_t w[4]; } b256;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE b256 b256_and(b256 a, b256 b) {
    a.w[0] &= b.w[0]; a.w[1] &= b.w[1]; a.w[2] &= b.w[2]; a.w[3] &= b.w[3];
    return a;
}
ALWAYS_INLINE b256 b256_or(b256 a, b256 b) {
    a.w[0] |= b.w[0]; a.w[1] |= b.w[1]; a.w[2] |= b.w[2]; a.w[3] |= b.w[3];
    return a;
}
ALWAYS_INLINE b256 b256_xor(b256 a, b256 b) {
    a.w[0] ^= b.w[0]; a.w[1] ^= b.w[1]; a.w[2] ^= b.w[2]; a.w[3] ^= b.w[3];
    return a;
}
ALWAYS_INLINE b256 b256_andn(b256 a, b256 b) {
    a.w[0] &= ~b.w[0]; a.w[1] &= ~b.w[1]; a.w[2] &= ~b.w[2]; a.w[3] &= ~b.w[3];
    return a;
}
/* Shifts by a constant 0 < s < 128, written out (the compiler folds the branches; a
 * loop over the words here made the 16x16 kernel several times slower). */
ALWAYS_INLINE b256 b256_shl(b256 a, const int s) {
    b256 r;
    if (s < 64) {
        r.w[3] = (a.w[3] << s) | (a.w[2] >> (64 - s));
        r.w[2] = (a.w[2] << s) | (a.w[1] >> (64 - s));
        r.w[1] = (a.w[1] << s) | (a.w[0] >> (64 - s));
        r.w[0] = a.w[0] << s;
    } else if (s == 64) {
        r.w[3] = a.w[2]; r.w[2] = a.w[1]; r.w[1] = a.w[0]; r.w[0] = 0;
    } else {
        const int k = s - 64;
        r.w[3] = (a.w[2] << k) | (a.w[1] >> (64 - k));
        r.w[2] = (a.w[1] << k) | (a.w[0] >> (64 - k));
        r.w[1] = a.w[0] << k;
        r.w[0] = 0;
    }
    return r;
}
ALWAYS_INLINE b256 b256_shr(b256 a, const int s) {
    b256 r;
    if (s < 64) {
        r.w[0] = (a.w[0] >> s) | (a.w[1] << (64 - s));
        r.w[1] = (a.w[1] >> s) | (a.w[2] << (64 - s));
        r.w[2] = (a.w[2] >> s) | (a.w[3] << (64 - s));
        r.w[3] = a.w[3] >> s;
    } else if (s == 64) {
        r.w[0] = a.w[1]; r.w[1] = a.w[2]; r.w[2] = a.w[3]; r.w[3] = 0;
    } else {
        const int k = s - 64;
        r.w[0] = (a.w[1] >> k) | (a.w[2] << (64 - k));
        r.w[1] = (a.w[2] >> k) | (a.w[3] << (64 - k));
        r.w[2] = a.w[3] >> k;
        r.w[3] = 0;
    }
    return r;
}
static inline int b256_nz(b256 a) { return (a.w[0] | a.w[1] | a.w[2] | a.w[3]) != 0; }
static inline int b256_eq(b256 a, b256 b) {
    return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3];
}
static inline int b256_pop(b256 a) {
    return __builtin_popcountll(a.w[0]) + __builtin_popcountll(a.w[1]) +
           __builtin_popcountll(a.w[2]) + __builtin_popcountll(a.w[3]);
}
static inline b256 b256_bit(int i) {
    b256 r = {{0, 0, 0, 0}};
    r.w[i >> 6] = 1ULL << (i & 63);
    return r;
}
static inline int b256_lowidx(b256 a) {
    for (int i = 0; i < 4; i++)
        if (a.w[i]) return 64 * i + __builtin_ctzll(a.w[i]);
    return -1;
}
static inline b256 b256_clearlow(b256 a) {
    for (int i = 0; i < 4; i++)
        if (a.w[i]) { a.w[i] &= a.w[i] - 1; break; }
    return a;
}
static inline int k256_kth(b256 m, int k) {
    for (int i = 0; i < 4; i++) {
        int c = __builtin_popcountll(m.w[i]);
        if (k < c) {
            uint64_t w = m.w[i];
            while (k-- > 0) w &= w - 1;
            return 64 * i + __builtin_ctzll(w);
        }
        k -= c;
    }
    return -1;
}
static const b256 B256_HMASK = {{0x7FFE7FFE7FFE7FFEULL, 0x7FFE7FFE7FFE7FFEULL,
                                 0x7FFE7FFE7FFE7FFEULL, 0x7FFE7FFE7FFE7FFEULL}};

#define BB b256
#define STRIDE 16
#define B_ZERO ((b256){{0, 0, 0, 0}})
#define B_AND(a, b) b256_and(a, b)
#define B_OR(a, b) b256_or(a, b)
#define B_XOR(a, b) b256_xor(a, b)
#define B_ANDN(a, b) b256_andn(a, b)
#define B_SHL(a, s) b256_shl(a, s)
#define B_SHR(a, s) b256_shr(a, s)
#define B_NZ(a) b256_nz(a)
#define B_EQ(a, b) b256_eq(a, b)
#define B_POP(a) b256_pop(a)
#define B_BIT(i) b256_bit(i)
#define B_LOWIDX(a) b256_lowidx(a)
#define B_CLEARLOW(a) b256_clearlow(a)
#define B_HMASK B256_HMASK
#define B_HASH(p, o) mix64(mix64((p).w[0] ^ (p).w[2], (p).w[1] ^ (p).w[3]), mix64((o).w[0] ^ (o).w[2], (o).w[1] ^ (o).w[3]))
#define KFN(x) k256_##x
#include "_reversi_kernel.h"
#undef KFN

/* ----------------------------------------------------------------------------------- */
/* Positions in from Python. */

typedef struct {
    int n;
    int wide;        /* 0: uint64_t layout (n <= 8), 1: b256 layout */
    uint64_t p64, o64;
    b256 p256, o256; /* P: the side to move */
} Pos;

static int use_popcnt = 0;

/* `len` (<= 16) bits of a row-major board starting at bit `pos`. */
static inline uint64_t get_bits(const uint64_t *w, int pos, int len) {
    int i = pos >> 6, s = pos & 63;
    uint64_t v = w[i] >> s;
    if (s + len > 64 && i + 1 < 4) v |= w[i + 1] << (64 - s);
    return v & ((1ULL << len) - 1);
}

/* A Python int holding a row-major board of side n, as 4 words; -1 with an exception. */
static int read_board(PyObject *v, int n, uint64_t w[4]) {
    if (!PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "a bitboard must be an int");
        return -1;
    }
    int area = n * n;
    PyObject *zero = PyLong_FromLong(0);
    int neg = PyObject_RichCompareBool(v, zero, Py_LT);
    Py_DECREF(zero);
    if (neg != 0) {
        if (neg > 0) PyErr_SetString(PyExc_ValueError, "a bitboard must not be negative");
        return -1;
    }
    memset(w, 0, 4 * sizeof(uint64_t));
    if (area <= 64) {
        unsigned long long x = PyLong_AsUnsignedLongLong(v);
        if (x == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "bitboard has bits beyond the board");
            return -1;
        }
        if (area < 64 && (x >> area)) {
            PyErr_SetString(PyExc_ValueError, "bitboard has bits beyond the board");
            return -1;
        }
        w[0] = x;
        return 0;
    }
    size_t bits = _PyLong_NumBits(v);
    if (bits == (size_t)-1 && PyErr_Occurred()) return -1;
    if (bits > (size_t)area) {
        PyErr_SetString(PyExc_ValueError, "bitboard has bits beyond the board");
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        PyObject *sh = PyLong_FromLong(64 * i);
        PyObject *part = sh ? PyNumber_Rshift(v, sh) : NULL;
        Py_XDECREF(sh);
        if (!part) return -1;
        w[i] = PyLong_AsUnsignedLongLongMask(part);
        Py_DECREF(part);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

static uint64_t layout64(const uint64_t w[4], int n) {
    if (n == 8) return w[0];
    uint64_t r = 0;
    for (int row = 0; row < n; row++) r |= get_bits(w, row * n, n) << (8 * row);
    return r;
}

static b256 layout256(const uint64_t w[4], int n) {
    b256 r = {{0, 0, 0, 0}};
    for (int row = 0; row < n; row++) r.w[row >> 2] |= get_bits(w, row * n, n) << (16 * (row & 3));
    return r;
}

static int check_n(int n) {
    if (n < 4 || n > 16 || n % 2) {
        PyErr_SetString(PyExc_ValueError, "board size must be an even number from 4 to 16");
        return -1;
    }
    return 0;
}

static int read_pos(int n, PyObject *black, PyObject *white, int to_move, Pos *pos) {
    uint64_t b[4], wh[4];
    if (check_n(n) < 0) return -1;
    if (to_move != 1 && to_move != 2) {
        PyErr_SetString(PyExc_ValueError, "to_move must be 1 (black) or 2 (white)");
        return -1;
    }
    if (read_board(black, n, b) < 0 || read_board(white, n, wh) < 0) return -1;
    if ((b[0] & wh[0]) | (b[1] & wh[1]) | (b[2] & wh[2]) | (b[3] & wh[3])) {
        PyErr_SetString(PyExc_ValueError, "black and white discs on the same square");
        return -1;
    }
    const uint64_t *p = to_move == 1 ? b : wh, *o = to_move == 1 ? wh : b;
    pos->n = n;
    pos->wide = n > 8;
    if (pos->wide) {
        pos->p256 = layout256(p, n);
        pos->o256 = layout256(o, n);
    } else {
        pos->p64 = layout64(p, n);
        pos->o64 = layout64(o, n);
    }
    return 0;
}

static uint64_t valid64(int n) {
    uint64_t r = 0;
    for (int row = 0; row < n; row++) r |= ((1ULL << n) - 1) << (8 * row);
    return r;
}

static b256 valid256(int n) {
    b256 r = {{0, 0, 0, 0}};
    for (int row = 0; row < n; row++) r.w[row >> 2] |= ((1ULL << n) - 1) << (16 * (row & 3));
    return r;
}

/* A layout square as a move number of the row-major board. */
static inline int layout_to_move(int sq, int n) {
    int stride = n > 8 ? 16 : 8;
    return (sq / stride) * n + sq % stride;
}

/* ----------------------------------------------------------------------------------- */
/* Dispatch over the representations. */

static uint64_t run_perft(const Pos *p, int depth) {
    if (p->wide) return k256_perft(p->p256, p->o256, valid256(p->n), depth);
#ifdef HAVE_POPCNT_BUILD
    if (use_popcnt) return k64p_perft(p->p64, p->o64, valid64(p->n), depth);
#endif
    return k64_perft(p->p64, p->o64, valid64(p->n), depth);
}

static int run_playout(const Pos *p, uint64_t *rng) {
    int area = p->n * p->n;
    if (p->wide) return k256_playout(p->p256, p->o256, valid256(p->n), area, rng);
#ifdef HAVE_POPCNT_BUILD
    if (use_popcnt) return k64p_playout(p->p64, p->o64, valid64(p->n), area, rng);
#endif
    return k64_playout(p->p64, p->o64, valid64(p->n), area, rng);
}

/* ----------------------------------------------------------------------------------- */
/* Python functions. */

static PyObject *py_perft(PyObject *self, PyObject *args) {
    int n, to_move, depth;
    PyObject *black, *white;
    Pos pos;
    if (!PyArg_ParseTuple(args, "iOOii", &n, &black, &white, &to_move, &depth)) return NULL;
    if (read_pos(n, black, white, to_move, &pos) < 0) return NULL;
    if (depth < 0 || depth > 40) {
        PyErr_SetString(PyExc_ValueError, "perft depth must be 0..40");
        return NULL;
    }
    uint64_t count;
    Py_BEGIN_ALLOW_THREADS
    count = run_perft(&pos, depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(count);
}

#define MAX_PLAYOUTS 100000000LL

static PyObject *py_playouts(PyObject *self, PyObject *args) {
    int n, to_move;
    long long count;
    unsigned long long seed;
    PyObject *black, *white;
    Pos pos;
    if (!PyArg_ParseTuple(args, "iOOiLK", &n, &black, &white, &to_move, &count, &seed)) return NULL;
    if (read_pos(n, black, white, to_move, &pos) < 0) return NULL;
    if (count < 0 || count > MAX_PLAYOUTS) {
        PyErr_SetString(PyExc_ValueError, "playout count out of range");
        return NULL;
    }
    long long wins = 0, draws = 0;
    uint64_t rng = seed;
    Py_BEGIN_ALLOW_THREADS
    for (long long i = 0; i < count; i++) {
        int d = run_playout(&pos, &rng);
        wins += d > 0;
        draws += d == 0;
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("LLL", wins, draws, count - wins - draws);
}

static PyObject *py_playout_scores(PyObject *self, PyObject *args) {
    int n, to_move;
    Py_ssize_t count;
    unsigned long long seed;
    PyObject *black, *white;
    Pos pos;
    if (!PyArg_ParseTuple(args, "iOOinK", &n, &black, &white, &to_move, &count, &seed)) return NULL;
    if (read_pos(n, black, white, to_move, &pos) < 0) return NULL;
    if (count < 0 || count > 10000000) {
        PyErr_SetString(PyExc_ValueError, "playout count out of range");
        return NULL;
    }
    int *out = malloc(sizeof(int) * (size_t)(count + 1));
    if (!out) return PyErr_NoMemory();
    uint64_t rng = seed;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) out[i] = run_playout(&pos, &rng);
    Py_END_ALLOW_THREADS
    PyObject *list = PyList_New(count);
    if (list) {
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *v = PyLong_FromLong(out[i]);
            if (!v) { Py_CLEAR(list); break; }
            PyList_SET_ITEM(list, i, v);
        }
    }
    free(out);
    return list;
}

static PyObject *py_playouts_many(PyObject *self, PyObject *args) {
    int n;
    long long count;
    unsigned long long seed;
    PyObject *leaves;
    if (!PyArg_ParseTuple(args, "iOLK", &n, &leaves, &count, &seed)) return NULL;
    if (check_n(n) < 0) return NULL;
    if (count < 1 || count > MAX_PLAYOUTS) {
        PyErr_SetString(PyExc_ValueError, "playout count out of range");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(leaves, "leaves must be a sequence of (black, white, to_move)");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    Pos *pos = malloc(sizeof(Pos) * (size_t)(m + 1));
    double *val = malloc(sizeof(double) * (size_t)(m + 1));
    if (!pos || !val) {
        free(pos);
        free(val);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *leaf = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *b, *w;
        int tm;
        if (!PyTuple_Check(leaf) || !PyArg_ParseTuple(leaf, "OOi", &b, &w, &tm) ||
            read_pos(n, b, w, tm, &pos[i]) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a leaf is a (black, white, to_move) tuple");
            free(pos);
            free(val);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    uint64_t rng = seed;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        long long points = 0; /* 2 a win, 1 a draw */
        for (long long g = 0; g < count; g++) {
            int d = run_playout(&pos[i], &rng);
            points += d > 0 ? 2 : d == 0;
        }
        val[i] = (double)points / (2.0 * (double)count);
    }
    Py_END_ALLOW_THREADS
    PyObject *list = PyList_New(m);
    if (list) {
        for (Py_ssize_t i = 0; i < m; i++) {
            PyObject *v = PyFloat_FromDouble(val[i]);
            if (!v) { Py_CLEAR(list); break; }
            PyList_SET_ITEM(list, i, v);
        }
    }
    free(pos);
    free(val);
    return list;
}

#define EVAL_CAPSULE "engine.reversi._reversicore.EvalW"
static const EvalW *get_eval(PyObject *obj);
/* The solver orders by the evaluation from this many empties (fewer: reply count only;
 * engine/reversi/endgame/solver.py EVAL_ORDER_EMPTIES, measured). */
#define EV_ORDER_MIN 14

/* Solver set-up shared by both representations. */
#define SOLVE_SETUP(PFX, VALID)                                                     \
    PFX##_ctx c;                                                                    \
    memset(&c, 0, sizeof c);                                                        \
    c.valid = VALID;                                                                \
    c.area = n * n;                                                                 \
    c.shallow = shallow;                                                            \
    c.max_nodes = max_nodes ? max_nodes : UINT64_MAX;                               \
    c.deadline = deadline;                                                          \
    c.tt_min = tt_min;                                                              \
    c.ev = ev;                                                                      \
    c.ev_min = ev_min;

static PyObject *py_solve(PyObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"n", "black", "white", "to_move", "exact", "max_nodes", "deadline",
                             "tt_bits", "shallow", "ev", "ev_min", "guess", NULL};
    int n, to_move, exact = 1, tt_bits = -1, shallow = 6, ev_min = EV_ORDER_MIN, guess = 0;
    unsigned long long max_nodes = 0;
    double deadline = 0.0;
    PyObject *black, *white, *evobj = Py_None;
    Pos pos;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iOOi|pKdiiOii", kwlist, &n, &black, &white, &to_move,
                                     &exact, &max_nodes, &deadline, &tt_bits, &shallow, &evobj, &ev_min,
                                     &guess))
        return NULL;
    if (read_pos(n, black, white, to_move, &pos) < 0) return NULL;
    const EvalW *ev = NULL;
    if (evobj != Py_None) {
        ev = get_eval(evobj);
        if (!ev) return NULL;
        if (n != 8) ev = NULL; /* the evaluation is for 8x8 only */
    }
    if (shallow < 1 || shallow > 12) shallow = 6;
    int empties;
    if (pos.wide)
        empties = n * n - b256_pop(pos.p256) - b256_pop(pos.o256);
    else
        empties = n * n - __builtin_popcountll(pos.p64) - __builtin_popcountll(pos.o64);
    if (empties > 64) {
        PyErr_SetString(PyExc_ValueError, "the solver takes positions with at most 64 empty squares");
        return NULL;
    }
    /* The table pays for itself only on longer solves: its allocation alone costs more
     * than a whole 12-empty solve. */
    if (tt_bits < 0) tt_bits = empties >= 16 ? 20 : empties >= 14 ? 16 : 0;
    if (tt_bits > 26) tt_bits = 26;
    int tt_min = 7;
    int alpha = exact ? -1000 : -1, beta = exact ? 1000 : 1;
    int value = 0, best = -1, aborted = 0;
    uint64_t nodes = 0;
    void *tt = NULL;
    if (tt_bits > 0) {
        size_t esize = pos.wide ? sizeof(k256_tt_entry) : sizeof(k64_tt_entry);
        tt = calloc((size_t)1 << tt_bits, esize);
        if (!tt) return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    if (pos.wide) {
        SOLVE_SETUP(k256, valid256(n))
        int h = n / 2;
        for (int q = 0; q < 4; q++) {
            b256 m = {{0, 0, 0, 0}};
            for (int r = 0; r < n; r++)
                for (int col = 0; col < n; col++)
                    if ((r >= h) * 2 + (col >= h) == q) m = b256_or(m, b256_bit(r * 16 + col));
            c.quad[q] = m;
        }
        c.corners = b256_or(b256_or(b256_bit(0), b256_bit(n - 1)),
                            b256_or(b256_bit((n - 1) * 16), b256_bit((n - 1) * 16 + n - 1)));
        c.tt = tt;
        c.tt_mask = tt ? ((uint64_t)1 << tt_bits) - 1 : 0;
        value = exact ? k256_exact(&c, pos.p256, pos.o256, guess, &best) : k256_root(&c, pos.p256, pos.o256, alpha, beta, &best);
        nodes = c.nodes;
        aborted = c.aborted;
    } else {
        uint64_t quad[4] = {0, 0, 0, 0}, corners;
        int h = n / 2;
        for (int r = 0; r < n; r++)
            for (int col = 0; col < n; col++) quad[(r >= h) * 2 + (col >= h)] |= 1ULL << (r * 8 + col);
        corners = (1ULL << 0) | (1ULL << (n - 1)) | (1ULL << ((n - 1) * 8)) | (1ULL << ((n - 1) * 8 + n - 1));
#ifdef HAVE_POPCNT_BUILD
        if (use_popcnt) {
            SOLVE_SETUP(k64p, valid64(n))
            memcpy(c.quad, quad, sizeof quad);
            c.corners = corners;
            c.tt = tt;
            c.tt_mask = tt ? ((uint64_t)1 << tt_bits) - 1 : 0;
            value = exact ? k64p_exact(&c, pos.p64, pos.o64, guess, &best) : k64p_root(&c, pos.p64, pos.o64, alpha, beta, &best);
            nodes = c.nodes;
            aborted = c.aborted;
        } else
#endif
        {
            SOLVE_SETUP(k64, valid64(n))
            memcpy(c.quad, quad, sizeof quad);
            c.corners = corners;
            c.tt = tt;
            c.tt_mask = tt ? ((uint64_t)1 << tt_bits) - 1 : 0;
            value = exact ? k64_exact(&c, pos.p64, pos.o64, guess, &best) : k64_root(&c, pos.p64, pos.o64, alpha, beta, &best);
            nodes = c.nodes;
            aborted = c.aborted;
        }
    }
    Py_END_ALLOW_THREADS
    free(tt);
    int move = best == -1 ? -1 : best == -2 ? n * n : layout_to_move(best, n);
    if (!exact && !aborted) value = value > 0 ? 1 : value < 0 ? -1 : 0;
    return Py_BuildValue("iiKO", aborted ? 0 : value, aborted ? -1 : move, (unsigned long long)nodes,
                         aborted ? Py_False : Py_True);
}

/* ----------------------------------------------------------------------------------- */
/* The pattern evaluation: weights in a capsule, evaluation, fixed-depth search. */

static void eval_free(PyObject *cap) {
    EvalW *e = PyCapsule_GetPointer(cap, EVAL_CAPSULE);
    if (e) {
        free(e->w);
        free(e);
    }
}

static const EvalW *get_eval(PyObject *obj) {
    return PyCapsule_GetPointer(obj, EVAL_CAPSULE);
}

static PyObject *py_eval_load(PyObject *self, PyObject *args) {
    Py_buffer buf;
    int phases, size, width;
    PyObject *inst;
    if (!PyArg_ParseTuple(args, "y*iiiO", &buf, &phases, &size, &width, &inst)) return NULL;
    PyObject *seq = PySequence_Fast(inst, "instances must be a sequence of (offset, squares)");
    if (!seq) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    EvalW *e = calloc(1, sizeof(EvalW));
    Py_ssize_t ni = PySequence_Fast_GET_SIZE(seq);
    int ok = e != NULL && phases > 0 && size > 3 && width > 0 && ni <= EV_MAXINST &&
             buf.len == (Py_ssize_t)phases * size * (Py_ssize_t)sizeof(int16_t);
    if (ok) {
        e->phases = phases;
        e->size = size;
        e->width = width;
        e->ninst = (int)ni;
        for (Py_ssize_t k = 0; k < ni && ok; k++) {
            PyObject *sq;
            int off;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "iO", &off, &sq)) { ok = 0; break; }
            PyObject *sqs = PySequence_Fast(sq, "squares must be a sequence");
            if (!sqs) { ok = 0; break; }
            Py_ssize_t len = PySequence_Fast_GET_SIZE(sqs);
            int pw = 1;
            for (Py_ssize_t j = 0; j < len; j++) pw *= 3;
            ok = len <= EV_MAXLEN && off >= 0 && off + pw <= size - 3;
            for (Py_ssize_t j = 0; j < len && ok; j++) {
                long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(sqs, j));
                ok = v >= 0 && v < 64;
                e->sq[k][j] = (int8_t)v;
            }
            e->off[k] = off;
            e->len[k] = (int)len;
            Py_DECREF(sqs);
        }
    }
    if (ok) ev_prepare(e); /* the evaluation's per-nibble tables (_reversi_eval.h) */
    if (ok) {
        e->w = malloc((size_t)buf.len);
        ok = e->w != NULL;
        if (ok) memcpy(e->w, buf.buf, (size_t)buf.len);
    }
    PyBuffer_Release(&buf);
    Py_DECREF(seq);
    if (!ok) {
        if (e) free(e->w);
        free(e);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "weights and instances do not fit");
        return NULL;
    }
    PyObject *cap = PyCapsule_New(e, EVAL_CAPSULE, eval_free);
    if (!cap) {
        free(e->w);
        free(e);
    }
    return cap;
}

static int read64(PyObject *v, uint64_t *out) {
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

#ifdef HAVE_POPCNT_BUILD
#define EV_CALL(fn, ...) (use_popcnt ? k64p_##fn(__VA_ARGS__) : k64_##fn(__VA_ARGS__))
#else
#define EV_CALL(fn, ...) k64_##fn(__VA_ARGS__)
#endif

static int ev_search(const EvalW *ev, uint64_t P, uint64_t O, int depth, int *best, uint64_t *nodes) {
    int v;
    *best = -1; /* no killer at the root */
#ifdef HAVE_POPCNT_BUILD
    if (use_popcnt) {
        k64p_mid_ctx c = {ev, 0};
        v = k64p_mid(&c, P, O, -1000000, 1000000, depth, best);
        *nodes += c.nodes;
        return v;
    }
#endif
    k64_mid_ctx c = {ev, 0};
    v = k64_mid(&c, P, O, -1000000, 1000000, depth, best);
    *nodes += c.nodes;
    return v;
}

static PyObject *py_evaluate(PyObject *self, PyObject *args) {
    PyObject *cap, *po, *oo;
    uint64_t P, O;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &po, &oo)) return NULL;
    const EvalW *ev = get_eval(cap);
    if (!ev || read64(po, &P) < 0 || read64(oo, &O) < 0) return NULL;
    return PyLong_FromLong(EV_CALL(eval, ev, P, O));
}

static PyObject *py_eval_search(PyObject *self, PyObject *args) {
    PyObject *cap, *po, *oo;
    uint64_t P, O, nodes = 0;
    int depth, best = -1, v;
    if (!PyArg_ParseTuple(args, "OOOi", &cap, &po, &oo, &depth)) return NULL;
    const EvalW *ev = get_eval(cap);
    if (!ev || read64(po, &P) < 0 || read64(oo, &O) < 0) return NULL;
    if (depth < 0 || depth > 20) {
        PyErr_SetString(PyExc_ValueError, "depth must be 0..20");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    v = ev_search(ev, P, O, depth, &best, &nodes);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("iiK", v, best == -2 ? 64 : best, (unsigned long long)nodes);
}

/* Values of many leaves (black, white, to_move), each for its side to move, searched to
 * `depth` plies (0: the evaluation itself). */
static PyObject *py_eval_leaves(PyObject *self, PyObject *args) {
    PyObject *cap, *leaves;
    int depth;
    if (!PyArg_ParseTuple(args, "OOi", &cap, &leaves, &depth)) return NULL;
    const EvalW *ev = get_eval(cap);
    if (!ev) return NULL;
    if (depth < 0 || depth > 20) {
        PyErr_SetString(PyExc_ValueError, "depth must be 0..20");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(leaves, "leaves must be a sequence of (black, white, to_move)");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    uint64_t *pp = malloc(sizeof(uint64_t) * 2 * (size_t)(m + 1));
    int *val = malloc(sizeof(int) * (size_t)(m + 1));
    if (!pp || !val) {
        free(pp);
        free(val);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *b, *w;
        int tm;
        uint64_t B, W;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OOi", &b, &w, &tm) || read64(b, &B) < 0 ||
            read64(w, &W) < 0) {
            free(pp);
            free(val);
            Py_DECREF(seq);
            return NULL;
        }
        pp[2 * i] = tm == 1 ? B : W;
        pp[2 * i + 1] = tm == 1 ? W : B;
    }
    Py_DECREF(seq);
    uint64_t nodes = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        int best;
        val[i] = depth == 0 ? EV_CALL(eval, ev, pp[2 * i], pp[2 * i + 1])
                            : ev_search(ev, pp[2 * i], pp[2 * i + 1], depth, &best, &nodes);
    }
    Py_END_ALLOW_THREADS
    PyObject *list = PyList_New(m);
    if (list) {
        for (Py_ssize_t i = 0; i < m; i++) {
            PyObject *v = PyLong_FromLong(val[i]);
            if (!v) { Py_CLEAR(list); break; }
            PyList_SET_ITEM(list, i, v);
        }
    }
    free(pp);
    free(val);
    return list;
}

/* Every legal move of P with its value for P: the child searched to depth - 1 plies. */
static PyObject *py_eval_moves(PyObject *self, PyObject *args) {
    PyObject *cap, *po, *oo;
    uint64_t P, O, nodes = 0;
    int depth;
    if (!PyArg_ParseTuple(args, "OOOi", &cap, &po, &oo, &depth)) return NULL;
    const EvalW *ev = get_eval(cap);
    if (!ev || read64(po, &P) < 0 || read64(oo, &O) < 0) return NULL;
    if (depth < 1 || depth > 20) {
        PyErr_SetString(PyExc_ValueError, "depth must be 1..20");
        return NULL;
    }
    uint64_t m = k64_moves(P, O, ~0ULL);
    int sqs[64], vals[64], n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (m) {
        int sq = __builtin_ctzll(m), best;
        m &= m - 1;
        uint64_t x = 1ULL << sq, f = k64_flips(P, O, x);
        sqs[n] = sq;
        vals[n++] = -ev_search(ev, O ^ f, P | f | x, depth - 1, &best, &nodes);
    }
    Py_END_ALLOW_THREADS
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("ii", sqs[i], vals[i]);
        if (!t) { Py_CLEAR(list); break; }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

/* ----------------------------------------------------------------------------------- */
/* The 8x8 search tree with pattern leaves (engine/reversi/tree/native.py). */

#include "_reversi_tree.h"

/* ----------------------------------------------------------------------------------- */
/* The bench's yardstick: a plain C random-playout loop from the 8x8 start, written the
 * obvious way (a loop per direction for the moves, a walk per direction for the flips,
 * xorshift and a modulo for the choice), independent of the kernel above. */

static const int REF_DIRS[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};

static uint64_t ref_shift(uint64_t b, int dr, int dc) {
    const uint64_t not_a = 0xFEFEFEFEFEFEFEFEULL, not_h = 0x7F7F7F7F7F7F7F7FULL;
    if (dc == 1) b = (b << 1) & not_a;
    if (dc == -1) b = (b >> 1) & not_h;
    if (dr == 1) b <<= 8;
    if (dr == -1) b >>= 8;
    return b;
}

static uint64_t ref_moves(uint64_t p, uint64_t o) {
    uint64_t empty = ~(p | o), moves = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t t = ref_shift(p, REF_DIRS[d][0], REF_DIRS[d][1]) & o;
        for (int i = 0; i < 5; i++) t |= ref_shift(t, REF_DIRS[d][0], REF_DIRS[d][1]) & o;
        moves |= ref_shift(t, REF_DIRS[d][0], REF_DIRS[d][1]) & empty;
    }
    return moves;
}

static uint64_t ref_flips(uint64_t p, uint64_t o, int sq) {
    uint64_t flips = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t run = 0, t = ref_shift(1ULL << sq, REF_DIRS[d][0], REF_DIRS[d][1]);
        while (t & o) {
            run |= t;
            t = ref_shift(t, REF_DIRS[d][0], REF_DIRS[d][1]);
        }
        if (t & p) flips |= run;
    }
    return flips;
}

static PyObject *py_reference_playouts(PyObject *self, PyObject *args) {
    long long count;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "LK", &count, &seed)) return NULL;
    if (count < 0 || count > MAX_PLAYOUTS) {
        PyErr_SetString(PyExc_ValueError, "playout count out of range");
        return NULL;
    }
    long long black = 0, white = 0;
    uint64_t x = seed | 1;
    Py_BEGIN_ALLOW_THREADS
    for (long long g = 0; g < count; g++) {
        uint64_t p = 0x0000000810000000ULL, o = 0x0000001008000000ULL; /* black to move */
        int side = 0, passes = 0;
        while (passes < 2) {
            uint64_t m = ref_moves(p, o);
            if (!m) {
                passes++;
            } else {
                passes = 0;
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                int k = (int)(x % (uint64_t)__builtin_popcountll(m));
                while (k--) m &= m - 1;
                int sq = __builtin_ctzll(m);
                uint64_t f = ref_flips(p, o, sq);
                p |= f | (1ULL << sq);
                o &= ~f;
            }
            uint64_t t = p; p = o; o = t;
            side ^= 1;
        }
        int d = __builtin_popcountll(p) - __builtin_popcountll(o);
        if (side) d = -d; /* p is black again when side == 0 */
        black += d > 0;
        white += d < 0;
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("LLL", black, white, count - black - white);
}

static PyObject *py_popcnt(PyObject *self, PyObject *noargs) {
    return PyBool_FromLong(use_popcnt);
}

static PyMethodDef methods[] = {
    {"perft", py_perft, METH_VARARGS,
     "perft(n, black, white, to_move, depth) -> leaves (passes are moves; an ended game is one "
     "leaf at every later depth)"},
    {"playouts", py_playouts, METH_VARARGS,
     "playouts(n, black, white, to_move, count, seed) -> (wins, draws, losses) of the side to move"},
    {"playout_scores", py_playout_scores, METH_VARARGS,
     "playout_scores(n, black, white, to_move, count, seed) -> final disc differentials for the side "
     "to move, one a game"},
    {"playouts_many", py_playouts_many, METH_VARARGS,
     "playouts_many(n, leaves, count, seed) -> the mean score (1 win, 0.5 draw) for each leaf's side "
     "to move; leaves: (black, white, to_move) tuples"},
    {"solve", (PyCFunction)(void (*)(void))py_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(n, black, white, to_move, exact=True, max_nodes=0, deadline=0.0, tt_bits=-1, shallow=6, ev=None, "
     "ev_min=14, guess=0) "
     "-> (value, move, nodes, complete): value the final disc differential for the side to move with "
     "best play (exact=False: its sign only), move the best move (n*n a pass, -1 game over), complete "
     "False when max_nodes or the deadline (time.monotonic() seconds) stopped it; ev an evaluation "
     "(eval_load) that orders the moves from ev_min empties (8x8), guess where the exact search starts "
     "its null-window passes (MTD(f), with the transposition table from 14 empties)"},
    {"reference_playouts", py_reference_playouts, METH_VARARGS,
     "reference_playouts(count, seed) -> (black wins, white wins, draws): the bench's plain C loop "
     "from the 8x8 start"},
    {"eval_load", py_eval_load, METH_VARARGS,
     "eval_load(weights, phases, size, width, instances) -> the evaluation (a capsule): weights the "
     "int16 bytes of a (phases, size) table, instances (offset, squares) pairs (engine/reversi/evaluation/patterns.py)"},
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(ev, p, o) -> the evaluation of p to move against o (8x8 bitboards), 1/128 discs"},
    {"eval_search", py_eval_search, METH_VARARGS,
     "eval_search(ev, p, o, depth) -> (value, best move (64 a pass, -1 game over), nodes): alpha-beta "
     "to depth plies, a pass not counted"},
    {"eval_leaves", py_eval_leaves, METH_VARARGS,
     "eval_leaves(ev, leaves, depth) -> each (black, white, to_move) leaf's value for its side to move, "
     "searched to depth plies (0: the evaluation)"},
    {"eval_moves", py_eval_moves, METH_VARARGS,
     "eval_moves(ev, p, o, depth) -> [(move, value for p)] of every legal move, each child searched to "
     "depth - 1 plies"},
    {"popcnt", py_popcnt, METH_NOARGS, "popcnt() -> whether the POPCNT build of the 8x8 kernel runs"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_reversicore", "The Reversi kernel in C: perft, random playouts, endgame solver.",
    -1, methods,
};

PyMODINIT_FUNC PyInit__reversicore(void) {
#ifdef HAVE_POPCNT_BUILD
    __builtin_cpu_init();
    use_popcnt = __builtin_cpu_supports("popcnt");
#endif
    if (PyType_Ready(&RtTreeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&RtTreeType);
    if (PyModule_AddObject(m, "Tree", (PyObject *)&RtTreeType) < 0) {
        Py_DECREF(&RtTreeType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
