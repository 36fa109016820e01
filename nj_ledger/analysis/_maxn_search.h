/* The compiled searches over the model of _maxn_model.h: best play by all (max^n, PythonSearch.values) and
 * what a seat is sure of (alpha-beta, PythonSearch.secure), with their transposition tables. No Python here:
 * _maxn.c reads positions in, calls these with the interpreter's lock released, and writes the values out.
 */
#ifndef NJ_MAXN_SEARCH_H
#define NJ_MAXN_SEARCH_H
#include "_maxn_model.h"

/* A transposition table: slots (the hash's high 32 bits as a tag, which spares most comparisons of keys, and
 * the entry's number + 1; 0: empty) over entries kept one after the other (a key's words, then its values). */
typedef struct {
    uint64_t *ents, *slots;
    size_t count, room, nslots;
    int words, nvals;
} Tab;

/* One search: the rules it plays by, its tables and its count of positions against its limit. */
typedef struct {
    Rules t;
    int capped, words;
    long long nodes, limit;
    Tab best;          /* best play by all: the values (or what the position adds to the balances) */
    Tab sure[MAXN];    /* what each seat is sure of: lower and upper bounds and the deciding move */
} Searcher;

/* --- the transposition table -------------------------------------------------------------------- */
static void make_key(const Searcher *s, const Pos *p, uint64_t *key) {
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
static int maxn(Searcher *s, const Pos *start, int64_t *out) {
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

static int alphabeta(Searcher *s, const Pos *start, int seat, int64_t alpha, int64_t beta, int64_t *out) {
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

#endif
