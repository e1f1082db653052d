// The dashboard: one live state from /ws, rendered into panels; actions are REST calls.
// No framework, no build step: each render function owns one panel and redraws it whole.
import { api, liveSocket, wsUrl } from "./api.js";
import { cardEl, el } from "./cards.js";
import { correctCard, renderEntry, renderMarketEntry } from "./entry.js";
import { announcementText, applyStatic, lang, setLang, t } from "./i18n.js";
import { khmerButtons, renderKhmer } from "./khmer.js";
import { onGameChange, openCalibration, openJoin, openSettings, submitNewGame, wireTabs } from "./settings.js";
import { beep, setSound, soundEnabled, speak } from "./sound.js";
import { $, act, gameName, header, players, rules, teamOf, toast, ui, view, word } from "./store.js";
import { CameraView } from "./video.js";

// ---------------------------------------------------------------- panels
function renderTop() {
  const g = gameName();
  const label = { kemps: "Kemps", kems: "Kem's", khmer: "Khmer" }[g] || g;
  const v = (header().rules || {}).variant;
  const variant = Array.isArray(v) ? v.join("+") : v;
  $("#game-label").textContent = `${label}${variant ? " · " + variant : ""}${word() && g === "kemps" ? " · " + word() : ""}`;
  $("#btn-sound").textContent = soundEnabled() ? t("sound_on") : t("sound_off");
  setConn(Boolean(ui.connected));
}

function renderMarket() {
  const table = ui.state.table;
  const fromCamera = table && table.market && table.market.length;
  const cards = fromCamera ? table.market : (view().market || []);
  const conf = fromCamera ? table.market_confidence : [];
  const node = $("#market");
  node.replaceChildren();
  for (let i = 0; i < 4; i++) {
    node.append(cardEl(cards[i], { confidence: conf[i] ?? null, extra: table && table.market_occluded ? "occluded" : "" }));
  }
  node.dataset.cards = cards.join(",");
  // Stale timer: quiet seconds against the stale threshold.
  const staleAfter = Number(header().stale_after_s || (header().tracker || {}).stale_after_s || 5);
  const quiet = table ? table.seconds_since_market_change : 0;
  const fill = $("#stale-fill");
  const frac = Math.min(1, quiet / staleAfter);
  fill.style.width = `${Math.round(frac * 100)}%`;
  fill.classList.toggle("late", frac >= 0.8);
  $("#stale-text").textContent = !table ? "" : table.hand_in_market ? t("occluded")
    : t("quiet", { s: quiet.toFixed(0) });
  const awaiting = ui.state.game.awaiting || {};
  $("#reset-prompt").hidden = awaiting.kind !== "reset";
  $("#btn-stale").hidden = view().phase !== "play";
  renderMarketEntry(awaiting);
}

function awaitingText(a) {
  if (!a || !a.kind) return "";
  if (a.kind === "reveal") return t("awaiting_reveal", { seats: (a.seats || []).join(", ") });
  if (a.kind === "reset") return t("awaiting_reset");
  if (a.kind === "deal") return t("awaiting_deal") + (a.dealer ? ` (${a.dealer})` : "");
  if (a.kind === "show") return t("awaiting_show", { players: (a.players || []).join(", "), count: a.count });
  if (a.kind === "redraw") return t("awaiting_redraw", { players: (a.players || []).join(", ") });
  if (a.kind === "turn") return `${a.player}: ${t("turn")}`;
  return a.prompt || a.kind;
}

function renderAwaiting() {
  const a = ui.state.game.awaiting;
  const finished = view().finished;
  const reveal = ui.state.reveal;
  $("#awaiting-text").textContent = finished ? t("finished") : awaitingText(a);
  renderEntry(a || {});
  const box = $("#reveal");
  box.hidden = !reveal;
  if (!reveal) return;
  $("#reveal-seats").textContent = reveal.seats.join(", ");
  const status = (ui.state.table && ui.state.table.reveal_status) || {};
  const hands = $("#reveal-hands");
  hands.replaceChildren();
  for (const seat of reveal.seats) {
    const cards = reveal.hands[seat] && reveal.hands[seat].length ? reveal.hands[seat] : (status[seat] ? status[seat].cards : []);
    const conf = reveal.hands[seat] && reveal.hands[seat].length ? reveal.confidence[seat] : [];
    const corrected = reveal.corrected.includes(seat);
    const row = el("div", { class: "seat-hand", "data-seat": seat }, el("span", { class: "seat-name", text: seat }));
    cards.forEach((card, i) => {
      row.append(cardEl(card, { small: true, confidence: conf[i] ?? null, extra: corrected ? "corrected" : "",
        onclick: () => correctCard(seat, cards, i) }));
    });
    row.append(el("button", { class: "ghost", "data-add": seat, text: t("add_card"), onclick: () => correctCard(seat, cards, cards.length) }));
    if (status[seat] && !status[seat].settled && !corrected) row.append(el("span", { class: "muted small", text: "…" }));
    hands.append(row);
  }
}

function renderHeard() {
  const box = $("#heard");
  box.replaceChildren();
  for (const h of ui.state.heard || []) {
    const label = `${t("heard")}: ${t(h.call)}${h.target ? " " + h.target : ""}?`;
    const item = el("div", { class: "heard-item", "data-heard": h.id }, el("strong", { text: label }));
    const confirm = async (by, target) => {
      const out = await act(() => api(`/api/voice/heard/${h.id}/confirm`, { method: "POST", body: { by, target: target || h.target || null } }));
      if (out && !out.accepted) toast(out.reason || "refused", false);
    };
    const by = h.by || ui.caller;
    if (h.call === "cut" && !h.target) {
      // "Stop Kemps!" names nobody: the caller (who spoke, or the selected seat) picks the accused.
      item.append(el("span", { class: "muted", text: `${by} → ${t("who")}` }));
      for (const p of players().filter((x) => !teamOf(by).includes(x))) {
        item.append(el("button", { class: "btn-cut", "data-confirm": p, text: `${t("cut")} ${p}`, onclick: () => confirm(by, p) }));
      }
    } else if (h.by) item.append(el("button", { class: "primary", "data-confirm": h.by, text: "✓ " + h.by, onclick: () => confirm(h.by) }));
    else {
      item.append(el("span", { class: "muted", text: t("who") }));
      // A Cut is called by a rival of the player it names.
      const callers = h.target ? players().filter((p) => !teamOf(h.target).includes(p)) : players();
      for (const p of callers) item.append(el("button", { "data-confirm": p, text: p, onclick: () => confirm(p) }));
    }
    item.append(el("button", { class: "ghost", text: "✕", onclick: () => act(() => api(`/api/voice/heard/${h.id}`, { method: "DELETE" })) }));
    box.append(item);
  }
}

function renderCaller() {
  const ps = players();
  if (!ps.includes(ui.caller)) ui.caller = ps[0];
  const node = $("#caller");
  node.replaceChildren(...ps.map((p) => el("button", {
    class: `chip ${p === ui.caller ? "active" : ""}`, "data-seat": p, text: p,
    onclick: () => { ui.caller = p; localStorage.setItem("kr_caller", p); renderCalls(); },
  })));
}

async function sendCall(call, target = null) {
  if (!ui.caller) { toast(t("pick_caller"), false); return; }
  beep("call");
  const body = { call, by: ui.caller };
  if (target) body.target = target;
  const out = await act(() => api("/api/calls", { method: "POST", body }));
  if (out && !out.accepted) toast(out.reason || "refused", false);
}

function renderCalls() {
  renderCaller();
  const g = gameName();
  const box = $("#call-buttons");
  box.hidden = g === "khmer";
  $("#khmer-buttons").hidden = g !== "khmer";
  $("#caller").parentElement.hidden = g === "khmer" && Boolean(view().turn);
  if (g === "khmer") { khmerButtons($("#khmer-buttons"), ui, { api, act, t, players: players() }); return; }
  box.replaceChildren();
  if (g === "kemps") {
    box.append(el("button", { class: "big btn-kemps", "data-call": "kemps", text: `${t("kemps")} (${teamOf(ui.caller).join("+")})`,
      onclick: () => sendCall("kemps") }));
    if (rules().cut_allowed !== false) {
      const rivals = players().filter((p) => !teamOf(ui.caller).includes(p));
      box.append(el("div", { class: "targets" }, ...rivals.map((p) => el("button", {
        class: "btn-cut", "data-call": "cut", "data-target": p, text: `${t("cut")} ${p}`, onclick: () => sendCall("cut", p),
      }))));
    }
  } else {
    for (const call of ["kems", "double_kems", "contre_kems"]) {
      box.append(el("button", { class: `big ${call === "contre_kems" ? "btn-cut" : "btn-kemps"}`, "data-call": call,
        text: t(call), onclick: () => sendCall(call) }));
    }
  }
}

function standingsList() {
  const s = ui.state.game.standings || view().standings || [];
  return Array.isArray(s) ? s : Object.entries(s).map(([k, v]) => ({ team: k.split(/[+,]/), ...(typeof v === "object" ? v : { points: v }) }));
}

function renderScore() {
  const board = $("#scoreboard");
  board.replaceChildren();
  const w = word();
  const outcome = view().outcome || {};
  const losers = (outcome.losers || []).map((tm) => tm.join("+"));
  for (const s of standingsList()) {
    const name = Array.isArray(s.team) ? s.team.join("+") : (s.player || s.team || "?");
    const row = el("div", { class: `team ${losers.includes(name) ? "lost" : ""}`, "data-team": name }, el("span", { class: "team-name", text: name }));
    if (s.letters !== undefined) {
      const got = String(s.letters || "");
      row.append(el("span", { class: "letters" }, ...[...w].map((ch, i) => el("span", { class: `letter ${i < got.length ? "got" : ""}`, text: ch }))));
    } else {
      row.append(el("span", { class: "points", text: String(s.points ?? s.score ?? 0) }), el("span", { class: "muted", text: t("points") }));
    }
    board.append(row);
  }
  const results = view().last_results || [];
  const last = results.filter((r) => r.kind !== "anomaly").slice(-1)[0];
  const res = $("#result");
  res.replaceChildren();
  if (last) {
    const ok = last.correct;
    res.append(el("div", { class: ok ? "ok" : "bad", text: describeResult(last) }));
  }
}

function describeResult(r) {
  if (r.kind === "close") {
    const totals = Object.entries(r.totals || {}).map(([p, v]) => `${p} ${v}`).join(", ");
    return `${t("table_total")} ${r.table} · ${totals} · ${r.winner ? t("winner") + " " + r.winner : t("nobody")}`;
  }
  const head = `${r.by || ""} ${t(r.call) || r.call || r.kind}${r.target ? " → " + r.target : ""}`;
  const mark = r.correct === undefined ? "" : r.correct ? " ✓" : " ✗";
  const letters = (r.letters || []).map((l) => ` · ${(l.team || []).join("+")} +${l.letter}`).join("");
  const points = Array.isArray(r.points) ? r.points.map((p) => ` · ${(p.team || []).join("+")} +${p.points}`).join("")
    : r.points && typeof r.points === "object" ? Object.entries(r.points).map(([k, v]) => ` · ${k} +${v}`).join("") : "";
  return head + mark + letters + points;
}

// Event and source names in the chosen language (the raw name when there is no translation).
function evName(type) { const k = `ev_${type}`; const s = t(k); return s === k ? type : s; }
function srcName(source) {
  const [kind, rest] = String(source).split(/[: ]/, 2);
  const k = `src_${kind}`; const s = t(k);
  return (s === k ? kind : s) + (rest ? ` ${String(source).slice(kind.length + 1)}` : "");
}

function renderLog() {
  const list = $("#log");
  list.replaceChildren();
  const entries = [...(ui.state.game.log || [])].reverse();
  for (const e of entries) {
    const ev = e.event || {};
    const said = (e.announcements || []).map(announcementText).join(" ");
    const what = ev.type === "call" ? `${ev.by}: ${t(ev.call)}${ev.target ? " " + ev.target : ""}`
      : ev.type === "undo" ? `${evName("undo")} ${evName((ev.undone || {}).type || "")}`
      : ev.player ? `${ev.player}: ${evName(ev.type)}${ev.card !== undefined ? " " + ev.card : ""}` : evName(ev.type);
    list.append(el("li", { class: e.accepted ? (e.undone ? "undone" : "") : "rejected" },
      el("span", { text: `${what}${said ? " — " + said : ""}${e.accepted ? "" : " ✗ " + (e.reason || "")}` }),
      e.source && e.source !== "log" ? el("span", { class: "src", text: ` · ${srcName(e.source)}` }) : null));
  }
  const calls = $("#call-log");
  calls.replaceChildren(...(ui.state.calls || []).slice().reverse().map((c) => el("li", {
    text: `#${c.seq} ${c.source} ${c.by} ${c.call}${c.target ? " " + c.target : ""} @${c.at}s${c.judged ? " → " + c.judged : ""}${c.accepted === false ? " ✗" : ""}`,
  })));
}

function renderFeed() {
  const f = ui.state.feed || {};
  const parts = [];
  if (f.source) parts.push(f.source);
  if (f.running) parts.push(`${f.fps} fps`, `${f.process_ms} ms`);
  if (f.reader && f.reader !== "ok") parts.push(`${t("reader")}: ${f.reader}`);
  if (f.error) parts.push(f.error);
  if (ui.state.voice && ui.state.voice !== "not connected") parts.push(`◉ ${ui.state.voice}`);
  $("#feed-status").textContent = parts.join(" · ");
  if (!f.running && !camera.frames) $("#cam-msg").textContent = f.source ? (f.error || t("waiting_camera")) : t("no_camera");
}

function render() {
  if (!ui.state) return;
  const khmer = gameName() === "khmer";
  $("#kemps-board").hidden = khmer;
  $("#khmer-board").hidden = !khmer;
  renderTop();
  if (khmer) renderKhmer($("#khmer-board"), ui.state, { t }); else renderMarket();
  renderAwaiting();
  renderHeard();
  renderCalls();
  renderScore();
  renderLog();
  renderFeed();
  document.body.dataset.version = ui.state.game.version;
}

// ---------------------------------------------------------------- live updates
function onMessage(msg) {
  if (msg.type === "state") { ui.state = msg; render(); }
  else if (msg.type === "table" && ui.state) {
    ui.state.table = msg.table;
    if (gameName() === "khmer") renderKhmer($("#khmer-board"), ui.state, { t }); else renderMarket();
    if (ui.state.reveal) renderAwaiting();
  } else if (msg.type === "announce") {
    const text = msg.items.map(announcementText).join(" ");
    speak(text);
    const keys = msg.items.map((a) => a.key || "").join(" ");
    beep(/letter|wrong|lose|lost/.test(keys) ? "letter" : /point|kems/.test(keys) ? "point" : /stale|reset/.test(keys) ? "stale" : "ok");
    toast(text, true);
  } else if (msg.type === "notice") {
    const item = msg.item || {};
    toast(item.prompt || item.message || item.type, false);
    if (item.prompt) speak(item.prompt);
  } else if (msg.type === "layout") { ui.layout = msg; camera.setLayout(msg); }
}

function setConn(up) {
  ui.connected = up;
  const c = $("#conn");
  c.textContent = up ? t("online") : t("offline");
  c.className = `pill ${up ? "on" : "off"}`;
}

// ---------------------------------------------------------------- voice (referee/web/voice)
let mic = null;
async function toggleMic() {
  if (mic) { mic.stop(); mic = null; $("#btn-mic").classList.remove("primary"); return; }
  try {
    const { startMic } = await import("/static/voice/mic.js");
    // The laptop's microphone hears the whole table: it cannot know who spoke, so every call
    // it hears is shown as "heard: …?" for one tap on the caller (a call's "by" is never guessed).
    mic = await startMic(wsUrl("/ws/mic"), {
      onMessage: (m) => { if (m && m.status === "unavailable") { toast(`${t("voice_unavailable")}: ${m.message}`, false); } },
      onClose: () => { mic = null; $("#btn-mic").classList.remove("primary"); },
    });
    $("#btn-mic").classList.add("primary");
  } catch (err) { toast(`${t("voice_unavailable")}: ${err.message}`, false); }
}

// ---------------------------------------------------------------- start
const camera = new CameraView($("#cam"), $("#cam-msg"), wsUrl("/ws/video"));

function start() {
  setLang(lang());
  $("#lang").value = lang();
  $("#lang").addEventListener("change", (e) => { setLang(e.target.value); render(); });
  $("#btn-sound").addEventListener("click", () => { setSound(!soundEnabled()); renderTop(); beep("ok"); });
  $("#btn-join").addEventListener("click", openJoin);
  $("#btn-settings").addEventListener("click", openSettings);
  $("#btn-mic").hidden = false;
  $("#btn-mic").addEventListener("click", toggleMic);
  $("#form-game").addEventListener("submit", submitNewGame);
  $("#form-game [name=game]").addEventListener("change", (e) => onGameChange(e.target.value));
  $("#calib-refresh").addEventListener("click", () => openCalibration(camera));
  $("#btn-new-hand").addEventListener("click", () => act(() => api("/api/game/new-hand", { method: "POST" })));
  $("#btn-undo").addEventListener("click", () => act(() => api("/api/game/undo", { method: "POST" })));
  $("#btn-stale").addEventListener("click", () => act(() => api("/api/events", { method: "POST", body: { type: "stale" } })));
  $("#btn-confirm-reveal").addEventListener("click", () => act(() => api("/api/reveal/confirm", { method: "POST", body: {} })));
  $("#show-zones").addEventListener("change", (e) => { camera.showZones = e.target.checked; });
  $("#show-cards").addEventListener("change", (e) => { camera.showCards = e.target.checked; });
  wireTabs(camera);
  applyStatic();
  api("/api/phones/invite").then((i) => { $("#join-code-short").textContent = i.code; }).catch(() => {});
  api("/api/table/layout").then((l) => { ui.layout = l; camera.setLayout(l); }).catch(() => {});
  liveSocket("/ws", onMessage, setConn);
  camera.connect();
}

start();
