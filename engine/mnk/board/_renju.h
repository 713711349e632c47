/*
 * Renju's forbidden points for black, in C: the same definitions as engine/mnk/board/renju.py
 * (the reference; tests/test_renju_native.py checks that both name the same reason on
 * thousands of random positions).  Included by _threatcore.c.
 *
 * Cells are the padded board of engine/mnk/board/rules.py (0 empty, 1 black, 2 white, 3 off the
 * board or blocked); `dirs` the four padded steps.  The functions set and clear stones in
 * `cells` and leave it as they found it.
 *
 * Reasons: RJ_ALLOWED (0), RJ_OVERLINE (1), RJ_DOUBLE_FOUR (2), RJ_DOUBLE_THREE (3), in
 * the order of renju.REASONS.
 */
#ifndef MNK_RENJU_H
#define MNK_RENJU_H

enum { RJ_ALLOWED = 0, RJ_OVERLINE = 1, RJ_DOUBLE_FOUR = 2, RJ_DOUBLE_THREE = 3 };
enum { RJ_EMPTY = 0, RJ_BLACK = 1 };

/* Length of black's run through the black stone at c along d; *lo and *hi get the cells
 * just beyond its ends. */
static int rj_run(const signed char *cells, int c, int d, int *lo, int *hi) {
    int a = c - d, b = c + d;
    while (cells[a] == RJ_BLACK) a -= d;
    while (cells[b] == RJ_BLACK) b += d;
    *lo = a;
    *hi = b;
    return (b - a) / d - 1;
}

/* How many fours the black stone m is part of along d: each empty cell next to m's run
 * that makes exactly five is a completion; the two completions of a straight four (five
 * cells apart) are one four. */
static int rj_fours_on_line(signed char *cells, int m, int d) {
    int lo, hi, a, b, n = 0, first = 0, second = 0;
    rj_run(cells, m, d, &lo, &hi);
    int ends[2] = {lo, hi};
    for (int i = 0; i < 2; i++) {
        int c = ends[i];
        if (cells[c] != RJ_EMPTY) continue;
        cells[c] = RJ_BLACK;
        if (rj_run(cells, c, d, &a, &b) == 5) {
            if (n == 0) first = c; else second = c;
            n++;
        }
        cells[c] = RJ_EMPTY;
    }
    if (n == 2 && second - first == 5 * d) return 1;
    return n;
}

/* Is the black stone m part of a straight four along d? */
static int rj_straight_four(const signed char *cells, int m, int d) {
    int lo, hi;
    if (rj_run(cells, m, d, &lo, &hi) != 4) return 0;
    return cells[lo] == RJ_EMPTY && cells[hi] == RJ_EMPTY && cells[lo - d] != RJ_BLACK &&
           cells[hi + d] != RJ_BLACK;
}

static int rj_reason(signed char *cells, int m, const int *dirs);

/* Is there a three through the black stone m along d: a stone next to m's run, itself not
 * forbidden (with m on the board), that makes a straight four containing m? */
static int rj_three_on_line(signed char *cells, int m, int d, const int *dirs) {
    int lo, hi;
    rj_run(cells, m, d, &lo, &hi);
    int ends[2] = {lo, hi};
    for (int i = 0; i < 2; i++) {
        int c = ends[i];
        if (cells[c] != RJ_EMPTY) continue;
        cells[c] = RJ_BLACK;
        int straight = rj_straight_four(cells, m, d);
        cells[c] = RJ_EMPTY;
        if (straight && rj_reason(cells, c, dirs) == RJ_ALLOWED) return 1;
    }
    return 0;
}

/* The reason black may not play the empty cell m (RJ_ALLOWED when it may). */
static int rj_reason(signed char *cells, int m, const int *dirs) {
    int lo, hi, longest = 0, result = RJ_ALLOWED;
    cells[m] = RJ_BLACK;
    for (int i = 0; i < 4; i++) {
        int run = rj_run(cells, m, dirs[i], &lo, &hi);
        if (run == 5) goto done; /* the five comes first */
        if (run > longest) longest = run;
    }
    if (longest > 5) {
        result = RJ_OVERLINE;
        goto done;
    }
    int fours = 0, has_four[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        int n = rj_fours_on_line(cells, m, dirs[i]);
        has_four[i] = n > 0;
        fours += n;
    }
    if (fours >= 2) {
        result = RJ_DOUBLE_FOUR;
        goto done;
    }
    int threes = 0;
    for (int i = 0; i < 4 && threes < 2; i++)
        if (!has_four[i] && rj_three_on_line(cells, m, dirs[i], dirs)) threes++;
    if (threes >= 2) result = RJ_DOUBLE_THREE;
done:
    cells[m] = RJ_EMPTY;
    return result;
}

/* A cheap necessary condition (renju.may_be_forbidden): enough black stones near m on its
 * lines for some forbidden shape. */
static int rj_may_be_forbidden(const signed char *cells, int m, const int *dirs) {
    int lines = 0;
    for (int i = 0; i < 4; i++) {
        int near = 0;
        for (int s = -1; s <= 1; s += 2) {
            int step = s * dirs[i], c = m;
            for (int k = 0; k < 5; k++) {
                c += step;
                if (cells[c] == RJ_BLACK) near++;
                else if (cells[c] != RJ_EMPTY) break;
            }
        }
        if (near >= 4) return 1;
        if (near >= 2 && ++lines >= 2) return 1;
    }
    return 0;
}

/* renju.forbidden_reason: the reason for the empty cell m, the cheap test first. */
static int rj_forbidden(signed char *cells, int m, const int *dirs) {
    if (cells[m] != RJ_EMPTY || !rj_may_be_forbidden(cells, m, dirs)) return RJ_ALLOWED;
    return rj_reason(cells, m, dirs);
}

#endif
