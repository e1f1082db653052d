// Small fetch wrapper: JSON in, JSON out; errors become Error(message) from the server's
// `{"error", "message"}` body.
export async function api(path, { method = "GET", body, headers = {} } = {}) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(data.message || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.code = data.error;
    throw err;
  }
  return data;
}

export function wsUrl(path) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}`;
}

// A WebSocket that reconnects; `onMessage(obj)` for JSON messages, `onState(up)` on (dis)connect.
export function liveSocket(path, onMessage, onState = () => {}) {
  let ws;
  const open = () => {
    ws = new WebSocket(wsUrl(path));
    ws.onopen = () => onState(true);
    ws.onmessage = (ev) => { if (typeof ev.data === "string") onMessage(JSON.parse(ev.data)); };
    ws.onclose = (ev) => { onState(false, ev); if (ev.code < 4400 || ev.code >= 4500) setTimeout(open, 1500); };
  };
  open();
  return { send: (obj) => ws && ws.readyState === 1 && ws.send(JSON.stringify(obj)) };
}
