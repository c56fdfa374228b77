// Setting up a table on the server (vora serve --tables): the game, a seat for each
// player (a browser, or one of the server's bots), then each browser seat's link and QR
// code, shown once; and the tables being played, refreshed on every change of the log.
"use strict";

let games = [];      // what /api/tables says can be set up
let seatKinds = [];  // "browser" and the bots' levels

const KIND_WORDS = {browser: "a player, in a browser", easy: "the server's bot, easy",
  normal: "the server's bot, normal", hard: "the server's bot, hard"};

function say(problem) {
  const p = document.getElementById("problem");
  p.hidden = !problem;
  p.textContent = problem || "";
}

function chosenGame() {
  return games.find((g) => g.game === document.getElementById("game").value);
}

function drawPlayers() {
  const game = chosenGame();
  const players = document.getElementById("players");
  const was = parseInt(players.value, 10);
  players.replaceChildren(...game.players.map((n) => el("option", {value: n}, n)));
  players.value = game.players.includes(was) ? was : (game.players.includes(2) ? 2 : game.players[0]);
  drawSeats();
}

function drawSeats() {
  const n = parseInt(document.getElementById("players").value, 10);
  const list = document.getElementById("seat-kinds");
  const old = Array.from(list.querySelectorAll("select")).map((s) => s.value);
  const rows = [];
  for (let p = 0; p < n; p++) {
    const select = el("select", {name: "seat" + p, "aria-label": "P" + p},
      ...seatKinds.map((k) => el("option", {value: k}, KIND_WORDS[k] || k)));
    select.value = old[p] || (p === 0 ? "browser" : "normal");
    rows.push(el("li", {}, el("label", {}, "P" + p + " ", select)));
  }
  list.replaceChildren(...rows);
}

function seatsText(table) {
  return table.seats.map((s) => s.label + (s.kind === "browser" && !s.here ? " (away)" : ""))
    .join(", ");
}

function tableRow(table) {
  const moves = table.number + (table.over ? " (over)" : "");
  return el("tr", {"data-table": table.table},
    el("td", {class: "num"}, el("a", {href: "/game/" + table.table}, table.table)),
    el("td", {}, table.title), el("td", {}, seatsText(table)), el("td", {class: "num"}, moves));
}

async function refresh() {
  try {
    const data = await getJSON("/api/tables");
    if (!games.length) {
      games = data.games;
      seatKinds = data.seat_kinds;
      document.getElementById("game").replaceChildren(
        ...games.map((g) => el("option", {value: g.game}, g.title)));
      drawPlayers();
    }
    document.querySelector("#tables tbody").replaceChildren(...data.tables.map(tableRow));
    document.getElementById("no-tables").hidden = data.tables.length > 0;
  } catch (e) {
    say(e.message);
  }
}

function showMade(made) {
  document.getElementById("made-title").textContent = "Table " + made.table + ": " + made.title;
  const items = made.seats.filter((s) => s.link).map((s) => el("li", {},
    el("strong", {}, s.label), " ",
    el("a", {href: s.link, target: "_blank", rel: "noreferrer"}, "open this seat here"),
    el("br"), el("code", {class: "link"}, s.link),
    s.qr ? el("br") : null,
    s.qr ? el("img", {src: s.qr, alt: "QR code of " + s.label + "'s link", class: "qr"}) : null));
  document.getElementById("links").replaceChildren(...items);
  document.getElementById("watch").href = made.watch;
  document.getElementById("made").hidden = false;
  document.getElementById("made").scrollIntoView();
}

async function create(event) {
  event.preventDefault();
  const button = document.getElementById("create");
  const seeds = document.getElementById("seed").value.trim();
  if (seeds && !/^[0-9]+$/.test(seeds)) {
    say("a seed is a whole number (or nothing: chosen here)");
    return;
  }
  const body = {game: document.getElementById("game").value,
    seats: Array.from(document.querySelectorAll("#seat-kinds select")).map((s) => s.value)};
  // A seed past 2**53 would be rounded as a JavaScript number: sent as typed, in JSON.
  let text = JSON.stringify(body);
  if (seeds) text = text.slice(0, -1) + ',"seed":' + seeds + "}";
  button.disabled = true;
  try {
    const response = await fetch("/api/tables", {method: "POST", cache: "no-store",
      headers: {"Content-Type": "application/json", "X-Vora-Seat": "1"}, body: text});
    let data = null;
    try { data = await response.json(); } catch (e) { /* said below */ }
    if (!response.ok) {
      say(data && data.error ? data.error : "the server answered " + response.status);
      return;
    }
    say("");
    showMade(data);
    refresh();
  } catch (e) {
    say("the server cannot be reached (" + e.message + "): no table was set up");
  } finally {
    button.disabled = false;
  }
}

document.getElementById("game").addEventListener("change", drawPlayers);
document.getElementById("players").addEventListener("change", drawSeats);
document.getElementById("new-table").addEventListener("submit", create);
follow("/api/events", refresh);  // its hello reads the tables
