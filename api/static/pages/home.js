// The club's home: live games (to score or watch), recent games, links to everything else.

import { $, api, el, requireSession, start, t } from "./common.js";
import { setupImport } from "./exchange.js";

const STATUS = (status) => t(`status.${status}`);

function gameRow(game) {
  const id = encodeURIComponent(game.id);
  const live = game.status !== "ended";
  return el("li", { class: `game ${game.status}`, dataset: { game: game.id } },
    el("div", { class: "what" },
      el("strong", {}, game.title || game.players.join(", ")),
      el("span", { class: "meta" }, [
        game.date, t(`profile.${game.profile}`), STATUS(game.status),
        t("deals_played", { count: game.deals_played }),
      ].join(" · ")),
      game.title ? el("span", { class: "meta" }, game.players.join(", ")) : null),
    el("div", { class: "go" },
      live ? el("a", { class: "button primary", href: `/games/${id}/record` }, t("link.record")) : null,
      el("a", { class: "button", href: `/games/${id}/replay` }, t("link.replay")),
      el("a", { class: "button", href: `/games/${id}/audit` }, t("link.audit"))));
}

function list(games, empty) {
  return games.length ? el("ul", { class: "games" }, games.map(gameRow)) : el("p", { class: "empty" }, empty);
}

async function main() {
  const session = requireSession();
  const club = encodeURIComponent(session.club);
  $("#scoreboard-link").href = `/clubs/${club}/scoreboard`;
  const [info, page] = await Promise.all([api(`/clubs/${club}`), api(`/clubs/${club}/games?limit=50`)]);
  $("#club-title").textContent = info.name;
  $("#club-name").textContent = info.name;
  const live = page.games.filter((g) => g.status !== "ended");
  const recent = page.games.filter((g) => g.status === "ended").slice(0, 20);
  $("#live").replaceChildren(list(live, t("home.no_live")));
  $("#recent").replaceChildren(list(recent, t("home.no_recent")));
}

setupImport();
start(main);
