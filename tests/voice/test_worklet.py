"""The browser AudioWorklet (referee/web/voice/mic-worklet.js) run under node with stubs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

WORKLET = Path(__file__).resolve().parents[2] / "referee" / "web" / "voice" / "mic-worklet.js"

HARNESS = r"""
const fs = require("fs");
let Proc = null; const posted = [];
globalThis.AudioWorkletProcessor = class { constructor() { this.port = { postMessage: (b) => posted.push(new Int16Array(b)) }; } };
globalThis.registerProcessor = (name, cls) => { Proc = cls; };
globalThis.sampleRate = RATE;
eval(fs.readFileSync(process.argv[2], "utf8"));
const p = new Proc({ processorOptions: { targetRate: 16000, batchMs: 20 } });
let n = 0;
for (let b = 0; b < RATE / 128; b++) {   // one second of a 440 Hz tone, 128-sample blocks
  const x = new Float32Array(128);
  for (let i = 0; i < 128; i++, n++) x[i] = 0.5 * Math.sin(2 * Math.PI * FREQ * n / RATE);
  p.process([[x]]);
}
const all = []; posted.forEach((a) => all.push(...a));
console.log(JSON.stringify({ sizes: [...new Set(posted.map((a) => a.length))], samples: all }));
"""


@pytest.mark.parametrize("rate", [16000, 48000, 44100])
def test_worklet_batches_int16_at_16k_from_any_context_rate(rate: int, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not installed")
    import numpy as np

    script = tmp_path / "h.js"
    script.write_text(HARNESS.replace("RATE", str(rate)).replace("FREQ", "440"))
    out = json.loads(subprocess.run([node, str(script), str(WORKLET)], capture_output=True, text=True, check=True).stdout)
    assert out["sizes"] == [320]  # 20 ms batches at 16 kHz
    x = np.array(out["samples"], dtype=float)
    assert abs(len(x) - 16000) <= 320  # one second in, one second out (minus a partial batch)
    peak = np.argmax(np.abs(np.fft.rfft(x))) * 16000 / len(x)
    assert abs(peak - 440) < 5
    assert 0.3 * 32767 < np.max(np.abs(x)) < 0.55 * 32767
