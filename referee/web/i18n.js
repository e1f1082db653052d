// Interface strings in English, French and Spanish. Announcements carry their own
// translations from the referee (Announcement.text), so only the chrome lives here.
const STRINGS = {
  en: {
    ev_deal: "deal", ev_swap: "swap", ev_stale: "stale", ev_reset: "reset", ev_reveal: "reveal", ev_new_hand: "new hand",
    ev_play: "plays", ev_steal: "steals", ev_discard: "discards", ev_close: "closes", ev_fold: "folds", ev_undo: "undo",
    ev_correct: "correction", ev_show: "shows", ev_redraw: "redraws", ev_reshuffle: "reshuffle", ev_new_game: "new game",
    src_camera: "camera", src_dashboard: "dashboard", src_demo: "demo", src_recording: "recording", src_voice: "voice",
    src_phone: "phone", src_log: "log", src_undo: "undo",
    title: "Kemps Referee", offline: "offline", online: "live", sound_off: "♪ Sound off", sound_on: "♪ Sound on ✓",
    mic: "Mic", zones: "zones", cards: "cards", market: "Market", stale_title: "Market is stale",
    stale_body: "dealer: discard the four cards and deal four new ones.", mark_stale: "Mark stale",
    reveal: "Reveal", reveal_help: "Lay the hands face up in the reveal areas. Click a card to correct it.",
    confirm: "Confirm", calls: "Calls", who_calls: "Who calls?", new_hand: "New hand", undo: "Undo",
    export: "Export log", score: "Score", log: "Log", arrivals: "Arrival order of calls", phones: "Phones",
    join_help: "Scan or open the address on a phone, pick a seat, and call from the phone.", close: "Close",
    settings: "Settings", game: "Game", calibration: "Table calibration", players: "Players (seats, clockwise)",
    teams: "Teams (seats joined by +)", variant: "Rule variant", word: "Word",
    new_game_note: "Starting a new game archives the current one beside its database.", new_game: "Start new game",
    calib_help: "Pick a zone, then drag a rectangle over the still frame.", refresh: "New still",
    pick_card: "Pick the card", remove: "Remove card", cancel: "Cancel",
    kemps: "KEMPS!", cut: "CUT", kems: "KEM'S", double_kems: "DOUBLE KEM'S", contre_kems: "CONTRE KEM'S",
    awaiting_reveal: "Reveal: {seats}", awaiting_reset: "Reset the market", awaiting_deal: "Deal a new hand",
    no_camera: "No camera: use the buttons, or start with --demo / --camera N",
    waiting_camera: "Waiting for the camera…", reader: "reader", heard: "heard", who: "who?",
    pick_caller: "Pick who is calling first.", stale_in: "stale in {s} s", quiet: "quiet {s} s",
    occluded: "hand over the market", team: "Team", points: "points", winner: "winner", nobody: "nobody wins",
    table_total: "table", match: "match", row: "row", pile: "pile", hand: "hand", turn: "to play",
    play: "Play", steal: "Steal", discard6: "Discard 6", close_k: "Close", fold: "Fold",
    add_card: "+ card", finished: "Game over", lost: "lost", join: "Join", seat: "Seat", name: "Name",
    code: "Join code", joined_as: "You are {seat}", table_changed: "The table changed: pick your seat again.", leave: "Leave", restored: "Game restored from the log",
    awaiting_show: "Kem's: {players} show {count} cards each", awaiting_redraw: "Redraw: {players} show their identical cards", record: "Record",
    voice_unavailable: "Voice unavailable", listening: "listening",
    not_lan: "Started without --lan: only this computer can open it.",
    enter_deal: "No camera reading: enter the four market cards.", enter_reset: "Enter the four new market cards.",
    record_deal: "Record the deal", record_reset: "Record the new market", khmer_no_calls: "Khmer has no calls: follow the game on the dashboard.",
  },
  fr: {
    ev_deal: "donne", ev_swap: "échange", ev_stale: "table figée", ev_reset: "nouvelle table", ev_reveal: "dévoilement", ev_new_hand: "nouvelle manche",
    ev_play: "joue", ev_steal: "vole", ev_discard: "défausse", ev_close: "ferme", ev_fold: "abandonne", ev_undo: "annulation",
    ev_correct: "correction", ev_show: "montre", ev_redraw: "repioche", ev_reshuffle: "remélange", ev_new_game: "nouvelle partie",
    src_camera: "caméra", src_dashboard: "tableau", src_demo: "démo", src_recording: "enregistrement", src_voice: "voix",
    src_phone: "téléphone", src_log: "journal", src_undo: "annulation",
    title: "Arbitre Kem's", offline: "hors ligne", online: "en direct", sound_off: "♪ Son coupé", sound_on: "♪ Son ✓",
    mic: "Micro", zones: "zones", cards: "cartes", market: "Table", stale_title: "La table est figée",
    stale_body: "donneur : retirez les quatre cartes et posez-en quatre nouvelles.", mark_stale: "Table figée",
    reveal: "Dévoilement", reveal_help: "Posez les mains face visible. Cliquez une carte pour la corriger.",
    confirm: "Valider", calls: "Annonces", who_calls: "Qui annonce ?", new_hand: "Nouvelle manche", undo: "Annuler",
    export: "Exporter", score: "Score", log: "Journal", arrivals: "Ordre d'arrivée des annonces", phones: "Téléphones",
    join_help: "Scannez ou ouvrez l'adresse sur un téléphone, choisissez une place et annoncez.", close: "Fermer",
    settings: "Réglages", game: "Jeu", calibration: "Calibrage de la table", players: "Joueurs (places, sens horaire)",
    teams: "Équipes (places jointes par +)", variant: "Variante", word: "Mot",
    new_game_note: "Une nouvelle partie archive la partie en cours à côté de sa base.", new_game: "Nouvelle partie",
    calib_help: "Choisissez une zone puis tracez un rectangle sur l'image.", refresh: "Nouvelle image",
    pick_card: "Choisir la carte", remove: "Retirer la carte", cancel: "Annuler",
    kemps: "KEMPS !", cut: "COUPE", kems: "KEM'S", double_kems: "DOUBLE KEM'S", contre_kems: "CONTRE KEM'S",
    awaiting_reveal: "Dévoilement : {seats}", awaiting_reset: "Renouveler la table", awaiting_deal: "Distribuer",
    no_camera: "Pas de caméra : utilisez les boutons, ou lancez avec --demo / --camera N",
    waiting_camera: "En attente de la caméra…", reader: "lecteur", heard: "entendu", who: "qui ?",
    pick_caller: "Choisissez qui annonce.", stale_in: "figée dans {s} s", quiet: "calme {s} s",
    occluded: "main sur la table", team: "Équipe", points: "points", winner: "gagnant", nobody: "personne ne gagne",
    table_total: "table", match: "match", row: "rangée", pile: "pile", hand: "main", turn: "à jouer",
    play: "Jouer", steal: "Voler", discard6: "Défausser 6", close_k: "Fermer", fold: "Abandonner",
    add_card: "+ carte", finished: "Partie terminée", lost: "perdu", join: "Rejoindre", seat: "Place", name: "Nom",
    code: "Code", joined_as: "Vous êtes {seat}", table_changed: "La table a changé : choisissez à nouveau votre place.", leave: "Quitter", restored: "Partie restaurée depuis le journal",
    awaiting_show: "Kem's : {players} montrent {count} cartes chacun", awaiting_redraw: "Redonne : {players} montrent leurs cartes identiques", record: "Enregistrer",
    voice_unavailable: "Voix indisponible", listening: "écoute",
    not_lan: "Lancé sans --lan : seul cet ordinateur peut l'ouvrir.",
    enter_deal: "Pas de lecture caméra : saisissez les quatre cartes de la table.", enter_reset: "Saisissez les quatre nouvelles cartes.",
    record_deal: "Enregistrer la donne", record_reset: "Enregistrer la nouvelle table", khmer_no_calls: "Le Khmer n'a pas d'annonces : suivez la partie sur le tableau.",
  },
  es: {
    ev_deal: "reparto", ev_swap: "cambio", ev_stale: "mesa parada", ev_reset: "mesa nueva", ev_reveal: "muestra", ev_new_hand: "mano nueva",
    ev_play: "juega", ev_steal: "roba", ev_discard: "descarta", ev_close: "cierra", ev_fold: "se retira", ev_undo: "deshacer",
    ev_correct: "corrección", ev_show: "muestra", ev_redraw: "vuelve a robar", ev_reshuffle: "rebarajar", ev_new_game: "partida nueva",
    src_camera: "cámara", src_dashboard: "panel", src_demo: "demo", src_recording: "grabación", src_voice: "voz",
    src_phone: "teléfono", src_log: "registro", src_undo: "deshacer",
    title: "Árbitro Kemps", offline: "sin conexión", online: "en vivo", sound_off: "♪ Sin sonido", sound_on: "♪ Sonido ✓",
    mic: "Micro", zones: "zonas", cards: "cartas", market: "Mesa", stale_title: "La mesa está parada",
    stale_body: "repartidor: descarta las cuatro cartas y pon cuatro nuevas.", mark_stale: "Mesa parada",
    reveal: "Mostrar manos", reveal_help: "Poned las manos boca arriba. Pulsa una carta para corregirla.",
    confirm: "Confirmar", calls: "Cantos", who_calls: "¿Quién canta?", new_hand: "Nueva mano", undo: "Deshacer",
    export: "Exportar", score: "Marcador", log: "Registro", arrivals: "Orden de llegada de los cantos", phones: "Móviles",
    join_help: "Escanea o abre la dirección en un móvil, elige un sitio y canta desde el móvil.", close: "Cerrar",
    settings: "Ajustes", game: "Juego", calibration: "Calibrar la mesa", players: "Jugadores (sitios, sentido horario)",
    teams: "Parejas (sitios unidos por +)", variant: "Variante", word: "Palabra",
    new_game_note: "Una partida nueva archiva la actual junto a su base de datos.", new_game: "Nueva partida",
    calib_help: "Elige una zona y arrastra un rectángulo sobre la imagen.", refresh: "Nueva imagen",
    pick_card: "Elige la carta", remove: "Quitar carta", cancel: "Cancelar",
    kemps: "¡KEMPS!", cut: "CORTO", kems: "KEM'S", double_kems: "DOBLE KEM'S", contre_kems: "CONTRA KEM'S",
    awaiting_reveal: "Mostrar: {seats}", awaiting_reset: "Renovar la mesa", awaiting_deal: "Repartir",
    no_camera: "Sin cámara: usa los botones, o arranca con --demo / --camera N",
    waiting_camera: "Esperando la cámara…", reader: "lector", heard: "oído", who: "¿quién?",
    pick_caller: "Elige quién canta.", stale_in: "parada en {s} s", quiet: "quieta {s} s",
    occluded: "mano sobre la mesa", team: "Pareja", points: "puntos", winner: "gana", nobody: "nadie gana",
    table_total: "mesa", match: "partido", row: "fila", pile: "montón", hand: "mano", turn: "juega",
    play: "Jugar", steal: "Robar", discard6: "Descartar 6", close_k: "Cerrar", fold: "Retirarse",
    add_card: "+ carta", finished: "Fin de la partida", lost: "pierde", join: "Unirse", seat: "Sitio", name: "Nombre",
    code: "Código", joined_as: "Eres {seat}", table_changed: "La mesa ha cambiado: elige tu sitio de nuevo.", leave: "Salir", restored: "Partida restaurada desde el registro",
    awaiting_show: "Kem's: {players} enseñan {count} cartas cada uno", awaiting_redraw: "Redistribuir: {players} enseñan sus cartas iguales", record: "Registrar",
    voice_unavailable: "Voz no disponible", listening: "escuchando",
    not_lan: "Arrancado sin --lan: solo este ordenador puede abrirlo.",
    enter_deal: "Sin lectura de cámara: introduce las cuatro cartas de la mesa.", enter_reset: "Introduce las cuatro cartas nuevas.",
    record_deal: "Registrar el reparto", record_reset: "Registrar la mesa nueva", khmer_no_calls: "El Khmer no tiene cantos: sigue la partida en el panel.",
  },
};

let current = localStorage.getItem("kr_lang") || "en";

export function lang() { return current; }

export function setLang(code) {
  current = STRINGS[code] ? code : "en";
  localStorage.setItem("kr_lang", current);
  document.documentElement.lang = current;
  applyStatic();
}

export function t(key, params = {}) {
  const s = (STRINGS[current] && STRINGS[current][key]) || STRINGS.en[key] || key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (params[k] ?? ""));
}

// Text of an announcement in the chosen language (falls back to English, then its key).
export function announcementText(a) {
  if (!a) return "";
  const text = a.text || {};
  return text[current] || text.en || a.key || "";
}

export function applyStatic(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
}
