#!/usr/bin/env bash
# Install real deck artwork from Debian and npm packages and render it into the deck cache
# used by `referee synth` (vision/synth). The art is third-party: it is never committed,
# only installed and rendered here. See datasets/SYNTH.md.
#
#   bash scripts/install_deck_art.sh [--force] [--rerender] [--only NAME,...]
#
# Cache: $KEMPS_DECK_CACHE, default ~/.cache/kemps-referee/decks; npm packages, raw renders and
# extracted .debs go beside it (<cache>/../{npm,raw,pkgs}). Idempotent: packages
# already present are not fetched again and decks already rendered are skipped
# (--force rebuilds them from the kept raw renders: trim, resize, index geometry;
# --rerender also rasterises the SVGs again).
set -euo pipefail
cd "$(dirname "$0")/.."
FORCE=(); ONLY=()
while (($#)); do
  case "$1" in
    --force) FORCE=(--force) ;;
    --rerender) FORCE=(--rerender) ;;
    --only) ONLY=(--only "$2"); shift ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    *) echo "install_deck_art.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

CACHE=${KEMPS_DECK_CACHE:-$HOME/.cache/kemps-referee/decks}
ART_ROOT=$(dirname "$CACHE")
mkdir -p "$CACHE" "$ART_ROOT/npm" "$ART_ROOT/pkgs"
SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"

# Debian: deck SVGs (no GUI dependencies) + librsvg with Python bindings for rendering.
apt_pkgs=(gnome-cards-data kdegames-card-data-kf5 librsvg2-bin python3-gi gir1.2-rsvg-2.0 python3-gi-cairo)
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "==> apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# aisleriot carries the "bonded" deck but depends on GTK: take the .deb's files only.
if [[ ! -e "$ART_ROOT/pkgs/aisleriot/usr/share/aisleriot/cards/bonded.svgz" ]]; then
  echo "==> apt-get download aisleriot (bonded deck, files only)"
  tmp=$(mktemp -d)
  if (cd "$tmp" && apt-get download -qq aisleriot >/dev/null 2>&1); then
    mkdir -p "$ART_ROOT/pkgs/aisleriot"
    dpkg -x "$tmp"/aisleriot_*.deb "$ART_ROOT/pkgs/aisleriot"
    # keep only the deck art
    find "$ART_ROOT/pkgs/aisleriot" -type f ! -path "*/aisleriot/cards/*" -delete
  else
    echo "    (aisleriot download failed: the bonded deck will be skipped)" >&2
  fi
  rm -rf "$tmp"
fi

# Fonts for procedural decks (vision/synth/procedural.py): files only, from the .debs, so
# the rendered indices cover many more letterforms than DejaVu/STIX. Split by font family
# across train/val/test like the decks, so held-out decks also have unseen fonts.
font_pkgs=(fonts-liberation2 fonts-freefont-ttf fonts-roboto-unhinted fonts-open-sans fonts-lato
  fonts-crosextra-carlito fonts-crosextra-caladea fonts-linuxlibertine fonts-ebgaramond fonts-cantarell
  fonts-urw-base35 fonts-paratype fonts-comic-neue fonts-cabin fonts-quicksand fonts-oxygen
  fonts-adf-gillius fonts-adf-universalis fonts-adf-accanthis fonts-adf-berenis fonts-noto-core
  fonts-league-spartan fonts-hack fonts-play fonts-sil-gentium fonts-sil-charis fonts-oldstandard
  fonts-averia-serif-gwf fonts-firacode)
if [[ ! -e "$ART_ROOT/pkgs/fonts/.done" ]]; then
  echo "==> apt-get download ${#font_pkgs[@]} font packages (files only)"
  tmp=$(mktemp -d)
  mkdir -p "$ART_ROOT/pkgs/fonts"
  for p in "${font_pkgs[@]}"; do
    if (cd "$tmp" && apt-get download -qq "$p" >/dev/null 2>&1); then
      dpkg -x "$tmp/$(cd "$tmp" && ls -t ./*.deb | head -1)" "$ART_ROOT/pkgs/fonts"
    else
      echo "    ($p download failed: skipped)" >&2
    fi
  done
  find "$ART_ROOT/pkgs/fonts" -type f ! -name "*.ttf" ! -name "*.otf" -delete
  touch "$ART_ROOT/pkgs/fonts/.done"
  rm -rf "$tmp"
fi

# npm: Bellot (svg-cards), Aguilar's vectorised cards (cardsJS), Kennard's CC0 cards.
npm_pkgs=(svg-cards@4.0.2 cardsJS@1.1.1 @heruka_urgyen/react-playing-cards@0.5.0)
if ! command -v npm >/dev/null 2>&1; then
  echo "==> npm not found: the npm decks will be skipped (apt-get install npm to add them)" >&2
elif [[ ! -d "$ART_ROOT/npm/node_modules/svg-cards" || ! -d "$ART_ROOT/npm/node_modules/cardsJS" || ! -d "$ART_ROOT/npm/node_modules/@heruka_urgyen/react-playing-cards" ]]; then
  echo "==> npm install ${npm_pkgs[*]}"
  (cd "$ART_ROOT/npm" && npm install --no-audit --no-fund --silent --prefix . "${npm_pkgs[@]}" >/dev/null)
fi

PY=.venv/bin/python
[[ -x $PY ]] || PY=python3
echo "==> rendering decks into $CACHE"
KEMPS_DECK_CACHE="$CACHE" nice -n 10 "$PY" -m vision.synth.render_cache --cache "$CACHE" --art-root "$ART_ROOT" "${FORCE[@]}" "${ONLY[@]}"
