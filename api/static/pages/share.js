// Shares: a read-only link to one game (its replay and audit) or to the club's scoreboard, opened without
// signing in. The link carries its secret in the fragment (#share=…), which a browser never sends to a server;
// common.js reads it there and sends it as the bearer token. For a member, a panel makes a link to copy and
// lists the links in use, each with a button to revoke it.

import { ApiError, api, el, lang, notify, session, sharedSecret, shareFragment, t } from "./common.js";
import { ask } from "./dialog.js";

/** `path` with the share's fragment when this page was opened with one (`#share=…`), as is otherwise. */
export const withShare = (path) => (sharedSecret() ? `${path}#${shareFragment().slice(0, -1)}` : path);

const when = (at) => (at ? new Date(at).toLocaleString(lang(), { dateStyle: "short", timeStyle: "short" }) : "");

/**
 * Mark the page as shared (read only) or, for a signed-in member, put the share panel after `anchor`.
 * `target` is `{ game }` or `{ scoreboard: true }`.
 */
export function setupSharing(anchor, target) {
  const kind = target.game ? "game" : "scoreboard";
  if (sharedSecret()) {
    document.body.classList.add("shared");
    anchor.after(el("p", { id: "shared-note", class: "shared-note" }, t(`share.note_${kind}`)));
    return;
  }
  const current = session();
  if (!current) return;
  const panel = new SharePanel(current.club, target, kind);
  anchor.after(panel.element);
  panel.refresh();
}

class SharePanel {
  constructor(club, target, kind) {
    this.club = club;
    this.target = target;
    this.kind = kind;
    this.label = el("input", { id: "share-label", maxlength: 120, size: 14, placeholder: t("share.label") ,
      "aria-label": t("share.label") });
    this.made = el("div", { id: "share-made", class: "share-made", hidden: true });
    this.list = el("ul", { id: "share-list", class: "share-list" });
    this.summary = el("summary", {}, t("share.list", { count: 0 }));
    this.element = el("section", { id: "share-panel", class: "share-panel" },
      el("div", { class: "actions" },
        el("button", { type: "button", id: "share-button", onclick: () => this.make() }, t("share.button")),
        this.label),
      this.made,
      el("details", { id: "share-links" }, this.summary, this.list));
  }

  get path() {
    return `/clubs/${encodeURIComponent(this.club)}/shares`;
  }

  async make() {
    try {
      const body = this.kind === "game" ? { game: this.target.game } : { scoreboard: true };
      const label = this.label.value.trim();
      if (label) body.label = label;
      const made = await api(this.path, { method: "POST", body });
      const link = new URL(made.url, location.origin).href;
      const field = el("input", { id: "share-url", readonly: true, value: link, "aria-label": t("share.link") });
      field.addEventListener("focus", () => field.select());
      this.made.replaceChildren(el("p", {}, t(`share.explain_${this.kind}`)),
        el("div", { class: "share-copy" }, field,
          el("button", { type: "button", id: "share-copy", onclick: () => copy(field) }, t("share.copy"))));
      this.made.hidden = false;
      this.label.value = "";
      await this.refresh();
    } catch (failure) {
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
  }

  async refresh() {
    const query = this.kind === "game" ? `game=${encodeURIComponent(this.target.game)}` : "resource=scoreboard";
    let found;
    try {
      found = await api(`${this.path}?${query}&in_use=true&limit=100`);
    } catch (failure) {
      this.element.hidden = true; // this server or this token cannot list shares: no panel
      return;
    }
    this.summary.textContent = t("share.list", { count: found.shares.length });
    this.list.replaceChildren(...found.shares.map((share) => el("li", { dataset: { share: share.id } },
      el("span", {}, share.label || t("share.unlabelled")), " ",
      el("span", { class: "hint" }, t("share.made", { at: when(share.created_at) }), " · ",
        share.last_used_at ? t("share.opened", { at: when(share.last_used_at) }) : t("share.never_opened")), " ",
      el("button", { type: "button", class: "revoke",
        onclick: () => this.revoke(share.id, share.label || t("share.unlabelled")) }, t("share.revoke")))));
  }

  async revoke(id, label) {
    const answer = await ask({ id: "revoke-dialog", title: t("share.revoke_title", { label }),
      text: t("share.revoke_confirm"), yes: t("share.revoke_yes"), no: t("share.revoke_no") });
    if (!answer) return;
    try {
      await api(`${this.path}/${id}`, { method: "DELETE" });
      this.made.hidden = true;
      notify(t("share.revoked"), "info");
      await this.refresh();
    } catch (failure) {
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
  }
}

async function copy(field) {
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
  } catch (ignored) {
    document.execCommand("copy"); // plain http: the clipboard API is not offered
  }
  notify(t("share.copied"), "info");
}

/** Take links a shared page has no use for (the scorer's) out of the page, with the "·" that sets them apart. */
export function dropForShare(...nodes) {
  if (!sharedSecret()) return;
  for (const node of nodes) {
    if (!node) continue;
    const apart = node.nextSibling?.nodeType === Node.TEXT_NODE ? node.nextSibling : node.previousSibling;
    if (apart?.nodeType === Node.TEXT_NODE && apart.textContent.trim() === "·") apart.remove();
    node.remove();
  }
}
