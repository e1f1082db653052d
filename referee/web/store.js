// Shared dashboard state and the small helpers every panel uses.
import { beep } from "./sound.js";

export const $ = (sel) => document.querySelector(sel);
export const ui = { state: null, caller: localStorage.getItem("kr_caller"), layout: null, connected: false };


export function header() { return (ui.state && ui.state.game && ui.state.game.header) || {}; }
export function view() { return (ui.state && ui.state.game && ui.state.game.view) || {}; }
export function players() { return header().players || view().players || []; }
export function teams() { return header().teams || view().teams || []; }
export function gameName() { return header().game || view().game || "kemps"; }
export function rules() { return (ui.state && ui.state.game && ui.state.game.rules) || {}; }
export function word() { return String(rules().word || (gameName() === "kemps" ? "KEMPS" : "")).toUpperCase(); }
export function teamOf(seat) { return teams().find((tm) => tm.includes(seat)) || [seat]; }

export function toast(message, ok = true) {
  const node = $("#toast");
  node.textContent = message;
  node.className = `toast ${ok ? "ok" : "bad"}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { node.textContent = ""; }, 6000);
}

export async function act(fn, okText = "") {
  try {
    const out = await fn();
    if (okText) toast(okText, true);
    return out;
  } catch (err) {
    toast(err.message, false);
    beep("error");
    return null;
  }
}
