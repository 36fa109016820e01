// The director's decisions on the evening's page: the form — an adjustment, a game voided, a withdrawal, a score
// awarded, players arriving or leaving — which asks a reason each time and is signed with the director's name
// (asked once on this device, kept, changeable), and the list of the decisions made, each with its reason, its
// amount in the evening's unit, who signed it and when. Once the evening is closed the list stays, the form goes.

import { $, el, notify, t } from "./common.js";
import { ask } from "./dialog.js";
import { decide, directorName, keepDirectorName, page } from "./evening_state.js";
import { mendText } from "./marks.js";

const MEND_KINDS = ["adjustment", "void", "withdrawal", "award", "arrival", "departure"];
const activePlayers = () => page.evening.players.filter((p) => !p.withdrawn);
const startedGames = () => page.grid.tables.flatMap((row) => row.cells.filter((c) => c && c.game));
const unit = () => (page.evening.ranking === "net_chips" ? "chips" : "points");

function field(label, input) {
  return el("label", {}, label, " ", input);
}

function playerSelect(id, players) {
  return el("select", { id, required: true }, players.map((p) => el("option", { value: p.name }, p.name)));
}

/** A player ticked among others (arriving or leaving: several at once). */
function pickBox(kind, name) {
  return el("label", { class: "check member" }, el("input", { type: "checkbox", class: kind, value: name }), " ", name);
}

/** Who signs: the name kept on this device with a button to change it, or the field that asks it once. */
function signer() {
  const name = directorName();
  if (!name) {
    return field(t("mend.signer"), el("input", { id: "signer-name", maxlength: 80, required: true,
      autocomplete: "name", placeholder: t("mend.signer_hint") }));
  }
  return el("p", { id: "signer", class: "signer" }, t("mend.signed_as", { name }), " ",
    el("button", { type: "button", id: "signer-change", class: "quiet-link", onclick: changeName }, t("mend.signer_change")));
}

async function changeName() {
  const name = directorName();
  const answer = await ask({ id: "signer-dialog", title: t("mend.signer_title"), text: t("mend.signer_explain"),
    yes: t("mend.signer_yes"), no: t("mend.signer_keep", { name }),
    field: { label: t("mend.signer"), value: name, maxlength: 80, required: true, focus: true } });
  if (answer && answer.value) {
    keepDirectorName(answer.value);
    renderMendForm();
  }
}

/** The mend form, drawn again (the evening changed, or its kind): what the director already chose or typed is kept,
 * unless `fresh` (a mend just recorded). */
export function renderMendForm(fresh = false) {
  const e = page.evening;
  const form = $("#mend");
  const kept = fresh ? [] : [...form.querySelectorAll("select[id], input[id]")].map((input) => [input.id, input.value]);
  const ticked = fresh ? [] : [...form.querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
  const kind = el("select", { id: "mend-kind", onchange: (event) => { page.kind = event.target.value; renderMendForm(); } },
    MEND_KINDS.map((k) => el("option", { value: k, selected: k === page.kind }, t(`mend.${k}`))));
  const fields = [field(t("mend.kind"), kind)];
  if (page.kind === "adjustment") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())),
      field(t(`mend.amount_${unit()}`), el("input", { id: "mend-amount", type: "number", step: "1", required: true })));
  } else if (page.kind === "void") {
    fields.push(field(t("mend.game"), el("select", { id: "mend-game", required: true },
      startedGames().filter((c) => c.mark !== "voided").map((c) => el("option", { value: c.game },
        `${t("evening.round", { round: c.round })} · ${t("evening.table_n", { table: c.table })} — ${c.players.join(", ")}`)))));
  } else if (page.kind === "withdrawal") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())));
  } else if (page.kind === "award") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())),
      field(t("mend.round"), el("select", { id: "mend-round" },
        [...Array(Math.max(e.current_round, 1))].map((_, i) => el("option", { value: i + 1 }, i + 1)))),
      field(t(`mend.score_${unit()}`), el("input", { id: "mend-score", type: "number", step: "1", required: true })));
  } else if (page.kind === "arrival") {
    const inEvening = new Set(e.players.map((p) => p.name.toLocaleLowerCase()));
    const back = e.players.filter((p) => !p.present && !p.withdrawn).map((p) => p.name);
    const club = page.members.filter((name) => !inEvening.has(name.toLocaleLowerCase()));
    const box = (name) => pickBox("arriving", name);
    if (back.length || club.length) {
      fields.push(el("fieldset", { id: "arrival-picks", class: "picks" }, el("legend", {}, t("mend.arriving")),
        back.length ? el("div", { class: "member-picks", id: "coming-back" },
          el("span", { class: "hint" }, t("mend.coming_back")), back.map(box)) : null,
        club.length ? el("div", { class: "member-picks", id: "club-members" },
          el("span", { class: "hint" }, t("mend.club_players")), club.map(box)) : null));
    }
    fields.push(field(back.length || club.length ? t("mend.new_players") : t("mend.arriving"),
      el("input", { id: "mend-names", autocomplete: "off", placeholder: t("mend.names_hint") })));
  } else if (page.kind === "departure") {
    fields.push(el("fieldset", { id: "departure-picks", class: "picks" }, el("legend", {}, t("mend.leaving")),
      el("div", { class: "member-picks" }, activePlayers().filter((p) => p.present).map((p) => pickBox("leaving", p.name)))));
  }
  fields.push(field(t("mend.reason"), el("input", { id: "mend-reason", maxlength: 500, required: true,
    autocomplete: "off", placeholder: t("mend.reason_hint") })));
  fields.push(signer());
  fields.push(el("button", { type: "submit", id: "mend-submit", class: "primary" }, t("mend.record")));
  form.replaceChildren(...fields);
  for (const [id, value] of kept) {
    const input = id === "mend-kind" ? null : form.querySelector(`#${id}`);
    // a select keeps its choice only while it still offers it (a player who left, a game voided meanwhile)
    if (input && (input.tagName !== "SELECT" || [...input.options].some((option) => option.value === value))) {
      input.value = value;
    }
  }
  for (const box of form.querySelectorAll("input[type=checkbox]")) box.checked = ticked.includes(box.value);
}

function mendBody() {
  const body = { type: page.kind, reason: $("#mend-reason").value.trim() };
  if (["adjustment", "withdrawal", "award"].includes(page.kind)) body.player = $("#mend-player").value;
  if (page.kind === "adjustment") body.amount = Number($("#mend-amount").value);
  if (page.kind === "void") body.game = $("#mend-game").value;
  if (page.kind === "award") {
    body.round = Number($("#mend-round").value);
    body.score = Number($("#mend-score").value);
  }
  if (page.kind === "arrival") {
    body.players = [...document.querySelectorAll("#mend input.arriving:checked")].map((box) => box.value)
      .concat($("#mend-names").value.split(/[\n,;]/).map((n) => n.trim()).filter(Boolean));
  }
  if (page.kind === "departure") {
    body.players = [...document.querySelectorAll("#mend input.leaving:checked")].map((box) => box.value);
  }
  return body;
}

/** The form sends its decision, signed with the name given once (kept for the next ones). */
export function setupMends() {
  $("#mend").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = mendBody();
    if (["arrival", "departure"].includes(body.type) && !body.players.length) {
      notify(t(body.type === "arrival" ? "mend.no_arrival" : "mend.no_departure"));
      return;
    }
    const typed = $("#signer-name");
    if (typed) keepDirectorName(typed.value);
    if (await decide(body, $("#mend-submit"))) renderMendForm(true);
  });
}

function decisionText(d) {
  const x = d.data;
  switch (d.type) {
    case "presence_changed": return [
      x.arrived?.length ? t("log.arrived", { players: x.arrived.join(", ") }) : "",
      x.left?.length ? t("log.left", { players: x.left.join(", ") }) : ""].filter(Boolean).join(" ");
    case "round_started": return t("log.round", { round: x.round });
    case "result_confirmed": return t("log.confirmed", { player: x.player, round: x.round, table: x.table });
    case "leaderboard_frozen": return t("log.frozen", { round: x.through_round });
    case "leaderboard_revealed": return t("log.revealed");
    case "evening_closed": return t("log.closed");
    case "evening_created": return t("log.created");
    default: return mendText(d.type, x, page.evening.ranking);
  }
}

/** Who made a decision: the name it was signed with ("by Marie"), else the device's token or the table. */
function byText(by) {
  if (!by) return "";
  if (by.signed_by) return t("mend.by", { name: by.signed_by });
  if (by.role === "table") return t("evening.table_n", { table: by.table });
  return by.label || by.role || "";
}

export function renderDecisions() {
  const shown = page.decisions.filter((d) => d.mend || d.type === "presence_changed" || d.type === "evening_closed")
    .slice().reverse();
  const list = $("#mends");
  if (!shown.length) {
    list.replaceChildren(el("li", { class: "empty" }, t("mend.none")));
    return;
  }
  list.replaceChildren(...shown.map((d) => el("li", { class: d.mend ? "mend" : "presence", dataset: { seq: d.seq, type: d.type } },
    el("strong", {}, decisionText(d)),
    d.data.reason ? el("span", { class: "reason" }, " — ", t("mend.because", { reason: d.data.reason })) : null,
    el("span", { class: "hint by" }, " · ", byText(d.by), " · ", new Date(d.recorded_at).toLocaleTimeString()))));
}
