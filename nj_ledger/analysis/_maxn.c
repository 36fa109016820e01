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
 * A position comes in as the model's tuple and is kept as a C struct: a hand is two words, the counts of
 * plain cards by rank (3 bits a rank, 39 bits) and the special cards (a bit a card, 52 bits), which is the
 * model's single integer cut at bit 39. C99, no dependency but Python's own headers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 8
#define MAXBOX 16
#define MAXMOVES 128
#define SHIFT 39
#define PLAIN_MASK ((UINT64_C(1) << SHIFT) - 1)
#define KMAX (3 * MAXN + 2)

enum { LEAD = 0, LEAD_ON = 1, RESPOND = 2, MIDDLE = 3, ENDED = 4 };
enum { NONE = -1, CALL = 64, PLAIN = 128, KING = 13 };
enum { GO_NONE = 0, GO_DOUBLE = 1, GO_SWEEP = 2 };
enum { BETE_NONE = 0, BETE_DOUBLE = 1, BETE_FACE = 2 };
enum { OK = 0, LIMIT = 1, NOMEM = 2 };

typedef struct {
    uint64_t plain[MAXN], spec[MAXN];
    int exp, suit, turn, mode, last, npass, first, need, opened;
    uint32_t lt, laid, taken;
    int64_t bal[MAXN];
} Pos;

typedef struct {
    int n, by_suit, may_stop, skip, first_passer, lowest, opened, wild, go_reward, track_turns, track_laid;
    int cards_payment, bete, negative, wild_double, nboxes, nhon;
    int64_t point_value, hoc, boxes[MAXBOX], face[MAXBOX];
    int honour_index[MAXBOX];
    int rank[52], suit[52], points[52], ends[52], box_of[52], hoc_card[52], announceable[52], special[52];
    int of_rank[14][52], n_of_rank[14];
} Rules;

/* A transposition table: slots (the hash's high 32 bits as a tag, which spares most comparisons of keys, and
 * the entry's number + 1; 0: empty) over entries kept one after the other (a key's words, then its values). */
typedef struct {
    uint64_t *ents, *slots;
    size_t count, room, nslots;
    int words, nvals;
} Tab;

typedef struct {
    PyObject_HEAD
    Rules t;
    int capped, words, busy;
    long long nodes, limit;
    Tab best;          /* best play by all: the values (or what the position adds to the balances) */
    Tab sure[MAXN];    /* what each seat is sure of: lower and upper bounds and the deciding move */
} SearchObject;

/* --- the model ------------------------------------------------------------------------------------ */
static inline int64_t box_value(const Rules *t, const Pos *p, int b) {
    return (p->taken >> b & 1) ? 0 : t->boxes[b];
}

static inline void lay(const Rules *t, const Pos *p, int i, int *out, int *k) {
    if (t->announceable[i] && ((t->hoc_card[i] && t->hoc > 0) || (t->box_of[i] >= 0 && box_value(t, p, t->box_of[i]) > 0)))
        out[(*k)++] = i | CALL;
    out[(*k)++] = i;
}

static inline int order(const Rules *t, int m) {
    if (m == NONE) return 1 << 20;
    if (m >= PLAIN) return (m - PLAIN) * 64;
    int i = m & 63;
    return t->rank[i] * 64 + (t->suit[i] + 1) * 2 + ((m & CALL) ? 0 : 1);
}

static void sort_moves(const Rules *t, int *out, int k) {
    for (int a = 1; a < k; a++) {
        int m = out[a], key = order(t, m), b = a - 1;
        while (b >= 0 && order(t, out[b]) > key) {
            out[b + 1] = out[b];
            b--;
        }
        out[b + 1] = m;
    }
}

static int min_rank(const Rules *t, uint64_t plain, uint64_t spec) {
    int best = 99;
    for (int i = 0; i < 52; i++)
        if (spec >> i & 1 && t->rank[i] < best) best = t->rank[i];
    for (int r = 1; r <= 13; r++)
        if (plain >> (3 * (r - 1)) & 7) {
            if (r < best) best = r;
            break;
        }
    return best;
}

static int moves(const Rules *t, const Pos *p, int *out) {
    if (p->mode == ENDED) return 0;
    int seat = p->turn, k = 0;
    uint64_t plain = p->plain[seat], spec = p->spec[seat];
    if (p->mode <= LEAD_ON) {
        int restrict_ = 0;
        if (t->lowest && !p->opened) restrict_ = min_rank(t, plain, spec);
        for (int rank = 1; rank <= 13; rank++) {
            if (restrict_ && rank != restrict_) continue;
            if (plain >> (3 * (rank - 1)) & 7) out[k++] = PLAIN + rank;
            for (int j = 0; j < t->n_of_rank[rank]; j++) {
                int i = t->of_rank[rank][j];
                if (spec >> i & 1) lay(t, p, i, out, &k);
            }
        }
        if (restrict_ && t->wild >= 0 && t->rank[t->wild] != restrict_ && (spec >> t->wild & 1)) {
            lay(t, p, t->wild, out, &k);
            sort_moves(t, out, k);
        }
        return k;
    }
    int wanted = p->exp, suit = p->suit, must = 0;
    if (wanted < 1 || wanted > 13) wanted = 0;
    if (!t->by_suit && wanted && (plain >> (3 * (wanted - 1)) & 7)) {
        out[k++] = PLAIN + wanted;
        must = 1;
    }
    int wild_held = t->wild >= 0 && (spec >> t->wild & 1);
    for (int j = 0; wanted && j < t->n_of_rank[wanted]; j++) {
        int i = t->of_rank[wanted][j];
        if ((spec >> i & 1) && (suit < 0 || t->suit[i] == suit) && i != t->wild) {
            lay(t, p, i, out, &k);
            must = 1;
        }
    }
    if (wild_held) {
        lay(t, p, t->wild, out, &k);
        sort_moves(t, out, k);
    }
    if (t->may_stop || !must) out[k++] = NONE;
    return k;
}

static inline int64_t held_to(const Rules *t, int64_t owed, int64_t balance) {
    if (t->negative) return owed;
    if (owed > balance) owed = balance;
    return owed < 0 ? 0 : owed;
}

static int64_t hand_size(uint64_t plain, uint64_t spec) {
    int64_t total = 0;
    while (plain) {
        total += plain & 7;
        plain >>= 3;
    }
    return total + __builtin_popcountll(spec);
}

static int64_t hand_points(const Rules *t, uint64_t plain, uint64_t spec) {
    int64_t total = 0;
    for (; spec; spec &= spec - 1) total += t->points[__builtin_ctzll(spec)];
    for (int r = 1; plain; r++, plain >>= 3) total += (int64_t)(plain & 7) * (r < 10 ? r : 10);
    return total;
}

/* SPEC §3.3 in its order (Table.settle): card payments, the Grand Opéra's sweep, the bêtes. */
static void settle(const Rules *t, Pos *q, int winner) {
    int n = t->n;
    int64_t at_out[MAXBOX];
    for (int b = 0; b < t->nboxes; b++) at_out[b] = (q->taken >> b & 1) ? 0 : t->boxes[b];
    int opera = 0;
    if (t->track_turns) opera = ((q->lt >> (2 * winner)) & 3) == 1;
    else if (t->track_laid) opera = (q->laid & ~(UINT32_C(1) << winner)) == 0;
    int64_t dbl = opera && t->go_reward == GO_DOUBLE ? 2 : 1;
    for (int k = 1; k < n; k++) {
        int seat = (winner + k) % n;
        uint64_t plain = q->plain[seat], spec = q->spec[seat];
        int64_t base = t->cards_payment ? hand_size(plain, spec) : hand_points(t, plain, spec);
        int64_t owed = base * t->point_value * dbl;
        if (t->wild_double && (spec >> t->wild & 1)) owed *= 2;
        int64_t paid = held_to(t, owed, q->bal[seat]);
        q->bal[seat] -= paid;
        q->bal[winner] += paid;
    }
    if (opera && t->go_reward == GO_SWEEP)
        for (int b = 0; b < t->nboxes; b++) q->bal[winner] += at_out[b];
    if (t->bete != BETE_NONE)
        for (int k = 1; k < n; k++) {
            int seat = (winner + k) % n;
            for (int b = 0; b < t->nhon; b++)
                if (q->spec[seat] >> t->honour_index[b] & 1) {
                    int64_t owed = t->bete == BETE_DOUBLE ? at_out[b] : t->face[b];
                    q->bal[seat] -= held_to(t, owed, q->bal[seat]);
                }
        }
    q->exp = 0, q->suit = -1, q->turn = winner, q->mode = ENDED, q->last = -1, q->npass = 0, q->first = -1;
    q->need = 0, q->opened = 1;
}

static void play(const Rules *t, const Pos *p, int move, Pos *q) {
    int n = t->n, seat = p->turn, mode = p->mode;
    *q = *p;
    if (move == NONE) {
        if (mode == MIDDLE) { /* a stop: the next seat is asked */
            q->turn = (seat + 1) % n, q->mode = RESPOND, q->npass = 0, q->first = -1, q->need = n - 1;
            return;
        }
        int passes = p->npass + 1, first = p->npass == 0 ? seat : p->first;
        if (passes < p->need) {
            q->turn = (seat + 1) % n, q->mode = RESPOND, q->npass = passes, q->first = t->first_passer ? first : -1;
            return;
        }
        if (t->skip && p->exp != KING) { /* blocked: the missing rank is skipped */
            q->exp = p->exp + 1, q->turn = p->last, q->mode = RESPOND, q->npass = 0, q->first = -1, q->need = n;
            return;
        }
        q->exp = 0, q->suit = -1, q->turn = t->first_passer ? first : p->last, q->mode = LEAD, q->last = -1;
        q->npass = 0, q->first = -1, q->need = n - 1;
        return;
    }
    int i = move < PLAIN ? (move & 63) : -1;
    int rank = move >= PLAIN ? move - PLAIN : t->rank[i];
    if (i < 0) q->plain[seat] -= UINT64_C(1) << (3 * (rank - 1));
    else q->spec[seat] &= ~(UINT64_C(1) << i);
    if (t->track_turns && (mode == LEAD || mode == RESPOND) && ((p->lt >> (2 * seat)) & 3) < 2)
        q->lt += UINT32_C(1) << (2 * seat);
    q->laid = t->track_laid ? (p->laid | (UINT32_C(1) << seat)) : 0;
    if (i >= 0 && (move & CALL)) {
        int box = t->box_of[i];
        if (box >= 0) {
            q->bal[seat] += box_value(t, p, box);
            q->taken |= UINT32_C(1) << box;
        }
        if (t->hoc_card[i] && t->hoc > 0)
            for (int other = 1; other < n; other++) {
                int payer = (seat + other) % n;
                int64_t paid = held_to(t, t->hoc, q->bal[payer]);
                q->bal[payer] -= paid;
                q->bal[seat] += paid;
            }
    }
    if (q->plain[seat] == 0 && q->spec[seat] == 0) { /* "J'arrête !" */
        settle(t, q, seat);
        return;
    }
    q->npass = 0, q->first = -1, q->need = n - 1, q->opened = t->opened, q->turn = seat;
    if (i >= 0 ? t->ends[i] : rank == KING) {
        q->exp = 0, q->suit = -1, q->mode = LEAD_ON, q->last = -1;
        return;
    }
    q->exp = rank + 1, q->suit = t->by_suit ? t->suit[i] : -1, q->mode = MIDDLE, q->last = seat;
}

/* --- the transposition table -------------------------------------------------------------------- */
static void make_key(const SearchObject *s, const Pos *p, uint64_t *key) {
    int n = s->t.n, j = 0;
    for (int seat = 0; seat < n; seat++) {
        key[j++] = p->plain[seat];
        key[j++] = p->spec[seat];
    }
    key[j++] = (uint64_t)(p->exp & 0xff) | (uint64_t)((p->suit + 1) & 0xff) << 8 | (uint64_t)(p->turn & 0xff) << 16
        | (uint64_t)(p->mode & 0xff) << 24 | (uint64_t)((p->last + 1) & 0xff) << 32 | (uint64_t)(p->npass & 0xff) << 40
        | (uint64_t)((p->first + 1) & 0xff) << 48 | (uint64_t)(p->need & 0xff) << 56;
    key[j++] = (uint64_t)(p->opened & 0xff) | (uint64_t)(p->lt & 0xffff) << 8 | (uint64_t)(p->laid & 0xff) << 24
        | (uint64_t)p->taken << 32;
    if (s->capped)
        for (int seat = 0; seat < n; seat++) key[j++] = (uint64_t)p->bal[seat];
}

static uint64_t hash_key(const uint64_t *key, int words) {
    uint64_t h = UINT64_C(0x243F6A8885A308D3);
    for (int j = 0; j < words; j++) {
        h = (h ^ key[j]) * UINT64_C(0x9E3779B97F4A7C15);
        h ^= h >> 32;
    }
    h ^= h >> 33; /* splitmix64's finish: every bit of the key reaches the low bits (the home slot) */
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return h;
}

static inline uint64_t *entry(const Tab *tab, size_t e) {
    return tab->ents + e * (size_t)(tab->words + tab->nvals);
}

static long find(const Tab *tab, const uint64_t *key, uint64_t h) {
    if (!tab->nslots) return -1;
    size_t mask = tab->nslots - 1;
    uint64_t tag = h >> 32;
    for (size_t at = h & mask; tab->slots[at]; at = (at + 1) & mask) {
        uint64_t slot = tab->slots[at];
        if (slot >> 32 != tag) continue;
        size_t e = (uint32_t)slot - 1;
        if (!memcmp(entry(tab, e), key, sizeof(uint64_t) * tab->words)) return (long)e;
    }
    return -1;
}

static void place(Tab *tab, uint64_t h, size_t e) {
    size_t mask = tab->nslots - 1, at = h & mask;
    while (tab->slots[at]) at = (at + 1) & mask;
    tab->slots[at] = (h >> 32) << 32 | (uint64_t)(e + 1);
}

static int grow_slots(Tab *tab) {
    size_t nslots = tab->nslots ? tab->nslots * 2 : 1 << 12;
    uint64_t *slots = calloc(nslots, sizeof(uint64_t));
    if (!slots) return NOMEM;
    free(tab->slots);
    tab->slots = slots;
    tab->nslots = nslots;
    for (size_t e = 0; e < tab->count; e++) place(tab, hash_key(entry(tab, e), tab->words), e);
    return OK;
}

static int store(Tab *tab, const uint64_t *key, uint64_t h, const int64_t *vals) {
    long known = find(tab, key, h);
    if (known >= 0) {
        memcpy(entry(tab, (size_t)known) + tab->words, vals, sizeof(int64_t) * tab->nvals);
        return OK;
    }
    if (tab->count >= UINT32_MAX - 1) return NOMEM;
    if (tab->count == tab->room) {
        size_t room = tab->room ? tab->room * 2 : 1 << 11;
        uint64_t *ents = realloc(tab->ents, room * (size_t)(tab->words + tab->nvals) * sizeof(uint64_t));
        if (!ents) return NOMEM;
        tab->ents = ents;
        tab->room = room;
    }
    if (2 * (tab->count + 1) > tab->nslots && grow_slots(tab) != OK) return NOMEM;
    size_t e = tab->count++;
    memcpy(entry(tab, e), key, sizeof(uint64_t) * tab->words);
    memcpy(entry(tab, e) + tab->words, vals, sizeof(int64_t) * tab->nvals);
    place(tab, h, e);
    return OK;
}

static void tab_free(Tab *tab) {
    free(tab->ents);
    free(tab->slots);
    tab->ents = tab->slots = NULL;
}

/* --- best play by all ------------------------------------------------------------------------------ */
static int maxn(SearchObject *s, const Pos *start, int64_t *out) {
    const Rules *t = &s->t;
    int n = t->n, mv[MAXMOVES], k, spare = 0;
    uint64_t key[KMAX], h;
    Pos forced[2];
    const Pos *p = start;
    for (;;) {
        if (p->mode == ENDED) {
            memcpy(out, p->bal, sizeof(int64_t) * n);
            return OK;
        }
        /* The Python search looks a position up before its moves; only decision positions (more than one
         * move) are ever kept, so a forced one is never found: it is not looked up. */
        k = moves(t, p, mv);
        if (k > 1) {
            make_key(s, p, key);
            h = hash_key(key, s->words);
            long known = find(&s->best, key, h);
            if (known >= 0) {
                const int64_t *v = (const int64_t *)entry(&s->best, (size_t)known) + s->words;
                for (int j = 0; j < n; j++) out[j] = s->capped ? v[j] : p->bal[j] + v[j];
                return OK;
            }
            break;
        }
        play(t, p, mv[0], &forced[spare]); /* a forced move: no decision, nothing kept */
        p = &forced[spare];
        spare ^= 1;
    }
    s->nodes++;
    if (s->nodes == s->limit) return LIMIT;
    int seat = p->turn, have = 0;
    int64_t best[MAXN], value[MAXN];
    Pos q;
    for (int m = 0; m < k; m++) {
        play(t, p, mv[m], &q);
        if (q.mode == ENDED) memcpy(value, q.bal, sizeof(int64_t) * n);
        else {
            int status = maxn(s, &q, value);
            if (status != OK) return status;
        }
        if (!have || value[seat] > best[seat]) {
            memcpy(best, value, sizeof(int64_t) * n);
            have = 1;
        }
    }
    int64_t kept[MAXN];
    for (int j = 0; j < n; j++) kept[j] = s->capped ? best[j] : best[j] - p->bal[j];
    int status = store(&s->best, key, h, kept);
    memcpy(out, best, sizeof(int64_t) * n);
    return status;
}

/* --- what a seat is sure of ----------------------------------------------------------------------- */
#define BIG (INT64_C(1) << 62)

static int alphabeta(SearchObject *s, const Pos *start, int seat, int64_t alpha, int64_t beta, int64_t *out) {
    const Rules *t = &s->t;
    Tab *tab = &s->sure[seat];
    int mv[MAXMOVES], k, spare = 0;
    uint64_t key[KMAX], h = 0;
    long known = -1;
    Pos forced[2];
    const Pos *p = start;
    for (;;) {
        if (p->mode == ENDED) {
            *out = p->bal[seat];
            return OK;
        }
        /* as in best play by all: only decision positions are kept, a forced one is not looked up */
        k = moves(t, p, mv);
        if (k > 1) {
            make_key(s, p, key);
            h = hash_key(key, s->words);
            known = find(tab, key, h);
            break;
        }
        play(t, p, mv[0], &forced[spare]);
        p = &forced[spare];
        spare ^= 1;
    }
    int64_t base = s->capped ? 0 : p->bal[seat], lower = -BIG, upper = BIG;
    if (known >= 0) {
        const int64_t *e = (const int64_t *)entry(tab, (size_t)known) + s->words;
        lower = e[0] + base, upper = e[1] + base;
        if (lower >= beta || lower == upper) {
            *out = lower;
            return OK;
        }
        if (upper <= alpha) {
            *out = upper;
            return OK;
        }
        if (lower > alpha) alpha = lower;
        if (upper < beta) beta = upper;
        int decided = (int)e[2];
        for (int m = 0; m < k; m++)
            if (mv[m] == decided) { /* the move that decided last time first: it most often cuts again */
                memmove(mv + 1, mv, sizeof(int) * m);
                mv[0] = decided;
                break;
            }
    }
    s->nodes++;
    if (s->nodes == s->limit) return LIMIT;
    int64_t start_alpha = alpha, start_beta = beta, value, found;
    int chosen = mv[0], mine = p->turn == seat;
    Pos q;
    value = mine ? -BIG : BIG;
    for (int m = 0; m < k; m++) {
        play(t, p, mv[m], &q);
        int status = alphabeta(s, &q, seat, alpha, beta, &found);
        if (status != OK) return status;
        if (mine) {
            if (found > value) value = found, chosen = mv[m];
            if (value >= beta) break;
            if (value > alpha) alpha = value;
        } else {
            if (found < value) value = found, chosen = mv[m];
            if (value <= alpha) break;
            if (value < beta) beta = value;
        }
    }
    if (value <= start_alpha) upper = value;
    else if (value >= start_beta) lower = value;
    else lower = upper = value;
    int64_t kept[3] = {lower - base, upper - base, chosen};
    *out = value;
    return store(tab, key, h, kept);
}

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
    int n = s->t.n;
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
        || field(obj, 12, 0, (1L << s->t.nboxes) - 1, &taken))
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
    if (table_of(&s->t, config)) {
        Py_DECREF(s);
        return NULL;
    }
    s->capped = capped;
    s->words = 2 * s->t.n + 2 + (capped ? s->t.n : 0);
    s->best.words = s->words, s->best.nvals = s->t.n;
    for (int seat = 0; seat < MAXN; seat++) s->sure[seat].words = s->words, s->sure[seat].nvals = 3;
    s->limit = limit;
    return (PyObject *)s;
}

static void Search_dealloc(SearchObject *s) {
    tab_free(&s->best);
    for (int seat = 0; seat < MAXN; seat++) tab_free(&s->sure[seat]);
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
    status = maxn(s, &p, out);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    if (status == LIMIT) Py_RETURN_NONE;
    if (status == NOMEM) return PyErr_NoMemory();
    return values_tuple(out, s->t.n);
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
    if (seat < 0 || seat >= s->t.n) {
        PyErr_SetString(PyExc_ValueError, "no such seat");
        return NULL;
    }
    if (read_position(s, position, &p)) return NULL;
    int64_t out;
    int status;
    s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    status = alphabeta(s, &p, seat, -BIG, BIG, &out);
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
    int k = moves(&s->t, &p, mv);
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
    return PyLong_FromSize_t(s->best.count);
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
    {"nodes", T_LONGLONG, offsetof(SearchObject, nodes), 0, "Decision positions searched."},
    {"limit", T_LONGLONG, offsetof(SearchObject, limit), 0, "The count at which the search gives up (-1: none)."},
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
