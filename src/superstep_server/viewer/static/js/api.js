// The server's public HTTP API, as the langgraph-sdk calls it. The page is served by the
// server it views, so URLs are relative to the origin; an API key (a server started with
// SUPERSTEP_API_KEY) is asked once and kept in localStorage.

const KEY = "superstep.viewer.apiKey";

export class ApiError extends Error {
  constructor(status, detail, what) {
    super(`${what}: ${status} ${detail}`);
    this.status = status;
    this.detail = detail;
  }
}

function headers(extra) {
  const h = { "content-type": "application/json", ...(extra || {}) };
  const key = localStorage.getItem(KEY);
  if (key) h["x-api-key"] = key;
  return h;
}

async function failure(response, what) {
  let detail = response.statusText;
  try {
    const body = await response.json();
    detail = body.detail ?? JSON.stringify(body);
  } catch (_) { /* not JSON: keep the status text */ }
  if (response.status === 401) {
    const key = window.prompt(`The server wants an API key (${detail}):`);
    if (key) localStorage.setItem(KEY, key);
  }
  return new ApiError(response.status, detail, what);
}

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response, `${method} ${path}`);
  if (response.status === 204) return null;
  return response.json();
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body ?? {});

// POST (or GET) a streaming endpoint and call onEvent(event, data) per server-sent event;
// resolves when the stream ends. `signal` (an AbortSignal) stops reading.
export async function stream(method, path, body, onEvent, signal) {
  const response = await fetch(path, {
    method,
    headers: headers({ accept: "text/event-stream" }),
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response, `${method} ${path}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (!data.length) continue;
      let parsed = data.join("\n");
      try { parsed = JSON.parse(parsed); } catch (_) { /* keep the text */ }
      onEvent(event, parsed);
    }
  }
}

export const enc = encodeURIComponent;
