/*
 * engine.mnk._threatcore: the VCF/VCT solver of engine/mnk/threats/solver.py, in C.
 *
 * The threat solver is where guided search spends most of its time (about two
 * thirds of a middle-game search under the profiler), and in Python it reaches
 * some 40,000 solver nodes a second.  This module runs the same search -- the
 * same candidate order, the same node counting, the same transposition sets
 * keyed by the same Zobrist hashes -- so for a given node budget it returns
 * exactly the line the Python solver returns (tests/test_threatcore.py checks
 * this on thousands of positions).  Freestyle with K >= 4 and renju are
 * handled here; the other rules stay on the Python path, which remains the
 * reference and the fallback when this extension was not built.
 *
 * Vocabulary as in engine/mnk/threats/kinds.py.  Cells are padded indices; a window is
 * K consecutive on-board cells; hot[p] holds the windows with no opponent
 * stone and at least K-2 stones of p (the only windows fours live in).
 *
 * The solver touches no Python object between reading its arguments and
 * building its answer, so it runs with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#define MAX_DEPTH 120 /* threats.MAX_VCF_DEPTH */

/* ------------------------------------------------------------------------ */
/* Geometry: the window tables of one board configuration (a Python object). */

typedef struct {
    PyObject_HEAD
    int npad;       /* padded cells */
    int k;          /* win length */
    int nwin;       /* windows */
    int *win;       /* nwin * k padded cells, in line order */
    int *cw_start;  /* npad + 1 offsets into cw */
    int *cw;        /* window ids through each cell */
    uint64_t *zob;  /* 2 keys per padded cell */
    int renju;      /* black wins with exactly five and may not play its forbidden points */
    int dirs[4];    /* the four padded steps (renju's line walks) */
    int margin;     /* off-board cells kept before and after a state's padded cells */
    /* Runs (see geom_number_lines): the windows through cell c in its i-th direction are
     * the ids run_w[4c+i] .. run_w[4c+i] + run_n[4c+i] - 1.  runs is 0 where they are not
     * (built with runs=False, more than four directions or K > RUN_MAX: place and take then
     * walk cw). */
    int runs;
    int *run_w;
    unsigned char *run_n;
} GeomObject;

/* Most windows a run may hold: one 128-bit vector of 16-bit counts. */
#define RUN_MAX 8

static void geom_dealloc(GeomObject *g) {
    free(g->win);
    free(g->cw_start);
    free(g->cw);
    free(g->zob);
    free(g->run_w);
    free(g->run_n);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

/* Number the windows line by line: the windows of one line in one direction, in order
 * along it, get consecutive ids, so the windows through a cell in one direction are one
 * run of ids, which place and take update as one vector.  Nothing depends on which id a
 * window gets: every reader of the window tables sorts what it collects.  `win` holds the
 * windows as given and is rewritten in the new order; g->runs is set when the runs hold
 * (the caller has set it to 0).  Returns -1 when out of memory. */
static int geom_number_lines(GeomObject *g, int *win) {
    int k = g->k, nwin = g->nwin, npad = g->npad, steps[4], nsteps = 0;
    if (k > RUN_MAX || nwin == 0) return 0;
    for (int w = 0; w < nwin; w++) {
        int step = win[w * k + 1] - win[w * k], d = 0;
        while (d < nsteps && steps[d] != step) d++;
        if (d == nsteps) {
            if (nsteps == 4) return 0;
            steps[nsteps++] = step;
        }
    }
    int *first = malloc(sizeof(int) * 4 * (size_t)npad);   /* [d * npad + cell]: the window starting there */
    int *dir = malloc(sizeof(int) * (size_t)nwin);
    int *order = malloc(sizeof(int) * (size_t)nwin);       /* old ids in the new order */
    unsigned char *seen = calloc((size_t)nwin, 1);
    int *copy = malloc(sizeof(int) * (size_t)nwin * (size_t)k);
    g->run_w = calloc(4 * (size_t)npad, sizeof(int));
    g->run_n = calloc(4 * (size_t)npad, 1);
    int n = 0, ok = 1;
    if (!first || !dir || !order || !seen || !copy || !g->run_w || !g->run_n) {
        free(first); free(dir); free(order); free(seen); free(copy);
        return -1;
    }
    for (int i = 0; i < 4 * npad; i++) first[i] = -1;
    for (int w = 0; w < nwin; w++) {
        int step = win[w * k + 1] - win[w * k], d = 0;
        while (steps[d] != step) d++;
        dir[w] = d;
        first[d * npad + win[w * k]] = w;
    }
    /* A line starts at a window with no window one step before it. */
    for (int w = 0; w < nwin && ok; w++) {
        int d = dir[w], before = win[w * k] - steps[d];
        if (before >= 0 && before < npad && first[d * npad + before] >= 0) continue;
        for (int x = w; x >= 0 && ok;) {
            if (seen[x]) { ok = 0; break; }  /* repeated windows: no lines to number by */
            seen[x] = 1;
            order[n++] = x;
            int next = win[x * k] + steps[d];
            x = next >= 0 && next < npad ? first[d * npad + next] : -1;
        }
    }
    if (ok && n == nwin) {
        memcpy(copy, win, sizeof(int) * (size_t)nwin * (size_t)k);
        for (int i = 0; i < nwin; i++)
            memcpy(win + (size_t)i * k, copy + (size_t)order[i] * k, sizeof(int) * (size_t)k);
        /* Each cell's windows, direction by direction: consecutive ids (checked, not assumed). */
        for (int w = 0; w < nwin && ok; w++) {
            int d = dir[order[w]];
            for (int j = 0; j < k && ok; j++) {
                int c = win[w * k + j];
                if (!g->run_n[4 * c + d]) g->run_w[4 * c + d] = w;
                else if (g->run_w[4 * c + d] + g->run_n[4 * c + d] != w) ok = 0;
                g->run_n[4 * c + d]++;
            }
        }
        g->runs = ok;
    }
    free(first); free(dir); free(order); free(seen); free(copy);
    return 0;
}

static int geom_init(GeomObject *g, PyObject *args, PyObject *kwds) {
    int npad, k, renju = 0, runs = 1;
    int dirs[4] = {0, 0, 0, 0};
    PyObject *windows, *zobrist;
    static char *kwlist[] = {"npad", "k", "windows", "zobrist", "renju", "directions", "runs", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOO|p(iiii)p", kwlist, &npad, &k, &windows, &zobrist,
                                     &renju, &dirs[0], &dirs[1], &dirs[2], &dirs[3], &runs))
        return -1;
    int margin = 1;
    for (int i = 0; i < 4; i++) {
        if (dirs[i] < 0 || dirs[i] >= npad || (renju && dirs[i] == 0)) {
            PyErr_SetString(PyExc_ValueError, "renju needs the four positive padded steps");
            return -1;
        }
        if (dirs[i] + 1 > margin) margin = dirs[i] + 1;
    }
    if (renju && k != 5) {
        PyErr_SetString(PyExc_ValueError, "renju is played with five in a row");
        return -1;
    }
    PyObject *wseq = PySequence_Fast(windows, "windows must be a sequence");
    if (!wseq) return -1;
    PyObject *zseq = PySequence_Fast(zobrist, "zobrist must be a sequence");
    if (!zseq) { Py_DECREF(wseq); return -1; }
    Py_ssize_t nwin = PySequence_Fast_GET_SIZE(wseq);
    /* four_edges packs two cells into one int (cell << 16 | cell): cells must fit 16 bits
     * (the rules allow 64x64 boards, 4,356 padded cells). */
    if (npad <= 0 || npad > 0xFFFF || k < 2 || PySequence_Fast_GET_SIZE(zseq) != npad) {
        PyErr_SetString(PyExc_ValueError, "bad geometry sizes");
        goto fail;
    }
    g->npad = npad;
    g->k = k;
    g->nwin = (int)nwin;
    g->renju = renju;
    memcpy(g->dirs, dirs, sizeof dirs);
    /* A step back from the first row's first cell lands before the padded list (Python reads
     * its last cell there, a border cell too): the states keep border cells on both sides. */
    g->margin = margin;
    g->win = malloc(sizeof(int) * (size_t)(nwin * k + 1));
    g->cw_start = calloc((size_t)npad + 1, sizeof(int));
    g->cw = malloc(sizeof(int) * (size_t)(nwin * k + 1));
    g->zob = malloc(sizeof(uint64_t) * 2 * (size_t)npad);
    if (!g->win || !g->cw_start || !g->cw || !g->zob) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t w = 0; w < nwin; w++) {
        PyObject *cells = PySequence_Fast(PySequence_Fast_GET_ITEM(wseq, w), "window must be a sequence");
        if (!cells) goto fail;
        if (PySequence_Fast_GET_SIZE(cells) != k) {
            Py_DECREF(cells);
            PyErr_SetString(PyExc_ValueError, "window of the wrong length");
            goto fail;
        }
        for (int j = 0; j < k; j++) {
            long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(cells, j));
            if (c < 0 || c >= npad) {
                Py_DECREF(cells);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "window cell out of range");
                goto fail;
            }
            g->win[w * k + j] = (int)c;
            g->cw_start[c + 1]++;
        }
        Py_DECREF(cells);
    }
    for (int c = 0; c < npad; c++) g->cw_start[c + 1] += g->cw_start[c];
    g->runs = 0;
    if (runs && geom_number_lines(g, g->win) < 0) { PyErr_NoMemory(); goto fail; }
    {
        int *fill = malloc(sizeof(int) * (size_t)npad);
        if (!fill) { PyErr_NoMemory(); goto fail; }
        memcpy(fill, g->cw_start, sizeof(int) * (size_t)npad);
        /* Window ids ascending per cell. */
        for (int w = 0; w < nwin; w++)
            for (int j = 0; j < k; j++) g->cw[fill[g->win[w * k + j]]++] = w;
        free(fill);
    }
    for (int c = 0; c < npad; c++) {
        PyObject *pair = PySequence_Fast(PySequence_Fast_GET_ITEM(zseq, c), "zobrist entry must be a pair");
        if (!pair) goto fail;
        if (PySequence_Fast_GET_SIZE(pair) != 2) {
            Py_DECREF(pair);
            PyErr_SetString(PyExc_ValueError, "zobrist entry must be a pair");
            goto fail;
        }
        for (int j = 0; j < 2; j++) {
            unsigned long long z = PyLong_AsUnsignedLongLongMask(PySequence_Fast_GET_ITEM(pair, j));
            if (PyErr_Occurred()) { Py_DECREF(pair); goto fail; }
            g->zob[2 * c + j] = (uint64_t)z;
        }
        Py_DECREF(pair);
    }
    Py_DECREF(wseq);
    Py_DECREF(zseq);
    return 0;
fail:
    Py_DECREF(wseq);
    Py_DECREF(zseq);
    return -1;
}

static PyMemberDef geom_members[] = {
    {"runs", T_INT, offsetof(GeomObject, runs), READONLY, "1 when stones update the window counts a line at a time"},
    {NULL},
};

static PyTypeObject GeomType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.mnk._threatcore.Geometry",
    .tp_doc = "Geometry(npad, k, windows, zobrist, renju=False, directions=(0, 0, 0, 0), runs=True): window\n"
              "tables of one board configuration; under renju the four padded steps are needed.  With runs\n"
              "(and K <= 8) the windows are numbered line by line and a stone updates its windows'\n"
              "counts a line at a time; the attribute runs says whether that is so.",
    .tp_members = geom_members,
    .tp_basicsize = sizeof(GeomObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)geom_init,
    .tp_dealloc = (destructor)geom_dealloc,
};

#include "board/_renju.h"
#include "threats/_solver.h"
#include "threats/_pns.h"
#include "tree/_tree.h"
#include "tree/_tree_knowledge.h"
#include "tree/_tree_search.h"
#include "tree/_tree_module.h"

/* ------------------------------------------------------------------------ */
/* Python entry point.                                                       */

PyDoc_STRVAR(solve_doc,
"solve(geometry, cells, attacker, max_nodes, seconds, threes, search) -> (status, line)\n\n"
"Threat search (freestyle, or renju when the geometry says so) on the padded `cells` (not\n"
"modified) for `attacker` (1 or 2) to move.\n"
"threes < 0: VCF (solver._vcf); otherwise VCT with up to that many threes, `search` being\n"
"0 depth first (solver._vct), 1 deepening (1, 2, ... threes) or 2 by proof numbers (solver._pns).\n"
"`seconds`: time left, or None.  status 1: won, line = padded cells; 0: no win found;\n"
"-1: budget spent.");

static PyObject *solve(PyObject *self, PyObject *args) {
    PyObject *geom_obj, *cells_obj, *seconds_obj;
    int attacker, threes, search;
    long long max_nodes;
    if (!PyArg_ParseTuple(args, "O!OiLOii", &GeomType, &geom_obj, &cells_obj, &attacker, &max_nodes,
                          &seconds_obj, &threes, &search))
        return NULL;
    GeomObject *g = (GeomObject *)geom_obj;
    if (attacker != 1 && attacker != 2) {
        PyErr_SetString(PyExc_ValueError, "attacker must be 1 or 2");
        return NULL;
    }
    if (search < SEARCH_DEPTH_FIRST || search > SEARCH_BEST_FIRST) {
        PyErr_SetString(PyExc_ValueError, "search must be 0, 1 or 2");
        return NULL;
    }
    if (g->k < 4) {
        PyErr_SetString(PyExc_ValueError, "the native solver needs K >= 4");
        return NULL;
    }
    double seconds = -1;
    if (seconds_obj != Py_None) {
        seconds = PyFloat_AsDouble(seconds_obj);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
        if (seconds < 0) seconds = 0;
    }
    PyObject *seq = PySequence_Fast(cells_obj, "cells must be a sequence");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != g->npad) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "cells do not match the geometry");
        return NULL;
    }
    S s;
    memset(&s, 0, sizeof s);
    signed char *cells = malloc((size_t)g->npad);
    PyObject *result = NULL;
    if (!cells || !s_alloc(&s, g)) {
        PyErr_NoMemory();
        goto out;
    }
    for (int c = 0; c < g->npad; c++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, c));
        if (v < 0 || v > 3) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cell values must be 0..3");
            goto out;
        }
        cells[c] = (signed char)v;
    }
    s_load(&s, cells);

    Line *line = NULL;
    Py_BEGIN_ALLOW_THREADS
    s_begin(&s, max_nodes, seconds);
    line = s_run(&s, attacker, threes, search);
    Py_END_ALLOW_THREADS

    if (s.aborted == 2) {
        free(line);
        PyErr_NoMemory();
        goto out;
    }
    if (s.aborted) {
        free(line);
        result = Py_BuildValue("(iO)", -1, Py_None);
    } else if (!line) {
        result = Py_BuildValue("(iO)", 0, Py_None);
    } else {
        PyObject *tup = PyTuple_New(line->n);
        if (tup) {
            for (int i = 0; i < line->n; i++) PyTuple_SET_ITEM(tup, i, PyLong_FromLong(line->v[i]));
            result = Py_BuildValue("(iN)", 1, tup);
        }
        free(line);
    }
out:
    Py_DECREF(seq);
    free(cells);
    s_release(&s);
    return result;
}

PyDoc_STRVAR(forbidden_doc,
"forbidden(cells, targets, directions, geometry=None) -> bytes\n\n"
"Renju: the reason code of each padded cell in `targets` as black's move on the padded board\n"
"`cells` (bytes; not modified): 0 allowed (also an occupied cell), 1 overline, 2 double four,\n"
"3 double three -- engine.mnk.board.renju.forbidden_reason in C.  `directions`: the four padded steps.\n"
"With a renju `geometry` of the board, each cell is first asked of the solver's own test (its\n"
"filter by the window counts and its memory), as the search asks it.");

static PyObject *forbidden(PyObject *self, PyObject *args) {
    Py_buffer buf;
    PyObject *targets_obj;
    GeomObject *geom = NULL;
    int dirs[4];
    if (!PyArg_ParseTuple(args, "y*O(iiii)|O!", &buf, &targets_obj, &dirs[0], &dirs[1], &dirs[2], &dirs[3],
                          &GeomType, &geom))
        return NULL;
    PyObject *seq = NULL, *result = NULL;
    signed char *board = NULL;
    Py_ssize_t n = buf.len;
    int margin = 0;
    S s;
    memset(&s, 0, sizeof s);
    if (geom && (!geom->renju || geom->npad != n || geom->k != 5)) {
        PyErr_SetString(PyExc_ValueError, "the geometry is not renju's of this board");
        goto out;
    }
    for (int i = 0; i < 4; i++) {
        if (dirs[i] <= 0) {
            PyErr_SetString(PyExc_ValueError, "directions must be positive steps");
            goto out;
        }
        if (dirs[i] + 1 > margin) margin = dirs[i] + 1;
    }
    seq = PySequence_Fast(targets_obj, "targets must be a sequence");
    if (!seq) goto out;
    /* Off-board cells on both sides: a step back from the first row's first cell lands before
     * the padded list (Python reads its last cell there, a border cell too). */
    board = malloc((size_t)(n + 2 * margin));
    if (!board) {
        PyErr_NoMemory();
        goto out;
    }
    memset(board, 3, (size_t)(n + 2 * margin));
    const unsigned char *src = buf.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (src[i] > 3) {
            PyErr_SetString(PyExc_ValueError, "cell values must be 0..3");
            goto out;
        }
        board[margin + i] = (signed char)src[i];
    }
    if (geom) {
        if (!s_alloc(&s, geom)) {
            PyErr_NoMemory();
            goto out;
        }
        s_load(&s, board + margin);
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    result = PyBytes_FromStringAndSize(NULL, k);
    if (!result) goto out;
    char *codes = PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < k; i++) {
        long t = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (t == -1 && PyErr_Occurred()) {
            Py_CLEAR(result);
            goto out;
        }
        if (t < 0 || t >= n) {
            PyErr_SetString(PyExc_ValueError, "a target is off the padded board");
            Py_CLEAR(result);
            goto out;
        }
        if (geom && !s_forbidden(&s, (int)t, 1)) codes[i] = RJ_ALLOWED;
        else codes[i] = (char)rj_forbidden(board + margin, (int)t, dirs);
    }
out:
    if (geom) s_release(&s);
    Py_XDECREF(seq);
    free(board);
    PyBuffer_Release(&buf);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", solve, METH_VARARGS, solve_doc},
    {"forbidden", forbidden, METH_VARARGS, forbidden_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine.mnk._threatcore",
    "The VCF/VCT threat solver of engine.mnk.threats.solver (freestyle and renju), the guided tree and renju's forbidden points, in C (same results, same node counts).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__threatcore(void) {
    if (PyType_Ready(&GeomType) < 0 || PyType_Ready(&TreeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&GeomType);
    if (PyModule_AddObject(m, "Geometry", (PyObject *)&GeomType) < 0) {
        Py_DECREF(&GeomType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TreeType);
    if (PyModule_AddObject(m, "Tree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(&TreeType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
