// One game: the position after any move (time travel: slider, arrow keys, the move list),
// following the live game while the latest move is shown. The URL's #move=N keeps the
// position shown across a reload.
"use strict";

const gameId = decodeURIComponent(location.pathname.split("/")[2] || "");
const slider = document.getElementById("slider");
let game = null;        // /api/games/ID
let shown = null;       // the move number drawn now
let target = 0;         // the move number asked for last (ahead of `shown` while loading)
let following = true;   // go to each new move as it is logged
let asked = 0;          // the newest position request: older answers are dropped

function hashMove() {
  const m = /move=(\d+)/.exec(location.hash);
  return m ? parseInt(m[1], 10) : null;
}

function say(problem) {
  const p = document.getElementById("problem");
  p.hidden = !problem;
  p.textContent = problem || "";
}

function drawHeader() {
  document.title = "Game " + game.id + ": " + game.title;
  document.getElementById("title").textContent = "Game " + game.id + ": " + game.title +
    ", " + game.players + " players";
  const status = document.getElementById("status");
  status.textContent = game.status;
  status.className = "badge " + game.status;
  const facts = [game.public ? "seed hidden" : "seed " + game.seed,
    "started " + when(game.started_at), game.source];
  if (game.ended_at) facts.push("ended " + when(game.ended_at));
  if (game.taken_back) facts.push(game.taken_back + " taken back");
  facts.push(game.all_digests_ok ? "every digest matches the replay" : "the replay disagrees with the log");
  document.getElementById("facts").textContent = facts.join("; ");
  const secrecy = document.getElementById("secrecy");
  secrecy.hidden = !game.public;
  secrecy.textContent = "As a spectator sees it: the seed, the digests, the hands and bags " +
    "and the secret moves stay hidden while the game may go on.";
  const box = document.getElementById("viewer-box");
  const select = document.getElementById("viewer");
  box.hidden = game.viewers.length === 0;
  if (select.options.length !== game.viewers.length + 1) {
    select.replaceChildren(el("option", {value: ""}, "a spectator"),
      ...game.viewers.map((p) => el("option", {value: String(p)}, "P" + p)));
  }
  slider.max = String(game.playable);
  counter();
  const moves = document.getElementById("moves");
  moves.replaceChildren(el("li", {value: "0", "data-n": "0"}, "the start"),
    ...game.moves_list.map((m) => el("li", {value: String(m.number), "data-n": String(m.number),
      class: m.digest_ok ? "" : "mismatch"},
      (m.player === null ? "" : "P" + m.player + " ") + m.text,
      m.digest_ok ? null : el("span", {class: "badge off"}, "digest differs"))));
  markCurrent();
  say(game.problem);
  reviewGame(game);  // review.js
}

function markCurrent() {
  for (const li of document.querySelectorAll("#moves li")) {
    li.classList.toggle("current", li.dataset.n === String(shown));
  }
  const current = document.querySelector("#moves li.current");
  if (current) scrollWithin(document.getElementById("moves"), current);
}

// Scroll `box` (a list that scrolls) to show `item`, the page itself left where it is
// (scrollIntoView would move the page to the list, away from the board or the review).
function scrollWithin(box, item) {
  const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = top - (box.clientHeight - item.offsetHeight) / 2;
  }
}

function counter() {
  // The position shown and how many moves the game has now (it may have grown since).
  document.getElementById("move-number").textContent =
    "move " + (shown === null ? "-" : shown) + " of " + (game ? game.playable : "-");
}

function drawBoard(data) {
  const board = document.getElementById("board");
  board.replaceChildren(...data.board.flat().map((key) => el("div", {
    class: "key" + (key.mark ? " mark" : ""), title: key.name,
    "data-name": key.name, style: {background: key.bg, color: key.fg}}, key.label)));
  board.hidden = data.board.length === 0;
  document.getElementById("legend").replaceChildren(...data.legend.map((item) =>
    el("li", {}, el("span", {class: "swatch", style: {background: item.bg, color: item.fg}}, ""),
      item.text)));
}

function drawPosition(data) {
  shown = data.number;
  target = data.number;
  slider.value = String(data.number);
  counter();
  drawBoard(data);
  document.getElementById("panel").innerHTML = data.panel_html;  // escaped by the server (rich)
  const turn = document.getElementById("turn");
  turn.textContent = data.over ? "Game over: " + data.end + "." :
    (data.to_act === null ? "" : data.seats[data.to_act] + " to " + data.prompt + ".");
  const last = document.getElementById("last-move");
  last.replaceChildren();
  if (data.move) {
    last.append("Move " + data.move.number + ": " +
      (data.move.player === null ? "" : "P" + data.move.player + " ") + data.move.text + " ");
    const ok = data.digest.ok;
    last.append(el("span", {class: "badge " + (ok ? "ok" : "off"), id: "digest"},
      ok ? "digest matches the replay" : "digest differs from the replay"));
    if (data.digest.replayed) last.append(el("code", {class: "dim"}, " " + data.digest.replayed));
  } else {
    last.textContent = "The start of the game.";
  }
  const scores = document.getElementById("scores");
  scores.replaceChildren();
  if (data.scores) {
    scores.append(el("tr", {}, el("th", {}, "player"), el("th", {}, "score")),
      ...data.scores.map((s, p) => el("tr", {}, el("td", {}, data.seats[p]), el("td", {class: "num"}, s))));
  } else {
    scores.append(el("tr", {}, el("td", {class: "dim"}, "Scores are shown once the game is over.")));
  }
  document.getElementById("result").textContent = data.result_lines ? data.result_lines.join(" ") : "";
  markCurrent();
  document.getElementById("following").hidden = !(following && game && game.live);
  document.body.dataset.viewer = data.viewer === null ? "" : String(data.viewer);
  reviewShown(data);  // review.js
  document.body.dataset.shown = String(data.number);
}

function positionURL(n) {
  const viewer = document.getElementById("viewer").value;
  return "/api/games/" + gameId + "/position/" + n + (viewer ? "?viewer=" + viewer : "");
}

// Draw position n; `pending`, when given, is its request already on its way.
async function show(n, pending) {
  const ticket = ++asked;
  target = n;
  try {
    const data = await (pending || getJSON(positionURL(n)));
    if (ticket !== asked) return;  // a newer request is on its way
    drawPosition(data);
    say(game && game.problem);
  } catch (e) {
    if (ticket === asked) say(e.message);
  }
}

function go(n) {
  if (!game) return;
  n = Math.max(0, Math.min(game.playable, n));
  following = n === game.playable;
  history.replaceState(null, "", following ? "#" : "#move=" + n);
  slider.value = String(n);
  show(n);
}

// A change of the log: the newest position comes with it when this page follows the
// game as a spectator (drawn at once); the game's data (moves list, status) follows.
function changed(message) {
  const viewer = document.getElementById("viewer").value;
  if (message.position && following && !viewer) {
    // The game may have grown or, after a takeback, shrunk.
    if (game) game.playable = message.position.playable;
    slider.max = String(message.position.playable);
    ++asked;  // older position requests are out of date
    drawPosition(message.position);
    reload(false);
  } else {
    reload(true);
  }
}

async function reload(withPosition = true) {
  // Following: the newest position is asked for at once, beside the game's data.
  const pending = following && withPosition ? getJSON(positionURL("latest")) : null;
  if (pending) pending.catch(() => {});  // its failure is said by show()
  try {
    game = await getJSON("/api/games/" + gameId);
  } catch (e) {
    say(e.message);
    return;
  }
  drawHeader();
  if (pending) show(game.playable, pending);
  else if (following && shown !== game.playable) show(game.playable);
  else if (target > game.playable) go(game.playable);
}

slider.addEventListener("input", () => go(parseInt(slider.value, 10)));
document.getElementById("first").onclick = () => go(0);
document.getElementById("back").onclick = () => go(target - 1);
document.getElementById("forward").onclick = () => go(target + 1);
document.getElementById("last").onclick = () => go(game ? game.playable : 0);
document.getElementById("viewer").onchange = () => show(target);
document.getElementById("moves").addEventListener("click", (e) => {
  const li = e.target.closest("li");
  if (li) go(parseInt(li.dataset.n, 10));
});
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT") return;
  const keys = {ArrowLeft: -1, ArrowRight: 1};
  if (e.key in keys) {
    e.preventDefault();
    go(target + keys[e.key]);
  } else if (e.key === "Home") {
    e.preventDefault();
    go(0);
  } else if (e.key === "End") {
    e.preventDefault();
    go(game ? game.playable : 0);
  }
});

(async function start() {
  const wanted = hashMove();
  if (wanted !== null) following = false;
  try {
    game = await getJSON("/api/games/" + gameId);
  } catch (e) {
    say(e.message);
    return;
  }
  drawHeader();
  if (wanted !== null && wanted < game.playable) show(wanted);
  else { following = true; show(game.playable); }
  follow("/api/events?game=" + encodeURIComponent(gameId), changed);
})();
