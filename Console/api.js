// The console's client of the server: the bearer token lives in this module's memory only (never in
// localStorage, sessionStorage or a cookie), and every request carries it in the Authorization header.

let token = null;
let expiresAt = 0;

/** An error answer of the API: its stable code and message. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function failure(response) {
  let code = `HTTP_${response.status}`;
  let message = response.statusText || 'request failed';
  try {
    const body = await response.json();
    code = body.code || code;
    message = body.message || message;
  } catch (_) { /* not JSON */ }
  return new APIError(response.status, code, message);
}

/** Exchanges client credentials for a token (POST /v1/m2m/token, Basic authentication). */
export async function signIn(clientId, secret) {
  const basic = btoa(unescape(encodeURIComponent(`${clientId}:${secret}`)));
  const response = await fetch('/v1/m2m/token', {
    method: 'POST', headers: { Authorization: `Basic ${basic}` }, cache: 'no-store', credentials: 'omit',
  });
  if (!response.ok) throw await failure(response);
  const body = await response.json();
  token = body.token;
  expiresAt = Date.parse(body.expiresOn) || 0;
  return body;
}

export function signOut() { token = null; expiresAt = 0; }
export function signedIn() { return token !== null && (expiresAt === 0 || Date.now() < expiresAt); }

/** A request with the bearer token; answers the Response (throws APIError on an error answer). */
export async function request(path, options = {}) {
  if (!token) throw new APIError(401, 'UNAUTHORIZED', 'Not signed in');
  const headers = Object.assign({}, options.headers || {}, { Authorization: `Bearer ${token}` });
  const response = await fetch(path, Object.assign({}, options, { headers, cache: 'no-store', credentials: 'omit' }));
  if (!response.ok) throw await failure(response);
  return response;
}

export async function json(path, options) { return (await request(path, options)).json(); }

/**
 * Follows a server-sent event stream with the bearer token in the headers (EventSource cannot send
 * one). Reconnects with Last-Event-ID as the server's `retry` asks; `onEvent(type, data, id)` for each
 * event. Returns a function that stops it.
 */
export function followEvents(path, onEvent, onState) {
  let stopped = false;
  let lastId = 0;
  let controller = null;
  async function loop() {
    let retry = 1000;
    while (!stopped) {
      try {
        controller = new AbortController();
        const headers = lastId ? { 'Last-Event-ID': String(lastId) } : {};
        const response = await request(path, { headers, signal: controller.signal });
        onState && onState('connected');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let type = 'message', data = [], id = null;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'event') type = value;
              else if (field === 'data') data.push(value);
              else if (field === 'id') id = value;
              else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
            }
            if (id !== null && /^\d+$/.test(id)) lastId = Number(id);
            if (data.length) onEvent(type, data.join('\n'), id);
          }
        }
      } catch (e) {
        if (stopped) return;
        onState && onState(`reconnecting (${e.code || e.message})`);
        if (e.status === 401 || e.status === 403) return;
        retry = Math.max(retry, 1000);
      }
      if (!stopped && retry > 0) await new Promise((r) => setTimeout(r, retry));
    }
  }
  loop();
  return () => { stopped = true; if (controller) controller.abort(); };
}
