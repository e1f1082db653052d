// Phone buzzer: join a seat with the table's code, then big call buttons.
import { api, liveSocket } from "./api.js";
import { el } from "./cards.js";
import { applyStatic, announcementText, lang, setLang, t } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
let me = JSON.parse(localStorage.getItem("kr_phone") || "null");
let info = null;
let live = null;

const auth = () => ({ "X-Phone-Token": me.token });

function status(text, ok = true) {
  const node = $("#status");
  node.textContent = text;
  node.className = `toast ${ok ? "ok" : "bad"}`;
}

async function showJoin() {
  $("#buzzer").hidden = true;
  $("#join").hidden = false;
  $("#me").textContent = "";
  const params = new URLSearchParams(location.search);
  if (params.get("code")) $("#join").code.value = params.get("code");
  const seats = await api("/api/phones/seats").catch(() => ({ players: [] }));
  $("#join").seat.replaceChildren(...seats.players.map((p) => el("option", { value: p, text: p })));
}

async function join(ev) {
  ev.preventDefault();
  const f = ev.target;
  try {
    me = await api("/api/phones/join", { method: "POST", body: { code: f.code.value.trim(), seat: f.seat.value, name: f.name.value.trim() } });
    localStorage.setItem("kr_phone", JSON.stringify(me));
    $("#join-error").textContent = "";
    await showBuzzer();
  } catch (err) { $("#join-error").textContent = err.message; }
}

async function call(kind, target = null) {
  if (navigator.vibrate) navigator.vibrate(60);
  const body = { call: kind };
  if (target) body.target = target;
  try {
    const out = await api("/api/phones/call", { method: "POST", body, headers: auth() });
    status(`#${out.seq} ${t(kind)}${target ? " " + target : ""} ${out.accepted ? "✓" : "✗ " + (out.reason || "")}`, out.accepted);
  } catch (err) {
    if (err.status === 401) { localStorage.removeItem("kr_phone"); me = null; showJoin(); return; }
    status(err.status ? err.message : t("offline"), false);  // no status: the server is unreachable
  }
}

function renderButtons() {
  const box = $("#buttons");
  box.replaceChildren();
  const game = info.game;
  const teams = info.teams || [];
  const mine = teams.find((tm) => tm.includes(me.seat)) || [me.seat];
  if (game === "kemps") {
    box.append(el("button", { class: "big btn-kemps", "data-call": "kemps", text: t("kemps"), onclick: () => call("kemps") }));
    const rivals = info.players.filter((p) => !mine.includes(p));
    box.append(el("div", { class: "targets" }, ...rivals.map((p) => el("button", {
      class: "btn-cut", "data-call": "cut", "data-target": p, text: `${t("cut")} ${p}`, onclick: () => call("cut", p),
    }))));
  } else if (game === "kems") {
    for (const c of ["kems", "double_kems", "contre_kems"]) {
      box.append(el("button", { class: `big ${c === "contre_kems" ? "btn-cut" : "btn-kemps"}`, "data-call": c, text: t(c), onclick: () => call(c) }));
    }
  } else {
    box.append(el("p", { class: "muted", text: t("khmer_no_calls") }));
  }
}

// The dashboard may start a new game (another game, other seats): follow it. A seat that is
// no longer at the table means joining again (calls for it would only be refused).
function followHeader(header) {
  if (!header || !info) return;
  const players = header.players || [];
  if (!players.includes(me.seat)) {
    localStorage.removeItem("kr_phone"); me = null; info = null;
    showJoin();
    $("#join-error").textContent = t("table_changed");
    return;
  }
  const same = info.game === header.game && JSON.stringify(info.players) === JSON.stringify(players)
    && JSON.stringify(info.teams || []) === JSON.stringify(header.teams || []);
  if (same) return;
  info = { ...info, game: header.game, players, teams: header.teams || [] };
  renderButtons();
}

function onConnection(up, ev) {
  if (up) { if ($("#status").dataset.offline) { status(t("online"), true); delete $("#status").dataset.offline; } return; }
  if (ev && ev.code === 4401) { localStorage.removeItem("kr_phone"); me = null; info = null; live = null; showJoin(); return; }
  $("#status").dataset.offline = "1";
  status(t("offline"), false);
}

function onMessage(msg) {
  if (msg.type === "announce") { status(msg.items.map(announcementText).join(" "), true); return; }
  if (msg.type !== "state") return;
  followHeader(msg.header);
  if (!me) return;
  const a = msg.awaiting || {};
  $("#awaiting").textContent = a.kind === "reveal" ? t("awaiting_reveal", { seats: (a.seats || []).join(", ") }) : "";
  const score = $("#score");
  score.replaceChildren(...(msg.standings || []).map((s) => el("div", { class: "team" },
    el("span", { class: "team-name", text: Array.isArray(s.team) ? s.team.join("+") : s.player }),
    el("span", { class: "points", text: s.letters !== undefined ? (s.letters || "—") : String(s.points ?? 0) }))));
}

async function showBuzzer() {
  try { info = await api("/api/phones/me", { headers: auth() }); }
  catch (err) { localStorage.removeItem("kr_phone"); me = null; return showJoin(); }
  $("#join").hidden = true;
  $("#buzzer").hidden = false;
  $("#me").textContent = t("joined_as", { seat: `${info.seat}${info.name && info.name !== info.seat ? " · " + info.name : ""}` });
  renderButtons();
  if (!live) live = liveSocket(`/ws/phone?token=${encodeURIComponent(me.token)}`, onMessage, onConnection);
}

setLang(lang());
$("#lang").value = lang();
$("#lang").addEventListener("change", (e) => { setLang(e.target.value); if (info) renderButtons(); });
$("#join").addEventListener("submit", join);
$("#leave").addEventListener("click", () => { localStorage.removeItem("kr_phone"); me = null; location.reload(); });
applyStatic();
if (me) showBuzzer(); else showJoin();
