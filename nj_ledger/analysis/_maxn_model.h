/* The model of nj_ledger.analysis.model.Table in C, for the compiled searches (_maxn.c): a position as a
 * struct, its legal moves in the canonical order, the position after a move, and the settlement at the end.
 * Each function follows the Python method of the same name line for line (Table.moves, Table.play,
 * Table.settle), over the same fields (model.py's P_* indices).
 *
 * A hand is two words: the counts of plain cards by rank (3 bits a rank, 39 bits) and the special cards (a
 * bit a card, 52 bits), which is the model's single integer cut at bit 39.
 */
#ifndef NJ_MAXN_MODEL_H
#define NJ_MAXN_MODEL_H
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

#endif
