// Spoken announcements (the browser's speechSynthesis, offline voices) and WebAudio beeps.
// Browsers only allow sound after a user gesture, so sound starts off until toggled.
import { lang } from "./i18n.js";

const LOCALES = { en: "en", fr: "fr", es: "es" };
let enabled = localStorage.getItem("kr_sound") === "1";
let audio = null;

export function soundEnabled() { return enabled; }

// Sound switched on before a reload: the audio engine may only start on a user gesture, so it
// starts on the first click or key press (before, every beep was skipped until the button was
// pressed again, while it said "on").
if (enabled) {
  const wake = () => { setSound(true); window.removeEventListener("pointerdown", wake); window.removeEventListener("keydown", wake); };
  window.addEventListener("pointerdown", wake);
  window.addEventListener("keydown", wake);
}

export function setSound(on) {
  enabled = on;
  localStorage.setItem("kr_sound", on ? "1" : "0");
  if (on && !audio && window.AudioContext) audio = new AudioContext();
  if (audio && audio.state === "suspended") audio.resume();
}

const TONES = {
  call: [[880, 0.09], [1320, 0.12]],
  letter: [[440, 0.15], [330, 0.25]],
  point: [[660, 0.1], [990, 0.18]],
  stale: [[520, 0.12], [520, 0.12]],
  error: [[200, 0.25]],
  ok: [[760, 0.08]],
};

export function beep(kind = "ok") {
  if (!enabled || !audio) return;
  let at = audio.currentTime;
  for (const [freq, dur] of TONES[kind] || TONES.ok) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    osc.type = "triangle";
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.25, at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + dur);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + dur + 0.02);
    at += dur + 0.03;
  }
}

function voiceFor(code) {
  const voices = window.speechSynthesis ? speechSynthesis.getVoices() : [];
  return voices.find((v) => v.lang && v.lang.toLowerCase().startsWith(code)) || null;
}

export function speak(text) {
  if (!enabled || !text || !window.speechSynthesis) return;
  const code = LOCALES[lang()] || "en";
  const u = new SpeechSynthesisUtterance(text);
  u.lang = code;
  const v = voiceFor(code);
  if (v) u.voice = v;
  u.rate = 1.05;
  speechSynthesis.speak(u);
}
