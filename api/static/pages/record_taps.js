// What may be tapped, answered by the page itself: the one copy, in JavaScript, of the core's play rules (the checks
// of a play: `_decide_play` and `_infer_passes` in nj_ledger/decide.py, `check_cards` and `check_may_pass` in
// nj_ledger/checks.py, the round blocked: `_block` in nj_ledger/reducer.py) and of its undo (the deal's log folded
// as the reducer folds it). Its answer has the very shape of the core's `tappable` (nj_ledger/scorer.py).
//
// Why a copy stays. The scorer asks what may be tapped at every tap and must answer at once, from the moment the
// page opens. The core itself runs in the page (core.js: Pyodide in a worker) only once it has loaded: it is loaded
// when the connection drops or an action gets no answer, not when the page opens (it takes 4–7 s of a processor
// core and the runtime's memory, docs/OFFLINE.md), and a phone without WebAssembly, or that never kept the runtime,
// never has it. The server's state (nj_ledger/view.py) tells whose turn it is, what the run wants and who passed,
// not the cards seen this deal, who laid the last card nor which later seat may lay which card. So until the core
// has loaded, and where it cannot, this module answers; once the core has loaded, its answer replaces this one
// (record_core.js). tests/browser/test_scorer_rules_here.py holds the two answers equal on simulated positions of
// every profile, hands known and not, undos among them. The bounds of a game's length are left to the server.

import { DECK, endsRun, parseCard, parseExpected } from "./cards.js";

/** What the run wants after `card`: null (a new run) after a card that ends it, else the next rank (its suit too,
 * in suit play). */
export function wantedAfter(rules, card) {
  if (endsRun(rules, card)) return null;
  const { rank, suit } = parseCard(card);
  return { rank: rank + 1, suit: rules.sequence === "suit" ? suit : null };
}

function follows(card, wanted) {
  const { rank, suit } = parseCard(card);
  return rank === wanted.rank && (!wanted.suit || suit === wanted.suit);
}

/**
 * What the open deal's log tells beyond the game state: the cards seen (played or revealed), who laid the last
 * card, and whether a card was laid yet, following undos. Each play, pass or reveal is a group (inferred passes
 * belong to the play they follow); an undo withdraws the latest group, as the reducer does.
 */
export function dealProgress(events) {
  let groups = [];
  let inferring = false;
  for (const event of events) {
    const { type, data } = event;
    if (type === "deal") {
      groups = [];
      inferring = false;
    } else if (type === "pass") {
      if (!data.inferred || !inferring) groups.push({ cards: [], player: null });
      inferring = Boolean(data.inferred);
    } else if (type === "play") {
      if (!inferring) groups.push({ cards: [], player: null });
      const group = groups[groups.length - 1];
      group.cards.push(...data.cards);
      group.player = data.seat;
      inferring = false;
    } else if (type === "reveal") {
      // a hand shown card by card, or counted (its honours still held are seen too)
      groups.push({ cards: [...(data.cards || []), ...(data.honours || [])], player: null });
    } else if (type === "undo") {
      groups.pop();
      inferring = false;
    }
  }
  const plays = groups.filter((group) => group.player !== null);
  return {
    seen: new Set(groups.flatMap((group) => group.cards)),
    lastPlayer: plays.length ? plays[plays.length - 1].player : null,
    opened: plays.length > 0,
  };
}

/** With `may_stop: false` and the hands known, a seat holding the wanted card may not pass (`check_may_pass`). */
function mustPlay(at, seat, wanted) {
  const { deal, rules } = at.state;
  if (rules.may_stop || !deal.hands || !wanted) return false;
  return deal.hands[seat].some((card) => follows(card, wanted) && card !== rules.wild);
}

/**
 * Whether the rules accept `cards` laid by `seat` (with `partial`, also a play refused only because its player may
 * not stop there: the start of a longer play). A later seat's play records the passes in between first; when they
 * complete the round the run is blocked (the missing rank skipped, or a new run by the restarter).
 */
function accepts(at, seat, cards, partial) {
  const { deal, rules } = at.state;
  const n = deal.hand_sizes.length;
  const last = at.progress.lastPlayer;
  if (new Set(cards).size !== cards.length) return false;
  let turn = deal.turn;
  let wanted = parseExpected(deal.expected);
  if (turn !== seat) {
    if (!wanted) return false; // a new run: only the seat to act starts it
    const passers = [...deal.passed];
    // The passes a round needs: every other seat after a play; every seat, its last player first, after a skip
    // (then the turn went back to that player: the turn is as many seats past them as there were passes).
    let needed = (((turn - last - passers.length) % n) + n) % n === 0 ? n : n - 1;
    while (turn !== seat) {
      // a seat in between that may not pass: the core answers as for its own player's stop (`MAY_GO_ON`)
      if (mustPlay(at, turn, wanted)) return partial;
      passers.push(turn);
      turn = (turn + 1) % n;
      if (passers.length < needed) continue;
      if (rules.blocked === "skip" && wanted.rank !== 13) {
        wanted = { rank: wanted.rank + 1, suit: wanted.suit };
        turn = last;
        passers.length = 0;
        needed = n;
      } else {
        turn = rules.restarter === "last_player" ? last : passers[0];
        wanted = null;
        break;
      }
    }
    if (turn !== seat) return false;
  }
  if (cards.length > deal.hand_sizes[seat]) return false;
  const hand = deal.hands ? deal.hands[seat] : null;
  for (const [position, card] of cards.entries()) {
    if (at.progress.seen.has(card) || (hand && !hand.includes(card))) return false;
    if (card === rules.wild) {
      // the chief hoc may be laid at any time in its holder's turn
    } else if (!wanted) {
      const lowest = hand && Math.min(...hand.map((held) => parseCard(held).rank));
      if (position === 0 && !at.progress.opened && rules.opening === "lowest" && hand
          && parseCard(card).rank !== lowest) return false;
    } else if (!follows(card, wanted)) {
      return false;
    }
    wanted = wantedAfter(rules, card);
  }
  const goesOut = cards.length === deal.hand_sizes[seat];
  if (!goesOut && wanted && !rules.may_stop && hand) { // may not stop while holding the next card
    const left = hand.filter((card) => !cards.includes(card));
    if (left.some((card) => follows(card, wanted) && card !== rules.wild)) return partial;
  }
  return true;
}

/**
 * What the scorer may tap on `state` (the API's view), `events` the game's log, `pending` the cards tapped so far,
 * `chosen` the seat chosen (or null): `{cards: {card: [seats]}, recordable: [seats], starts: [seats], seen: [cards]}`,
 * as the core's `tappable` answers it.
 */
export function tapsHere(state, events, pending, chosen) {
  const deal = state.deal;
  if (!deal) return { cards: {}, recordable: [], starts: [], seen: [] };
  const progress = dealProgress(events);
  const at = { state, progress };
  const seats = chosen !== null && chosen >= 0 ? [chosen] : deal.hand_sizes.map((_, seat) => seat);
  const cards = {};
  let recordable = [];
  let starts = [];
  if (state.status === "playing") {
    for (const card of DECK) {
      cards[card] = pending.includes(card) ? [] : seats.filter((seat) => accepts(at, seat, [...pending, card], true));
    }
    if (pending.length) {
      recordable = seats.filter((seat) => accepts(at, seat, pending, false));
      starts = seats.filter((seat) => accepts(at, seat, pending, true));
    } else {
      starts = seats;
    }
  }
  return { cards, recordable, starts, seen: [...progress.seen] };
}
