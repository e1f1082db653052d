// Dialogs: phones (join code + QR), game settings (new game), table calibration.
import { api } from "./api.js";
import { el } from "./cards.js";
import { t } from "./i18n.js";
import { $, act, gameName, header, players, teams, ui, word } from "./store.js";
import { Calibrator } from "./video.js";

export async function openJoin() {
  const info = await act(() => api("/api/phones/invite"));
  if (!info) return;
  $("#qr").innerHTML = info.qr_svg; // server-generated SVG of our own URL
  $("#join-code").textContent = info.code;
  $("#join-url").textContent = info.url;
  $("#join-lan-note").textContent = info.lan ? "" : t("not_lan");
  $("#phone-list").replaceChildren(...(ui.state.phones || []).map((p) => el("li", { text: `${p.seat} · ${p.name}` })));
  $("#dlg-join").showModal();
}

export async function loadVariants(game) {
  const info = await api(`/api/rules/${game}`).catch(() => ({ variants: [] }));
  const sel = $("#form-game [name=variant]");
  sel.replaceChildren(el("option", { value: "", text: "—" }), ...(info.variants || []).map((v) => el("option", { value: v.name, text: v.name + (v.description ? ` — ${v.description}` : "") })));
  const v = (header().rules || {}).variant;
  sel.value = (Array.isArray(v) ? v[0] : v) || "";
}

export async function openSettings() {
  const f = $("#form-game");
  f.game.value = gameName();
  f.players.value = players().join(",");
  f.teams.value = teams().map((tm) => tm.join("+")).join(",");
  f.word.value = (header().rules || {}).word || "";
  f.word.placeholder = word() || "KEMPS";
  f.teams.disabled = f.game.value === "khmer";
  $("#settings-error").textContent = "";
  await loadVariants(f.game.value);
  $("#dlg-settings").showModal();
}

// The seats follow the game picked: Khmer is two players, Kemps and Kem's four or more.
// (The dialog kept the four seats for Khmer, and the server refused the game.)
export function onGameChange(game) {
  const f = $("#form-game");
  const ps = f.players.value.split(",").map((s) => s.trim()).filter(Boolean);
  if (game === "khmer" && ps.length !== 2) { f.players.value = "S,N"; f.teams.value = ""; }
  if (game !== "khmer" && ps.length < 4) { f.players.value = "N,E,S,W"; f.teams.value = "N+S,E+W"; }
  f.teams.disabled = game === "khmer";
  $("#settings-error").textContent = "";
  return loadVariants(game);
}

export async function submitNewGame(ev) {
  ev.preventDefault();
  const f = ev.target;
  const body = { game: f.game.value };
  const ps = f.players.value.split(",").map((s) => s.trim()).filter(Boolean);
  if (ps.length) body.players = ps;
  const tm = f.teams.value.split(",").map((s) => s.split("+").map((x) => x.trim()).filter(Boolean)).filter((x) => x.length);
  if (tm.length && f.game.value !== "khmer") body.teams = tm;
  const rules = {};
  if (f.variant.value) rules.variant = f.variant.value;
  if (f.word.value.trim() && f.game.value === "kemps") rules.word = f.word.value.trim().toUpperCase();
  body.rules = rules;
  // The error in the dialog itself: a toast shows behind the modal's backdrop.
  try {
    await api("/api/game/new", { method: "POST", body });
    $("#settings-error").textContent = "";
    $("#dlg-settings").close();
  } catch (err) {
    $("#settings-error").textContent = err.message;
  }
}

let calibrator;
export async function openCalibration(camera) {
  const layout = await api("/api/table/layout").catch(() => null);
  const sel = $("#calib-zone");
  sel.replaceChildren(...Object.keys((layout && layout.zones) || {}).map((z) => el("option", { value: z, text: z })));
  if (!layout || !layout.layout) { $("#calib-msg").textContent = t("no_camera"); return; }
  calibrator = calibrator || new Calibrator($("#calib"), async (polygon) => {
    const zone = $("#calib-zone").value;
    const out = await act(() => api(`/api/table/layout/zones/${encodeURIComponent(zone)}`, { method: "PUT", body: { polygon } }));
    if (out) { $("#calib-msg").textContent = `${zone} ✓ ${out.saved_to || ""}`; calibrator.layout = out; calibrator.render(); camera.setLayout(out); }
  });
  try { await calibrator.load("/api/video/still.jpg", layout); $("#calib-msg").textContent = ""; }
  catch (err) { $("#calib-msg").textContent = err.message; }
}

export function wireTabs(camera) {
  document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => {
    document.querySelectorAll(".tab").forEach((x) => x.classList.toggle("active", x === tab));
    document.querySelectorAll("[data-tab-body]").forEach((b) => { b.hidden = b.dataset.tabBody !== tab.dataset.tab; });
    if (tab.dataset.tab === "tab-calib") openCalibration(camera);
  }));
  document.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", () => b.closest("dialog").close()));
}
