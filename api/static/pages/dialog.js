// An in-page question before a decision: a <dialog> opened with showModal(), with its title, its sentence, a text
// field when something is to be typed, and two buttons whose words say what each does ("Close the evening" /
// "Keep the evening open"). Escape, or the button that keeps things as they are, answers no. Focus goes to the
// first button — the one that changes nothing — unless typing is what is asked, so that no phone keyboard opens
// for a yes or a no. Screen readers read the title and the sentence (aria-labelledby, aria-describedby).

import { el } from "./common.js";

let asked = 0;

/**
 * Ask a question in the page. Options: `title`, `text` (one sentence, or a list of them), `yes` and `no` (the
 * buttons' words), `field` (`{label, value, maxlength, required, focus, hint}`: a text field; `focus` puts the
 * cursor in it), `id` (the dialog's id). Answers a promise: null when the answer is no (or Escape), else
 * `{value}` (the field's text, trimmed; "" without a field).
 */
export function ask({ title, text, yes, no, field = null, id = null }) {
  asked += 1;
  const titleId = `ask-title-${asked}`;
  const textId = `ask-text-${asked}`;
  const sentences = (Array.isArray(text) ? text : [text]).filter(Boolean);
  const input = field ? el("input", {
    id: `ask-field-${asked}`, class: "ask-field", type: "text", autocomplete: "off", maxlength: field.maxlength ?? 500,
    required: Boolean(field.required), placeholder: field.hint ?? null, enterkeyhint: "done" }) : null;
  if (input && field.value) input.value = field.value;
  const keep = el("button", { type: "submit", value: "no", class: "ask-no", formnovalidate: true }, no);
  const go = el("button", { type: "submit", value: "yes", class: "ask-yes primary" }, yes);
  const form = el("form", { method: "dialog" },
    el("h2", { id: titleId, class: "ask-title" }, title),
    el("div", { id: textId, class: "ask-text" }, sentences.map((sentence) => el("p", {}, sentence))),
    input ? el("label", { class: "ask-label", for: input.id }, field.label) : null,
    input,
    el("p", { class: "actions ask-actions" }, keep, go));
  const dialog = el("dialog", { class: "ask-dialog", id, "aria-labelledby": titleId, "aria-describedby": textId },
    form);
  if (input) {
    // Enter in the field answers yes (the form's first button is the one that changes nothing)
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        go.click();
      }
    });
  }
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const answer = dialog.returnValue === "yes" ? { value: input ? input.value.trim() : "" } : null;
      dialog.remove();
      resolve(answer);
    }, { once: true });
    dialog.showModal();
    (input && field.focus ? input : keep).focus();
  });
}
