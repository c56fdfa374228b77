// The list of boards and games: live first, refreshed on every change of the log.
"use strict";

const SHOWN = 500;  // games listed besides the live ones

function row(game, live) {
  const link = el("a", {href: "/game/" + game.id}, game.title);
  const moves = game.moves + (game.taken_back ? " (" + game.taken_back + " back)" : "");
  const cells = [el("td", {class: "num"}, el("a", {href: "/game/" + game.id}, game.id)),
    el("td", {}, link, game.attention ? el("span", {class: "badge off"}, "needs attention") : null),
    el("td", {class: "num"}, game.players), el("td", {class: "num"}, moves)];
  if (!live) {
    cells.push(el("td", {}, el("span", {class: "badge " + game.status}, game.status)),
      el("td", {}, resultText(game.result)));
  }
  cells.push(el("td", {}, when(game.started_at)),
    el("td", {}, game.source + (game.imported ? " (imported)" : "")));
  return el("tr", {"data-game": game.id}, ...cells);
}

async function refresh() {
  const problem = document.getElementById("problem");
  try {
    const data = await getJSON("/api/games?limit=" + SHOWN);
    document.getElementById("log-path").textContent = data.log;
    const live = data.games.filter((g) => g.live);
    const logged = data.games.filter((g) => !g.live);
    document.querySelector("#live-games tbody").replaceChildren(...live.map((g) => row(g, true)));
    document.querySelector("#logged-games tbody").replaceChildren(...logged.map((g) => row(g, false)));
    document.getElementById("no-live").hidden = live.length > 0;
    document.getElementById("no-logged").hidden = logged.length > 0;
    const note = data.note || (data.complete ? "" : "Only the newest " + SHOWN +
      " finished or stopped games are listed: 'vora games list' lists them all, and " +
      "/game/ID shows any.");
    problem.hidden = !note;
    problem.textContent = note;
  } catch (e) {
    problem.hidden = false;
    problem.textContent = e.message;
  }
}

follow("/api/events", refresh);  // its hello reads the list
// A server that plays tables (vora serve --tables) says so; any other has no /api/tables.
getJSON("/api/tables").then(() => { document.getElementById("tables-link").hidden = false; },
  () => {});
