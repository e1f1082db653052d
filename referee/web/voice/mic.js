// Browser microphone → server WebSocket as 16 kHz mono Int16 PCM (ArrayBuffer messages).
//   import { startMic } from "/static/voice/mic.js";   (path as the server mounts it)
//   const mic = await startMic("ws://127.0.0.1:8000/ws/mic", { onMessage: (msg) => … });
//   … mic.stop();
// Needs a secure context (https or localhost) for getUserMedia. Raw audio on purpose:
// echo cancellation / noise suppression / AGC distort the calls the spotter listens for.
const TARGET_RATE = 16000;

export async function startMic(wsUrl, { batchMs = 20, onMessage = null, onClose = null } = {}) {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    throw new Error("microphone unavailable: open the dashboard over https or on localhost");
  }
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
  let context;
  let source;
  try {
    context = new AudioContext({ sampleRate: TARGET_RATE });
    source = context.createMediaStreamSource(stream);
  } catch (err) {
    // Some browsers refuse a 16 kHz context for a 48 kHz device: run at the device rate
    // and let the worklet resample.
    if (context) context.close();
    context = new AudioContext();
    source = context.createMediaStreamSource(stream);
  }
  await context.audioWorklet.addModule(new URL("./mic-worklet.js", import.meta.url));
  const node = new AudioWorkletNode(context, "pcm16-batcher", {
    numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1, channelCountMode: "explicit",
    processorOptions: { targetRate: TARGET_RATE, batchMs },
  });

  const ws = new WebSocket(wsUrl);
  ws.binaryType = "arraybuffer";
  let dropped = 0;
  node.port.onmessage = (ev) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > 256 * 1024) { dropped++; return; } // network stalled: drop, stay live
    ws.send(ev.data);
  };
  ws.onmessage = (ev) => {
    if (!onMessage) return;
    try { onMessage(typeof ev.data === "string" ? JSON.parse(ev.data) : ev.data); } catch (e) { onMessage(ev.data); }
  };
  ws.onclose = (ev) => { stop(); if (onClose) onClose(ev); };
  // Connected to the destination so every browser keeps pulling the node; it outputs silence.
  source.connect(node).connect(context.destination);
  if (context.state === "suspended") await context.resume(); // needs a user gesture first

  let stopped = false;
  function stop() {
    if (stopped) return;
    stopped = true;
    source.disconnect();
    node.disconnect();
    node.port.onmessage = null;
    stream.getTracks().forEach((t) => t.stop());
    context.close();
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
  }
  return {
    stop,
    socket: ws,
    sampleRate: context.sampleRate,
    resampling: context.sampleRate !== TARGET_RATE,
    get dropped() { return dropped; },
  };
}
