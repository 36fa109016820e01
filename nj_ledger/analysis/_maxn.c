/* The solver's searches, compiled: nj_ledger.analysis._maxn.
 *
 * Best play by all (max^n) and what a seat is sure of (alpha-beta), the same searches as
 * nj_ledger.analysis.solver.PythonSearch (values, secure) over the same positions as
 * nj_ledger.analysis.model.Table (moves, play, settle), move for move: the canonical move order, the first
 * best move kept on a tie, forced moves played through, the transposition tables keyed by the position's
 * essentials (with the balances only where a payment can be held to a balance: `capped`), alpha-beta's
 * bounds and deciding move kept and tried first, the decision positions counted one by one and the search
 * given up when the count reaches `limit`. The Python search is the reference this one is tested against
 * (tests/core/test_analysis_native.py).
 *
 * This file is the module: a position comes in as the model's tuple and is read into a C struct, the
 * search runs with the interpreter's lock released, and the values go out as a tuple. The model is
 * _maxn_model.h, the searches and their tables _maxn_search.h (one translation unit: the headers hold static
 * functions). C99, no dependency but Python's own headers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "_maxn_search.h"

typedef struct {
    PyObject_HEAD
    Searcher core;
    int busy; /* a search under way (the lock released): one thread at a time */
} SearchObject;

/* --- from and to Python ---------------------------------------------------------------------------- */
static int read_ints(PyObject *seq, int *out, Py_ssize_t size, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != size) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: %zd values expected", what, size);
        return -1;
    }
    for (Py_ssize_t j = 0; j < size; j++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, j));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[j] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int read_int64s(PyObject *seq, int64_t *out, Py_ssize_t most, int *size, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > most) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: at most %zd values", what, most);
        return -1;
    }
    for (Py_ssize_t j = 0; j < len; j++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, j));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[j] = v;
    }
    *size = (int)len;
    Py_DECREF(fast);
    return 0;
}

static int field(PyObject *tuple, Py_ssize_t index, long low, long high, int *out) {
    long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, index));
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < low || v > high) {
        PyErr_Format(PyExc_ValueError, "position field %zd out of range: %ld", index, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static PyObject *shift_obj; /* 39: where the special cards' bits start */

static int read_position(const SearchObject *s, PyObject *obj, Pos *p) {
    int n = s->core.t.n;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 14) {
        PyErr_SetString(PyExc_TypeError, "a position is a tuple of 14 fields");
        return -1;
    }
    memset(p, 0, sizeof(*p));
    PyObject *hands = PyTuple_GET_ITEM(obj, 0), *bal = PyTuple_GET_ITEM(obj, 13);
    if (!PyTuple_Check(hands) || PyTuple_GET_SIZE(hands) != n || !PyTuple_Check(bal) || PyTuple_GET_SIZE(bal) != n) {
        PyErr_SetString(PyExc_TypeError, "a position's hands and balances are a tuple a seat");
        return -1;
    }
    for (int seat = 0; seat < n; seat++) {
        PyObject *hand = PyTuple_GET_ITEM(hands, seat);
        if (!PyLong_Check(hand)) {
            PyErr_SetString(PyExc_TypeError, "a hand is an int");
            return -1;
        }
        uint64_t low = PyLong_AsUnsignedLongLongMask(hand);
        if (low == (uint64_t)-1 && PyErr_Occurred()) return -1;
        PyObject *high = PyNumber_Rshift(hand, shift_obj);
        if (!high) return -1;
        uint64_t spec = PyLong_AsUnsignedLongLong(high);
        Py_DECREF(high);
        if (spec == (uint64_t)-1 && PyErr_Occurred()) return -1;
        if (spec >> 52) {
            PyErr_SetString(PyExc_ValueError, "a hand holds at most 52 special cards");
            return -1;
        }
        p->plain[seat] = low & PLAIN_MASK;
        p->spec[seat] = spec;
        long long b = PyLong_AsLongLong(PyTuple_GET_ITEM(bal, seat));
        if (b == -1 && PyErr_Occurred()) return -1;
        if (b > (INT64_C(1) << 52) || b < -(INT64_C(1) << 52)) {
            PyErr_SetString(PyExc_OverflowError, "a balance out of the compiled search's range");
            return -1;
        }
        p->bal[seat] = b;
    }
    int lt, laid, taken;
    if (field(obj, 1, 0, 14, &p->exp) || field(obj, 2, -1, 3, &p->suit) || field(obj, 3, -1, n - 1, &p->turn)
        || field(obj, 4, 0, 4, &p->mode) || field(obj, 5, -1, n - 1, &p->last) || field(obj, 6, 0, n, &p->npass)
        || field(obj, 7, -1, n - 1, &p->first) || field(obj, 8, 0, n, &p->need) || field(obj, 9, 0, 1, &p->opened)
        || field(obj, 10, 0, 0xffff, &lt) || field(obj, 11, 0, 0xff, &laid)
        || field(obj, 12, 0, (1L << s->core.t.nboxes) - 1, &taken))
        return -1;
    if (p->mode != ENDED && p->turn < 0) {
        PyErr_SetString(PyExc_ValueError, "a position with no seat to act");
        return -1;
    }
    p->lt = (uint32_t)lt, p->laid = (uint32_t)laid, p->taken = (uint32_t)taken;
    return 0;
}

static PyObject *values_tuple(const int64_t *v, int n) {
    PyObject *out = PyTuple_New(n);
    if (!out) return NULL;
    for (int j = 0; j < n; j++) {
        PyObject *item = PyLong_FromLongLong(v[j]);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, j, item);
    }
    return out;
}

/* --- the Search type -------------------------------------------------------------------------------- */
static int table_of(Rules *t, PyObject *config) {
    PyObject *boxes, *face, *honours, *rank, *suit, *points, *ends, *box_of, *hoc_card, *announceable, *special;
    long long point_value, hoc;
    memset(t, 0, sizeof(*t));
    if (!PyArg_ParseTuple(config, "iiiiiiiiiiiiiiiLLOOOOOOOOOOO;the compiled search's table", &t->n, &t->by_suit,
                          &t->may_stop, &t->skip, &t->first_passer, &t->lowest, &t->opened, &t->wild, &t->go_reward,
                          &t->track_turns, &t->track_laid, &t->cards_payment, &t->bete, &t->negative,
                          &t->wild_double, &point_value, &hoc, &boxes, &face, &honours, &rank, &suit, &points, &ends,
                          &box_of, &hoc_card, &announceable, &special))
        return -1;
    t->point_value = point_value, t->hoc = hoc;
    if (t->n < 2 || t->n > MAXN || t->wild < -1 || t->wild > 51) {
        PyErr_SetString(PyExc_ValueError, "the compiled search takes 2 to 8 seats");
        return -1;
    }
    int nface, nhon;
    int64_t honour64[MAXBOX];
    if (read_int64s(boxes, t->boxes, MAXBOX, &t->nboxes, "boxes") || read_int64s(face, t->face, MAXBOX, &nface, "face")
        || read_int64s(honours, honour64, MAXBOX, &nhon, "honours"))
        return -1;
    if (nface != nhon || nhon > t->nboxes) {
        PyErr_SetString(PyExc_ValueError, "an honour a box");
        return -1;
    }
    t->nhon = nhon;
    for (int b = 0; b < nhon; b++) {
        if (honour64[b] < 0 || honour64[b] > 51) {
            PyErr_SetString(PyExc_ValueError, "an honour is a card");
            return -1;
        }
        t->honour_index[b] = (int)honour64[b];
    }
    if (read_ints(rank, t->rank, 52, "rank") || read_ints(suit, t->suit, 52, "suit")
        || read_ints(points, t->points, 52, "points") || read_ints(ends, t->ends, 52, "ends")
        || read_ints(box_of, t->box_of, 52, "box_of") || read_ints(hoc_card, t->hoc_card, 52, "hoc_card")
        || read_ints(announceable, t->announceable, 52, "announceable") || read_ints(special, t->special, 52, "special"))
        return -1;
    for (int i = 0; i < 52; i++) {
        if (t->rank[i] < 1 || t->rank[i] > 13 || t->box_of[i] >= t->nboxes) {
            PyErr_SetString(PyExc_ValueError, "a card's rank or box out of range");
            return -1;
        }
        if (t->special[i]) t->of_rank[t->rank[i]][t->n_of_rank[t->rank[i]]++] = i;
    }
    return 0;
}

static PyObject *Search_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"table", "capped", "limit", NULL};
    PyObject *config;
    int capped;
    long long limit = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!p|L", names, &PyTuple_Type, &config, &capped, &limit))
        return NULL;
    SearchObject *s = (SearchObject *)type->tp_alloc(type, 0);
    if (!s) return NULL;
    if (table_of(&s->core.t, config)) {
        Py_DECREF(s);
        return NULL;
    }
    s->core.capped = capped;
    s->core.words = 2 * s->core.t.n + 2 + (capped ? s->core.t.n : 0);
    s->core.best.words = s->core.words, s->core.best.nvals = s->core.t.n;
    for (int seat = 0; seat < MAXN; seat++) s->core.sure[seat].words = s->core.words, s->core.sure[seat].nvals = 3;
    s->core.limit = limit;
    return (PyObject *)s;
}

static void Search_dealloc(SearchObject *s) {
    tab_free(&s->core.best);
    for (int seat = 0; seat < MAXN; seat++) tab_free(&s->core.sure[seat]);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Search_values(SearchObject *s, PyObject *position) {
    Pos p;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already searching (one thread at a time)");
        return NULL;
    }
    if (read_position(s, position, &p)) return NULL;
    int64_t out[MAXN];
    int status;
    s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    status = maxn(&s->core, &p, out);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    if (status == LIMIT) Py_RETURN_NONE;
    if (status == NOMEM) return PyErr_NoMemory();
    return values_tuple(out, s->core.t.n);
}

static PyObject *Search_secure(SearchObject *s, PyObject *args) {
    PyObject *position;
    int seat;
    Pos p;
    if (!PyArg_ParseTuple(args, "Oi", &position, &seat)) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already searching (one thread at a time)");
        return NULL;
    }
    if (seat < 0 || seat >= s->core.t.n) {
        PyErr_SetString(PyExc_ValueError, "no such seat");
        return NULL;
    }
    if (read_position(s, position, &p)) return NULL;
    int64_t out;
    int status;
    s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    status = alphabeta(&s->core, &p, seat, -BIG, BIG, &out);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    if (status == LIMIT) Py_RETURN_NONE;
    if (status == NOMEM) return PyErr_NoMemory();
    return PyLong_FromLongLong(out);
}

static PyObject *Search_moves(SearchObject *s, PyObject *position) {
    Pos p;
    int mv[MAXMOVES];
    if (read_position(s, position, &p)) return NULL;
    int k = moves(&s->core.t, &p, mv);
    PyObject *out = PyList_New(k);
    if (!out) return NULL;
    for (int m = 0; m < k; m++) {
        PyObject *item = PyLong_FromLong(mv[m]);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, m, item);
    }
    return out;
}

static PyObject *Search_size(SearchObject *s, PyObject *unused) {
    (void)unused;
    return PyLong_FromSize_t(s->core.best.count);
}

static PyMethodDef Search_methods[] = {
    {"values", (PyCFunction)Search_values, METH_O,
     "The chips each seat holds at the end of the deal under best play by all from the position, or None when "
     "the search reached its limit."},
    {"secure", (PyCFunction)Search_secure, METH_VARARGS,
     "secure(position, seat): the chips the seat is sure of at the end of the deal against all the others, or "
     "None when the search reached its limit."},
    {"moves", (PyCFunction)Search_moves, METH_O, "The legal moves at the position, in the canonical order."},
    {"size", (PyCFunction)Search_size, METH_NOARGS, "How many positions the transposition table holds."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Search_members[] = {
    {"nodes", T_LONGLONG, offsetof(SearchObject, core.nodes), 0, "Decision positions searched."},
    {"limit", T_LONGLONG, offsetof(SearchObject, core.limit), 0, "The count at which the search gives up (-1: none)."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "nj_ledger.analysis._maxn.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Best play by all (max^n) over one deal's positions, its transposition table kept between calls.",
    .tp_methods = Search_methods,
    .tp_members = Search_members,
    .tp_new = Search_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_maxn", "The solver's best play by all, compiled (nj_ledger.analysis.solver).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__maxn(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    shift_obj = PyLong_FromLong(SHIFT);
    if (!shift_obj) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
