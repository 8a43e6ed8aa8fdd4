/*
 * expr_regex.c - the regular-expression engine of the expression
 * language's matches(s, pattern) (docs/expressions.md, "Regular
 * expressions of matches"): a pattern compiled to a Thompson NFA and run
 * as a state-set simulation, in time O(program x subject) whatever the
 * pattern, every unit of its work counted against the evaluation's step
 * bound.  Its one entry is sdui__expr_match (expr_internal.h), called by
 * matches()'s body in expr_fn.c; it uses the evaluator's arena and step
 * count (expr_eval.c).
 *
 * A pattern is compiled per call, into the evaluation's arena, in two
 * passes, then run over the subject as a state-set simulation.
 *
 * Parse.  Recursive descent (alternation, concatenation, piece, atom)
 * builds a small tree: characters, `.`, classes, ^ and $, concatenations
 * and alternations (children in a list), and repetitions {min, max} (`*`
 * is {0,inf}, `+` {1,inf}, `?` {0,1}, and {m}, {m,}, {m,n} as written).
 * A class's ranges are sorted and merged into a table, so a character is
 * tested against it by binary search.  Each tree node knows how many
 * instructions it compiles to, computed as it is built and saturating just
 * past SDUI_EXPR_MAX_PROGRAM: a counted repetition multiplies its body, so
 * a pattern whose program would pass the bound is refused at the byte
 * where it does (the quantifier, or the piece that tips a sum over),
 * before anything is emitted.  Group nesting is bounded
 * (SDUI_EXPR_MAX_NESTING), so the recursion is.
 *
 * Emit.  The tree is walked once into a flat list of instructions (char,
 * any, class, split, jump, ^, $, match).  A repetition emits its body min
 * times, then either one loop (an unbounded max) or max - min optional
 * copies, each behind a split that jumps to the end: x{2,4} is x x (x
 * (x)?)? flattened.  Copies are emitted again from the tree, so nothing
 * is relocated.  A subtree that compiles to nothing (an empty group) is not
 * walked, so the walk does work in proportion to the program.
 *
 * Run.  Thompson's simulation over the subject's Unicode scalar values:
 * the set of live instructions advances once per character, each
 * instruction at most once per set (a generation mark), and a new thread
 * starts at every position (the match may be anywhere).  The time is
 * O(program x subject) whatever the pattern: nothing backtracks.  When no
 * thread is live and a new one could not get past the pattern's start
 * (a pattern that begins with ^), the rest of the subject is skipped but
 * for its end, where $ may still match.
 *
 * Work.  Everything is counted: the pattern's bytes, tree nodes, class
 * sorting and the emitted instructions at compile; at run, every
 * instruction reached, ε-moves (splits, jumps, ^, $) included, every
 * thread stepped and every probe of a class's binary search.  A step pays
 * for RX_UNITS of these, and each character costs a step of its own.
 */

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

/* Units of regex work (above) in one step. */
#define RX_UNITS 2

enum rx_op { RX_CHAR, RX_ANY, RX_CLASS, RX_SPLIT, RX_JMP, RX_BOL, RX_EOL,
             RX_MATCH };

/* One instruction. */
typedef struct rx_ins {
    uint8_t op;
    uint8_t neg;         /* RX_CLASS: negated */
    int32_t x, y;        /* RX_SPLIT: both targets; RX_JMP: x the target;
                            RX_CLASS: x the first range, y the count;
                            RX_CHAR: x the scalar value */
} rx_ins;

enum rx_kind { RK_EMPTY, RK_CHAR, RK_ANY, RK_CLASS, RK_BOL, RK_EOL, RK_CAT,
               RK_ALT, RK_REP };

/* One node of a pattern's tree. */
typedef struct rx_node {
    uint8_t kind;
    uint8_t neg;         /* RK_CLASS: negated */
    int32_t x, y;        /* RK_CHAR: x the scalar; RK_CLASS: x the first
                            range, y the count; RK_REP: x min, y max (-1:
                            none) */
    int32_t first;       /* RK_CAT, RK_ALT: the first child; RK_REP: the
                            body; else -1 */
    int32_t next;        /* the next sibling in a list, or -1 */
    uint32_t at;         /* the pattern byte it starts at (RK_REP: its
                            quantifier) */
    uint32_t size;       /* instructions it compiles to, at most
                            SDUI_EXPR_MAX_PROGRAM + 1 */
} rx_node;

/* One range of a class, lo <= hi. */
typedef struct rx_range {
    int32_t lo, hi;
} rx_range;

/* A pattern being compiled and run. */
typedef struct rx {
    sdui_xeval *e;
    const sdui_xnode *nd;
    const char *p;
    size_t n, pos;
    rx_node *tree;
    size_t nt, tcap;
    rx_range *ranges;
    size_t nr, rcap;
    rx_ins *code;
    size_t nc, cap;
    unsigned depth;
    const char *bad;     /* what is wrong with the pattern, or NULL */
    size_t bad_at;       /* and the byte it is at */
    unsigned long work;  /* units of compile work */
} rx;

/* Records a fault of the pattern at byte at (the first one wins);
 * returns -1. */
static int32_t rx_bad(rx *r, const char *what, size_t at)
{
    if (!r->bad) {
        r->bad = what;
        r->bad_at = at;
    }
    return -1;
}

/* A new tree node; its index, or -1. */
static int32_t rx_node_new(rx *r, int kind, size_t at, uint32_t size)
{
    rx_node *t;
    if (r->nt >= r->tcap)
        return rx_bad(r, "pattern too complex", at); /* not reached: 4 per byte */
    r->work++;
    t = &r->tree[r->nt];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->first = t->next = -1;
    t->at = (uint32_t)at;
    t->size = size;
    return (int32_t)r->nt++;
}

/* a + b, or one past the program bound when that is more. */
static uint32_t rx_sum(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s > SDUI_EXPR_MAX_PROGRAM ? SDUI_EXPR_MAX_PROGRAM + 1 : (uint32_t)s;
}

/* Adds a range lo..hi to the class table. */
static int rx_range_add(rx *r, long lo, long hi)
{
    if (r->nr >= r->rcap) {
        rx_bad(r, "pattern too complex", r->pos); /* not reached: 4 per 2 bytes */
        return 0;
    }
    r->ranges[r->nr].lo = (int32_t)lo;
    r->ranges[r->nr].hi = (int32_t)hi;
    r->nr++;
    return 1;
}

/* Adds the ranges of \d \w \s (c) to the class table. */
static int rx_shorthand(rx *r, char c)
{
    if (c == 'd') return rx_range_add(r, '0', '9');
    if (c == 's') return rx_range_add(r, ' ', ' ') && rx_range_add(r, '\t', '\r');
    return rx_range_add(r, '0', '9') && rx_range_add(r, 'A', 'Z') &&
           rx_range_add(r, 'a', 'z') && rx_range_add(r, '_', '_');
}

/* One literal character of the pattern (UTF-8) at the cursor; -1 when it
 * is not valid UTF-8. */
static long rx_char(rx *r)
{
    size_t at = r->pos;
    long cp = sdui__utf8_get(r->p, r->n, &r->pos);
    if (cp < 0)
        rx_bad(r, "invalid UTF-8 in pattern", at);
    return cp;
}

/* The order of two ranges by their low ends, for qsort. */
static int rx_range_cmp(const void *a, const void *b)
{
    const rx_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A class node over the ranges added from first on: they are sorted by
 * their low ends, and those that overlap or touch merged, so that a
 * character is tested by binary search.  Its index, or -1. */
static int32_t rx_class_node(rx *r, size_t start, size_t first, int neg)
{
    size_t m = r->nr - first, k = 0;
    int32_t t;
    if (m > 1) {
        unsigned long logm = 1;
        while ((1ul << logm) < m)
            logm++;
        r->work += m * logm;
        qsort(r->ranges + first, m, sizeof *r->ranges, rx_range_cmp);
    }
    for (size_t i = 0; i < m; i++) {
        rx_range g = r->ranges[first + i];
        if (k && g.lo <= r->ranges[first + k - 1].hi + 1) {
            if (g.hi > r->ranges[first + k - 1].hi)
                r->ranges[first + k - 1].hi = g.hi;
        } else {
            r->ranges[first + k++] = g;
        }
    }
    r->nr = first + k;
    t = rx_node_new(r, RK_CLASS, start, 1);
    if (t >= 0) {
        r->tree[t].x = (int32_t)first;
        r->tree[t].y = (int32_t)k;
        r->tree[t].neg = (uint8_t)neg;
    }
    return t;
}

/* One member of a class after '[' (a character, an escape, or the end of
 * a range): its scalar value; -2 for a shorthand \d \w \s, whose ranges
 * it adds; -1 on a fault. */
static long rx_class_char(rx *r)
{
    if (r->p[r->pos] != '\\')
        return rx_char(r);
    r->pos++;
    if (r->pos >= r->n)
        return rx_bad(r, "pattern ends in '\\'", r->pos - 1);
    char c = r->p[r->pos];
    if (c == 'd' || c == 'w' || c == 's') {
        r->pos++;
        return rx_shorthand(r, c) ? -2 : -1;
    }
    if (c == 'n' || c == 't' || c == 'r') {
        r->pos++;
        return c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
    }
    return rx_char(r);
}

/* A class [...] or [^...]: its ranges sorted and merged. */
static int32_t rx_class(rx *r)
{
    size_t start = r->pos, first = r->nr;
    int neg = 0, any = 0;
    r->pos++;
    if (r->pos < r->n && r->p[r->pos] == '^') {
        neg = 1;
        r->pos++;
    }
    while (1) {
        if (r->pos >= r->n)
            return rx_bad(r, "unterminated class", start);
        if (r->p[r->pos] == ']' && any) {
            r->pos++;
            break;
        }
        any = 1;
        size_t at = r->pos;
        long lo = rx_class_char(r), hi;
        if (lo == -1)
            return -1;
        if (lo == -2)
            continue;
        hi = lo;
        if (r->pos + 1 < r->n && r->p[r->pos] == '-' && r->p[r->pos + 1] != ']') {
            r->pos++;
            hi = rx_class_char(r);
            if (hi == -1)
                return -1;
            if (hi == -2)
                return rx_bad(r, "class range ends in \\d, \\w or \\s", at);
            if (hi < lo)
                return rx_bad(r, "class range out of order", at);
        }
        if (!rx_range_add(r, lo, hi))
            return -1;
    }
    return rx_class_node(r, start, first, neg);
}

static int32_t rx_alt(rx *r);

/* A decimal count of a counted repetition (at most SDUI_EXPR_MAX_REPEAT)
 * at the cursor; -1 on a fault. */
static long rx_count(rx *r, size_t brace)
{
    long v = 0;
    size_t start = r->pos;
    while (r->pos < r->n && r->p[r->pos] >= '0' && r->p[r->pos] <= '9') {
        v = v * 10 + (r->p[r->pos] - '0');
        if (v > SDUI_EXPR_MAX_REPEAT)
            return rx_bad(r, "count above 1000", start);
        r->pos++;
    }
    if (r->pos == start)
        return rx_bad(r, "'{' without a count (\\{ is the character)", brace);
    return v;
}

/* The number of instructions x{min,max} compiles to (max -1: no max) for
 * a body of s, saturating past the bound. */
static uint32_t rx_rep_size(uint32_t s, long min, long max)
{
    uint64_t total;
    if (s == 0)
        return 0;
    if (max < 0)
        total = min == 0 ? (uint64_t)s + 2 : (uint64_t)min * s + 1;
    else
        total = (uint64_t)min * s + (uint64_t)(max - min) * ((uint64_t)s + 1);
    return rx_sum(total, 0);
}

/* An atom with an optional quantifier: * + ? {m} {m,} {m,n}. */
static int32_t rx_piece(rx *r)
{
    size_t start = r->pos;
    char c = r->p[r->pos];
    int32_t t;
    if (c == '(') {
        r->pos++;
        if (++r->depth > SDUI_EXPR_MAX_NESTING)
            return rx_bad(r, "groups nested deeper than 64", start);
        t = rx_alt(r);
        if (t < 0)
            return -1;
        r->depth--;
        if (r->pos >= r->n || r->p[r->pos] != ')')
            return rx_bad(r, "')' expected", r->pos);
        r->pos++;
    } else if (c == '[') {
        t = rx_class(r);
    } else if (c == '.') {
        r->pos++;
        t = rx_node_new(r, RK_ANY, start, 1);
    } else if (c == '^' || c == '$') {
        /* An anchor takes no quantifier: one after it is an error below. */
        r->pos++;
        return rx_node_new(r, c == '^' ? RK_BOL : RK_EOL, start, 1);
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        return rx_bad(r, "quantifier without an atom", start);
    } else if (c == '\\') {
        r->pos++;
        if (r->pos >= r->n)
            return rx_bad(r, "pattern ends in '\\'", start);
        char d = r->p[r->pos];
        if (d == 'd' || d == 'w' || d == 's') {
            size_t first = r->nr;
            r->pos++;
            if (!rx_shorthand(r, d))
                return -1;
            t = rx_class_node(r, start, first, 0);
        } else {
            long cp;
            if (d == 'n' || d == 't' || d == 'r') {
                cp = d == 'n' ? '\n' : d == 't' ? '\t' : '\r';
                r->pos++;
            } else if (sdui__expr_ident_char(d, 0)) {
                return rx_bad(r, "unknown escape", start);
            } else {
                cp = rx_char(r);
                if (cp < 0)
                    return -1;
            }
            t = rx_node_new(r, RK_CHAR, start, 1);
            if (t >= 0)
                r->tree[t].x = (int32_t)cp;
        }
    } else {
        long cp = rx_char(r);
        if (cp < 0)
            return -1;
        t = rx_node_new(r, RK_CHAR, start, 1);
        if (t >= 0)
            r->tree[t].x = (int32_t)cp;
    }
    if (t < 0 || r->pos >= r->n)
        return t;
    /* The quantifier, if any. */
    size_t q = r->pos;
    long min, max;
    c = r->p[q];
    if (c == '*' || c == '+' || c == '?') {
        r->pos++;
        min = c == '+';
        max = c == '?' ? 1 : -1;
    } else if (c == '{') {
        r->pos++;
        min = rx_count(r, q);
        if (min < 0)
            return -1;
        max = min;
        if (r->pos < r->n && r->p[r->pos] == ',') {
            r->pos++;
            if (r->pos < r->n && r->p[r->pos] == '}')
                max = -1;
            else if ((max = rx_count(r, q)) < 0)
                return -1;
        }
        if (r->pos >= r->n || r->p[r->pos] != '}')
            return rx_bad(r, "'}' expected", r->pos);
        r->pos++;
        if (max >= 0 && max < min)
            return rx_bad(r, "count out of order", q);
    } else {
        return t;
    }
    if (r->pos < r->n) {
        c = r->p[r->pos];
        if (c == '*' || c == '+' || c == '?' || c == '{')
            return rx_bad(r, "repeated quantifier", r->pos);
    }
    int32_t rep = rx_node_new(r, RK_REP, q, rx_rep_size(r->tree[t].size, min, max));
    if (rep < 0)
        return -1;
    if (r->tree[rep].size > SDUI_EXPR_MAX_PROGRAM)
        return rx_bad(r, "program longer than 4096 instructions", q);
    r->tree[rep].x = (int32_t)min;
    r->tree[rep].y = (int32_t)max;
    r->tree[rep].first = t;
    return rep;
}

/* A concatenation of pieces up to | or ) or the end: one node (a piece,
 * a concatenation, or the empty pattern). */
static int32_t rx_cat(rx *r)
{
    size_t start = r->pos;
    int32_t first = -1, last = -1, count = 0;
    uint32_t size = 0;
    while (r->pos < r->n && r->p[r->pos] != '|' && r->p[r->pos] != ')') {
        int32_t t = rx_piece(r);
        if (t < 0)
            return -1;
        size = rx_sum(size, r->tree[t].size);
        if (size > SDUI_EXPR_MAX_PROGRAM)
            return rx_bad(r, "program longer than 4096 instructions", r->tree[t].at);
        if (last >= 0)
            r->tree[last].next = t;
        else
            first = t;
        last = t;
        count++;
    }
    if (count == 1)
        return first;
    int32_t cat = rx_node_new(r, count ? RK_CAT : RK_EMPTY, start, size);
    if (cat >= 0)
        r->tree[cat].first = first;
    return cat;
}

/* Alternatives a|b|c: one node (the only alternative, or an
 * alternation). */
static int32_t rx_alt(rx *r)
{
    size_t start = r->pos;
    int32_t first = rx_cat(r), last = first;
    uint32_t size;
    if (first < 0 || r->pos >= r->n || r->p[r->pos] != '|')
        return first;
    size = r->tree[first].size;
    while (r->pos < r->n && r->p[r->pos] == '|') {
        r->pos++;
        int32_t t = rx_cat(r);
        if (t < 0)
            return -1;
        /* A split and a jump for each alternative past the first. */
        size = rx_sum(size, (uint64_t)r->tree[t].size + 2);
        if (size > SDUI_EXPR_MAX_PROGRAM)
            return rx_bad(r, "program longer than 4096 instructions", r->tree[t].at);
        r->tree[last].next = t;
        last = t;
    }
    int32_t alt = rx_node_new(r, RK_ALT, start, size);
    if (alt >= 0)
        r->tree[alt].first = first;
    return alt;
}

/* Emits one instruction; its index (the room was counted in advance). */
static int32_t rx_ins_new(rx *r, int op, int32_t x, int32_t y)
{
    assert(r->nc < r->cap);
    r->work++;
    r->code[r->nc].op = (uint8_t)op;
    r->code[r->nc].neg = 0;
    r->code[r->nc].x = x;
    r->code[r->nc].y = y;
    return (int32_t)r->nc++;
}

/* Emits tree node i (the essay above: Emit). */
static void rx_emit(rx *r, int32_t i)
{
    const rx_node *t = &r->tree[i];
    int32_t c, chain = -1, at;
    r->work++;
    if (t->size == 0)
        return;
    switch (t->kind) {
    case RK_CHAR: rx_ins_new(r, RX_CHAR, t->x, 0); break;
    case RK_ANY: rx_ins_new(r, RX_ANY, 0, 0); break;
    case RK_BOL: rx_ins_new(r, RX_BOL, 0, 0); break;
    case RK_EOL: rx_ins_new(r, RX_EOL, 0, 0); break;
    case RK_CLASS:
        at = rx_ins_new(r, RX_CLASS, t->x, t->y);
        r->code[at].neg = t->neg;
        break;
    case RK_CAT:
        for (c = t->first; c >= 0; c = r->tree[c].next)
            rx_emit(r, c);
        break;
    case RK_ALT:
        /* split L1, L2; L1: a; jmp end; L2: split ...; last: z; end:
         * the jumps chained through their targets until the end is known. */
        for (c = t->first; r->tree[c].next >= 0; c = r->tree[c].next) {
            at = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, 0);
            rx_emit(r, c);
            chain = rx_ins_new(r, RX_JMP, chain, 0);
            r->code[at].y = (int32_t)r->nc;
        }
        rx_emit(r, c);
        while (chain >= 0) {
            int32_t prev = r->code[chain].x;
            r->code[chain].x = (int32_t)r->nc;
            chain = prev;
        }
        break;
    case RK_REP: {
        int32_t min = t->x, max = t->y, k;
        for (k = 0; k < min - (max < 0 && min > 0); k++)
            rx_emit(r, t->first);
        if (max < 0 && min == 0) {
            /* L: split body, end; body; jmp L; end: */
            at = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, 0);
            rx_emit(r, t->first);
            rx_ins_new(r, RX_JMP, at, 0);
            r->code[at].y = (int32_t)r->nc;
        } else if (max < 0) {
            /* L: body; split L, next */
            at = (int32_t)r->nc;
            rx_emit(r, t->first);
            rx_ins_new(r, RX_SPLIT, at, (int32_t)r->nc + 1);
        } else {
            /* Optional copies: split body, end; body; ... end: */
            for (k = min; k < max; k++) {
                chain = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, chain);
                rx_emit(r, t->first);
            }
            while (chain >= 0) {
                int32_t prev = r->code[chain].y;
                r->code[chain].y = (int32_t)r->nc;
                chain = prev;
            }
        }
        break;
    }
    default:
        break;
    }
}

/* 1 if scalar c is in class instruction in: a binary search of its sorted,
 * disjoint ranges for the first that ends at or past c, each probe added
 * to *units. */
static int rx_in_class(const rx *r, const rx_ins *in, long c, unsigned long *units)
{
    const rx_range *g = r->ranges + in->x;
    size_t lo = 0, hi = (size_t)in->y;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        (*units)++;
        if (g[mid].hi < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < (size_t)in->y && g[lo].lo <= c) != in->neg;
}

/* Adds instruction pc and what it reaches without input to list, each
 * instruction reached added to *units; returns 1 if RX_MATCH was reached.
 * stack has room for twice the program. */
static int rx_add(const rx *r, int32_t *list, size_t *n, unsigned *mark, unsigned gen,
                  int32_t *stack, int32_t pc, int at_start, int at_end,
                  unsigned long *units)
{
    size_t sp = 0;
    int matched = 0;
    stack[sp++] = pc;
    while (sp) {
        int32_t k = stack[--sp];
        (*units)++;
        if (mark[k] == gen)
            continue;
        mark[k] = gen;
        const rx_ins *in = &r->code[k];
        switch (in->op) {
        case RX_SPLIT:
            stack[sp++] = in->y;
            stack[sp++] = in->x;
            break;
        case RX_JMP:
            stack[sp++] = in->x;
            break;
        case RX_BOL:
            if (at_start) stack[sp++] = k + 1;
            break;
        case RX_EOL:
            if (at_end) stack[sp++] = k + 1;
            break;
        case RX_MATCH:
            matched = 1;
            break;
        default:
            list[(*n)++] = k;
        }
    }
    return matched;
}

/* matches(s, pattern): 1/0 into *hit; 0 with the error set on failure
 * (expr_internal.h). */
int sdui__expr_match(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *s,
                     const sdui_xval *pat, int *hit)
{
    rx r;
    unsigned long units = 0;
    int32_t root;
    memset(&r, 0, sizeof r);
    r.e = e;
    r.nd = nd;
    r.p = pat->u.s.s;
    r.n = pat->u.s.n;
    *hit = 0;
    /* At most four tree nodes per pattern byte (an atom, its repetition,
     * its concatenation and alternation) and four ranges per two bytes
     * (\w in a class). */
    r.tcap = 4 * r.n + 4;
    r.rcap = 2 * r.n + 4;
    r.tree = sdui__expr_alloc(e, nd, r.tcap * sizeof *r.tree);
    r.ranges = r.tree ? sdui__expr_alloc(e, nd, r.rcap * sizeof *r.ranges) : NULL;
    if (!r.ranges)
        return 0;
    r.work = r.n;
    root = rx_alt(&r);
    if (root >= 0 && r.pos < r.n)
        root = rx_bad(&r, "unbalanced ')'", r.pos);
    if (root < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "bad pattern (%s at pattern byte %zu)", r.bad, r.bad_at);
        return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, msg);
    }
    r.cap = r.tree[root].size + 1;
    assert(r.cap <= SDUI_EXPR_MAX_PROGRAM + 1);
    r.code = sdui__expr_alloc(e, nd, r.cap * sizeof *r.code);
    if (!r.code)
        return 0;
    rx_emit(&r, root);
    rx_ins_new(&r, RX_MATCH, 0, 0);
    assert(r.nc == r.cap);

    size_t nc = r.nc;
    int32_t *cl = sdui__expr_alloc(e, nd, nc * sizeof *cl);
    int32_t *nl = cl ? sdui__expr_alloc(e, nd, nc * sizeof *nl) : NULL;
    int32_t *stack = nl ? sdui__expr_alloc(e, nd, (2 * nc + 2) * sizeof *stack) : NULL;
    unsigned *mark = stack ? sdui__expr_alloc(e, nd, nc * sizeof *mark) : NULL;
    if (!mark)
        return 0;
    memset(mark, 0, nc * sizeof *mark);
    if (!sdui__expr_step(e, nd, 1 + (r.work + nc) / RX_UNITS))
        return 0;

    size_t ncl = 0, nnl, i = 0, n = s->u.s.n;
    unsigned gen = 1;
    const char *t = s->u.s.s;
    int dead;
    if (rx_add(&r, cl, &ncl, mark, gen, stack, 0, 1, n == 0, &units)) {
        *hit = 1;
        return sdui__expr_step(e, nd, 1 + units / RX_UNITS);
    }
    /* Whether a thread started past the subject's start (and before its
     * end) can get anywhere: not when the pattern must begin at ^. */
    {
        size_t probe = 0;
        gen++;
        dead = !rx_add(&r, nl, &probe, mark, gen, stack, 0, 0, 0, &units) && probe == 0;
    }
    while (i < n) {
        if (ncl == 0 && dead) {
            /* Nothing live, and nothing can start before the end. */
            i = n;
            gen++;
            nnl = 0;
            if (rx_add(&r, nl, &nnl, mark, gen, stack, 0, 0, 1, &units))
                *hit = 1;
            break;
        }
        long c = sdui__utf8_get(t, n, &i);
        if (c < 0) {
            c = 0xFFFD;
            i++;
        }
        gen++;
        nnl = 0;
        int at_end = i >= n;
        for (size_t k = 0; k < ncl; k++) {
            const rx_ins *in = &r.code[cl[k]];
            int ok;
            units++;
            ok = in->op == RX_ANY ? (c != '\n')
               : in->op == RX_CHAR ? c == in->x
               : rx_in_class(&r, in, c, &units);
            if (ok && rx_add(&r, nl, &nnl, mark, gen, stack, cl[k] + 1, 0, at_end, &units)) {
                *hit = 1;
                break;
            }
        }
        /* Unanchored search: a new thread at every position. */
        if (!*hit && rx_add(&r, nl, &nnl, mark, gen, stack, 0, 0, at_end, &units))
            *hit = 1;
        if (!sdui__expr_step(e, nd, 1 + units / RX_UNITS))
            return 0;
        units %= RX_UNITS;
        if (*hit)
            return 1;
        int32_t *tmp = cl;
        cl = nl;
        nl = tmp;
        ncl = nnl;
    }
    return sdui__expr_step(e, nd, 1 + units / RX_UNITS);
}
