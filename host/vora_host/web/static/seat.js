// A player's seat: the game as this player may see it, live, and their moves, chosen by
// tapping the keys of the 7x7 that name a move (as on the board) or from the list. The
// table on the PC is the referee: a move goes there with the number of moves this page
// saw, and comes back as the new view or as the refusal with its reason.
"use strict";

const token = decodeURIComponent(location.pathname.split("/")[2] || "");
const api = "/api/seat/" + encodeURIComponent(token);
let seat = null;       // the seat's view, as the server drew it last
let client = 0;        // this browser's id on the seat (the stream's hello)
let pressed = [];      // keys tapped towards a move
let chosen = null;     // the move chosen, waiting for "Play it"
let busy = false;
let hinting = false;   // a hint asked, its answer not back yet
let goneTimer = null;  // looks again when a gone seat's time to come back runs out

function say(problem) {
  const p = document.getElementById("problem");
  p.hidden = !problem;
  p.textContent = problem || "";
}

async function post(what, body) {
  if (busy) return;
  busy = true;
  try {
    const response = await fetch(api + "/" + what, {
      method: "POST", cache: "no-store",
      headers: {"Content-Type": "application/json", "X-Vora-Seat": "1"},
      body: JSON.stringify(Object.assign({client: client}, body || {}))});
    let data = null;
    try { data = await response.json(); } catch (e) { /* said below */ }
    if (!response.ok) {
      say(data && data.error ? data.error : "the table answered " + response.status);
      return;
    }
    say("");
    draw(data);
  } catch (e) {
    say("the table cannot be reached (" + e.message + "): your move was not sent");
  } finally {
    busy = false;
  }
}

function keyIndex(name) {
  // "c3" -> its key on the 7x7: files a..g west to east, ranks 1..7 south to north.
  const m = /^([a-g])([1-7])$/.exec(name || "");
  return m ? (parseInt(m[2], 10) - 1) * 7 + "abcdefg".indexOf(m[1]) : null;
}

function startsWith(keys, prefix) {
  return prefix.every((k, i) => keys[i] === k);
}

function matching() {
  return seat.moves.filter((m) => m.keys.length > 0 && startsWith(m.keys, pressed));
}

function nextKeys() {
  const out = new Set();
  for (const m of matching()) if (m.keys.length > pressed.length) out.add(m.keys[pressed.length]);
  return out;
}

function tap(k) {
  if (!seat || !seat.your_turn) return;
  if (pressed.length && pressed[0] === k && !nextKeys().has(k)) {
    pressed = []; chosen = null; drawChoice(); return;  // the first key again: start afresh
  }
  const longer = pressed.concat([k]);
  if (seat.moves.some((m) => startsWith(m.keys, longer))) pressed = longer;
  else if (seat.moves.some((m) => startsWith(m.keys, [k]))) pressed = [k];
  else { say("that key names no move now"); return; }
  say("");
  const exact = seat.moves.filter((m) => m.keys.length === pressed.length && startsWith(m.keys, pressed));
  chosen = exact.length ? exact[0].move : null;
  drawChoice();
}

function choose(move) {
  chosen = move;
  const m = seat.moves.find((x) => x.move === move);
  pressed = m ? m.keys.slice() : [];
  drawChoice();
}

function drawChoice() {
  const box = document.getElementById("choice");
  box.hidden = chosen === null;
  document.getElementById("chosen").textContent = chosen === null ? "" : "Your move: " + chosen;
  drawBoard();
  drawMoves();
}

function drawBoard() {
  const board = document.getElementById("board");
  const can = seat.your_turn ? nextKeys() : new Set();
  board.replaceChildren(...seat.board.rows.flat().map((key) => {
    const k = keyIndex(key.name);
    const classes = ["key"];
    if (key.mark) classes.push("mark");
    if (k !== null && can.has(k)) classes.push("can");
    if (k !== null && pressed.includes(k)) classes.push("chosen");
    const node = el("div", {class: classes.join(" "), title: key.name, "data-name": key.name,
      style: {background: key.bg, color: key.fg}}, key.label);
    if (k !== null) node.addEventListener("click", () => tap(k));
    return node;
  }));
  board.hidden = seat.board.rows.length === 0;
  document.getElementById("legend").replaceChildren(...seat.board.legend.map((item) =>
    el("li", {}, el("span", {class: "swatch", style: {background: item.bg}}, ""), item.text)));
}

function drawMoves() {
  const list = document.getElementById("moves");
  const shown = pressed.length ? matching() : seat.moves;
  const nodes = [];
  let family = null;
  for (const m of shown) {
    const words = m.move.split(" ");
    const head = words.length > 1 ? words.slice(0, -1).join(" ") : m.move;
    if (head !== family) { family = head; nodes.push(el("p", {class: "family"}, head)); }
    const button = el("button", {"data-move": m.move,
      class: m.move === chosen ? "chosen" : ""}, words.length > 1 ? words[words.length - 1] : m.move);
    button.addEventListener("click", () => choose(m.move));
    nodes.push(button);
  }
  list.replaceChildren(...nodes);
  document.getElementById("moves-title").hidden = !seat.your_turn;
  document.getElementById("moves-help").hidden = !seat.your_turn || seat.board.rows.length === 0;
}

function drawHint() {
  // The hint: thought of on the PC (the hard level's move, from this seat's view), shown
  // as the move chosen (its keys lit, "Play it" plays it) and in words with its reason.
  const note = document.getElementById("hint-text");
  const h = seat && seat.your_turn ? seat.hint : null;
  if (hinting) note.textContent = "Thinking of a hint (the hard level's move, from what you see)…";
  else if (h) note.textContent = "Hint: " + h.move + (h.reason ? " (" + h.reason + ")" : "");
  else note.textContent = "";
  const button = document.getElementById("hint");
  button.hidden = !(seat && seat.can_hint);
  button.disabled = hinting;
}

function draw(data) {
  // A post's answer and the stream race: a view older than the one shown (the stream
  // brought a later one first) is not drawn over it.
  if (seat && data.seq < seat.seq) return;
  const turnChanged = !seat || seat.number !== data.number || seat.your_turn !== data.your_turn;
  const newHint = data.hint && data.your_turn &&
    (turnChanged || !seat.hint || seat.hint.move !== data.hint.move);
  seat = data;
  if (turnChanged) { pressed = []; chosen = null; }
  if (newHint) { chosen = data.hint.move; pressed = data.hint.keys.slice(); }
  document.title = (data.your_turn ? "Your turn: " : "") + data.title;
  document.getElementById("title").textContent = data.title;
  document.getElementById("you").textContent = "You are " + data.you_label + ".";
  const turn = document.getElementById("turn");
  if (data.stopped) turn.textContent = "The game has stopped: " + data.stopped + ".";
  else if (data.over) turn.textContent = "Game over.";
  else if (data.your_turn) turn.textContent = "Your turn: " + data.prompt + ".";
  else if (data.takeback) turn.textContent = "A takeback waits for an answer.";
  else if (data.to_act !== null) turn.textContent = "Waiting for " + data.seats[data.to_act].label + ".";
  turn.className = "turn" + (data.your_turn ? " yours" : "");
  if (data.your_turn && turnChanged && navigator.vibrate) navigator.vibrate(200);
  const ask = document.getElementById("takeback-ask");
  ask.hidden = !(data.takeback && data.takeback.asked_you);
  document.getElementById("takeback-what").textContent = data.takeback ?
    "Take back " + data.takeback.what + "?" : "";
  document.getElementById("takeback").hidden = !data.can_take_back;
  document.getElementById("resign").hidden = data.over;
  document.getElementById("panel").innerHTML = data.panel;  // escaped by the server (rich)
  document.getElementById("events").replaceChildren(...data.events.map((e) =>
    el("li", {value: String(e[0])}, e[2])));
  document.getElementById("seats").replaceChildren(...data.seats.map((s) =>
    el("li", {}, s.label + (s.connected === false && s.kind === "browser" ? " (away)" : ""))));
  document.getElementById("result").textContent = data.result.join(" ");
  drawGone();
  drawHint();
  drawChoice();
}

function seconds(s) {
  s = Math.ceil(s);
  return s < 60 ? s + " s" : Math.floor(s / 60) + " min" + (s % 60 ? " " + (s % 60) + " s" : "");
}

function drawGone() {
  // Another seat's browser went (or never came): say so, and once it has been gone long
  // enough (the table says when), offer to end the game. Nothing ticks on the server
  // then, so the page asks again itself when the time runs out.
  const others = seat.over ? [] : seat.gone.filter((g) => g.player !== seat.you);
  const box = document.getElementById("gone");
  box.hidden = !others.length;
  clearTimeout(goneTimer);
  if (!others.length) return;
  const g = others[0];
  const what = seat.seats.length === 2 ? "claim the win or abort the game" : "abort the game";
  let text = g.label + (g.why === "left" ? " has left (reconnecting)" : " has not come yet");
  const back = g.why === "left" ? "back" : "here";
  if (seat.claims.length) {
    text += ". They were not " + back + " in time: you may " + what + ".";
  } else {
    text += ". If they are not " + back + " in " + seconds(g.claim_in) + ", you may " + what + ".";
    goneTimer = setTimeout(async () => {
      try {
        const response = await fetch(api, {cache: "no-store"});
        if (response.ok) draw(await response.json());
      } catch (e) { /* the stream says when the table cannot be reached */ }
    }, (Math.min(...others.map((o) => o.claim_in)) + 0.5) * 1000);
  }
  document.getElementById("gone-what").textContent = text;
  document.getElementById("claim-win").hidden = !seat.claims.includes("win");
  document.getElementById("claim-abort").hidden = !seat.claims.includes("abort");
}

document.getElementById("play").addEventListener("click", () => {
  if (chosen !== null) post("move", {move: chosen, number: seat.number});
});
document.getElementById("clear").addEventListener("click", () => {
  pressed = []; chosen = null; drawChoice();
});
document.getElementById("takeback").addEventListener("click", () => post("takeback"));
document.getElementById("hint").addEventListener("click", async () => {
  if (!seat || !seat.can_hint || hinting || busy) return;
  hinting = true;
  drawHint();
  try { await post("hint", {number: seat.number}); }
  finally { hinting = false; drawHint(); }
});
document.getElementById("agree").addEventListener("click", () => post("answer", {yes: true}));
document.getElementById("refuse").addEventListener("click", () => post("answer", {yes: false}));
document.getElementById("claim-win").addEventListener("click", () => {
  if (confirm("Claim the win? The game stops, and the log says you claimed it.")) post("claim", {what: "win"});
});
document.getElementById("claim-abort").addEventListener("click", () => {
  if (confirm("Abort the game? It stops for everybody, and nobody wins.")) post("claim", {what: "abort"});
});
document.getElementById("resign").addEventListener("click", () => {
  if (confirm("Give this game up? It stops for everybody.")) post("resign");
});

const source = new EventSource(api + "/events");
const badge = document.getElementById("live-state");
source.addEventListener("hello", (e) => {
  client = JSON.parse(e.data).client;
  badge.textContent = "live";
  badge.className = "badge live";
});
source.addEventListener("seat", (e) => draw(JSON.parse(e.data)));
source.addEventListener("replaced", (e) => {
  source.close();
  badge.textContent = "elsewhere";
  badge.className = "badge off";
  say(JSON.parse(e.data).error);
});
source.onerror = () => {
  if (source.readyState === EventSource.CLOSED) return;
  badge.textContent = "reconnecting…";
  badge.className = "badge off";
};
