// Following a stream of the log (docs/STREAMS.md): `GET /api/v1/games/{game}/stream` or
// `GET /api/v1/clubs/{club}/stream`, Server-Sent Events. `EventSource` cannot send the Authorization header,
// so the stream is read with `fetch` (its body a ReadableStream) with the credentials `api()` uses (the
// share's secret, else the club's token), and its lines parsed here. When the stream drops or ends (it ends
// after its lifetime), it is opened again after a pause that grows with each failure, with `Last-Event-ID`
// set to the last id received: nothing skipped, nothing twice.

import { session, shareSession, tableSession } from "./common.js";

const BACKOFF = [500, 1000, 2000, 4000, 8000, 15000];

/**
 * Follow a stream: `onEvent(data, id)` for each SSE message (its data parsed as JSON, its id a number).
 * `after` is the last id already shown (the stream starts after it). Answers `{stop()}`.
 */
export function follow(path, { after = null, onEvent, onOpen } = {}) {
  let last = after;
  let stopped = false;
  let failures = 0;
  let controller = null;
  let timer = null;

  async function connect() {
    if (stopped) return;
    controller = new AbortController();
    const current = shareSession() ?? tableSession() ?? session();
    const headers = { Accept: "text/event-stream" };
    if (current) headers.Authorization = `Bearer ${current.token}`;
    if (last !== null && last !== undefined) headers["Last-Event-ID"] = String(last);
    let status = 0;
    try {
      const response = await fetch(`/api/v1${path}`, {
        headers, credentials: "same-origin", cache: "no-store", signal: controller.signal,
      });
      status = response.status;
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      if (onOpen) onOpen();
      await read(response.body);
      failures = 0; // the stream ended after its lifetime: open it again at once
    } catch (ignored) {
      failures += 1;
    }
    if (stopped) return;
    if (status === 401 || status === 403 || status === 404) return; // refused: nothing to follow
    const pause = failures ? BACKOFF[Math.min(failures - 1, BACKOFF.length - 1)] : 0;
    timer = setTimeout(connect, pause);
  }

  async function read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let id = null;
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
        if (line === "") { // the end of one event
          if (data.length) {
            const seen = id === null ? null : Number(id);
            if (seen !== null) last = seen;
            let parsed = null;
            try { parsed = JSON.parse(data.join("\n")); } catch (ignored) { parsed = null; }
            if (parsed !== null && onEvent) onEvent(parsed, seen);
          }
          id = null;
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue; // a heartbeat
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "id") id = value;
        else if (field === "data") data.push(value);
      }
    }
  }

  connect();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (controller) controller.abort();
    },
  };
}
