// Sign in: a club id and its token, checked against the API, kept in this tab or on this device.

import { $, ApiError, api, notify, saveSession, setupHeader, t } from "./common.js";

function nextPage() {
  const next = new URLSearchParams(location.search).get("next") || "/";
  return next.startsWith("/") && !next.startsWith("//") ? next : "/"; // this site only
}

setupHeader();
$("#signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  const club = $("#club").value.trim();
  const token = $("#token").value.trim();
  const candidate = { club, token };
  try {
    const info = await api(`/clubs/${encodeURIComponent(club)}`, { session: candidate });
    saveSession({ club: info.id, token, name: info.name }, $("#remember").checked);
    location.assign(nextPage());
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 401 || failure.status === 404)) {
      notify(t("signin.refused"));
    } else {
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
  }
});
