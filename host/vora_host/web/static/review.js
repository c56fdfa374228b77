// The review of a finished game on its page (GET /api/games/ID/review, made by `vora games
// review ID`): a graph of each player's chance to win after each of their moves, the
// marked moves (inaccuracy, mistake, blunder) and the hints taken, and a table of the
// moves. A click on the graph or a row goes to that move: the page's time travel (go() of
// game.js) draws the board as it was after it. Drawn as SVG in the page, no library.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
// One line per player; the marks have colours of their own (and their chess signs, for
// eyes that tell colours apart badly).
const PLAYER_COLOURS = ["#e8e8e8", "#009e73", "#cc79a7", "#f0e442", "#a6761d", "#8da0cb"];
const MARKS = {
  inaccuracy: {sign: "?!", colour: "#56b4e9"},
  mistake: {sign: "?", colour: "#e69f00"},
  blunder: {sign: "??", colour: "#ff4d4d"},
};
let review = null;        // the review shown, or null
let reviewAsked = null;   // the game's status when the review was last asked for
let reviewSeats = null;   // the players' names, from the positions drawn
let reviewShownMove = null;
let reviewScale = null;   // {left, step}: where move n is on the graph

function percent(chance) {
  return Math.round(chance * 100) + "%";
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function seatName(p) {
  return reviewSeats && reviewSeats[p] ? reviewSeats[p] : "P" + p;
}

// Called by game.js whenever it has read the game: the review is asked for once, and
// again when the game's status changes (a live game that ends).
function reviewGame(g) {
  if (reviewAsked === g.status) return;
  reviewAsked = g.status;
  loadReview(g);
}

async function loadReview(g) {
  const section = document.getElementById("review");
  const note = document.getElementById("review-note");
  section.hidden = false;
  try {
    review = await getJSON("/api/games/" + g.id + "/review");
  } catch (e) {
    // No review yet (how to make one), none during a game, or what went wrong.
    review = null;
    section.classList.add("none");
    note.textContent = e.message.charAt(0).toUpperCase() + e.message.slice(1) +
      (g.live ? "." : " (then reload this page).");
    note.hidden = false;
    for (const id of ["review-box", "review-about", "review-table-box"]) {
      document.getElementById(id).hidden = true;
    }
    document.body.dataset.review = "none";
    return;
  }
  section.classList.remove("none");
  const facts = ["Each player's chance to win after each of their moves, as the search saw " +
    "it at " + review.budget + " iterations per position."];
  const t = review.thresholds;
  facts.push("A move is marked when it cost its mover at least " + Math.round(t.inaccuracy * 100) +
    " points of chance (an inaccuracy), " + Math.round(t.mistake * 100) + " (a mistake), " +
    Math.round(t.blunder * 100) + " (a blunder).");
  if (review.knows_secrets) {
    facts.push("This review knew every hand and what was still to be drawn: it is shown " +
      "only now that the game is over.");
  }
  if (!review.complete) {
    facts.push("It stopped after move " + review.moves.length + " of " + review.total +
      ": 'vora games review " + review.game_id + "' goes on from there.");
  }
  note.hidden = true;
  const about = document.getElementById("review-about");
  about.textContent = facts.join(" ");
  for (const id of ["review-box", "review-about", "review-table-box"]) {
    document.getElementById(id).hidden = false;
  }
  drawLegend();
  drawGraph();
  drawTable();
  document.body.dataset.review = String(review.moves.length);
  if (reviewShownMove !== null) markReviewed(reviewShownMove);
}

// Called by game.js after each position drawn.
function reviewShown(data) {
  if (data.seats && data.viewer === null && String(data.seats) !== String(reviewSeats)) {
    reviewSeats = data.seats;
    if (review) {
      drawLegend();
      drawTable();
    }
  }
  reviewShownMove = data.number;
  if (review) markReviewed(data.number);
}

function players() {
  const seen = new Set(review.moves.map((m) => m.player));
  return [...seen].sort((a, b) => a - b);
}

function drawLegend() {
  const items = players().map((p) => el("li", {},
    el("span", {class: "swatch line", style: {background: PLAYER_COLOURS[p % PLAYER_COLOURS.length]}}, ""),
    seatName(p)));
  for (const [name, mark] of Object.entries(MARKS)) {
    items.push(el("li", {}, el("span", {class: "swatch", style: {background: mark.colour}}, ""),
      mark.sign + " " + name));
  }
  items.push(el("li", {}, el("span", {class: "swatch hint-ring"}, ""), "hint taken"));
  document.getElementById("review-legend").replaceChildren(...items);
}

function drawGraph() {
  const box = document.getElementById("review-graph");
  const width = Math.max(240, box.clientWidth);
  const height = width < 500 ? 170 : 210;
  const left = 34, right = 10, top = 14, bottom = 22;
  const total = Math.max(review.total, 1);
  const step = (width - left - right) / total;   // move n at left + n * step (0: the start)
  reviewScale = {left: left, step: step, total: total};
  const x = (n) => left + n * step;
  const y = (chance) => top + (1 - chance) * (height - top - bottom);
  const root = svg("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height,
    role: "img", "aria-label": "each player's chance to win over the game"});
  for (const c of [0, 0.25, 0.5, 0.75, 1]) {
    root.append(svg("line", {x1: left, x2: width - right, y1: y(c), y2: y(c),
      class: c === 0.5 ? "grid half" : "grid"}));
    root.append(svg("text", {x: left - 4, y: y(c) + 4, class: "axis", "text-anchor": "end"},
      percent(c)));
  }
  const tick = Math.max(1, Math.ceil(total / Math.max(2, Math.floor(width / 60)) / 5) * 5);
  for (let n = tick; n <= total; n += tick) {
    root.append(svg("text", {x: x(n), y: height - 6, class: "axis", "text-anchor": "middle"},
      String(n)));
  }
  root.append(svg("line", {id: "review-cursor", x1: x(0), x2: x(0), y1: top, y2: height - bottom,
    class: "cursor"}));
  for (const p of players()) {
    const own = review.moves.filter((m) => m.player === p);
    root.append(svg("polyline", {class: "chance", "data-player": p,
      stroke: PLAYER_COLOURS[p % PLAYER_COLOURS.length],
      points: own.map((m) => x(m.number).toFixed(1) + "," + y(m.after).toFixed(1)).join(" ")}));
  }
  // The marked moves: the drop from before to after, in the mark's colour.
  for (const m of review.moves) {
    if (!m.mark) continue;
    root.append(svg("line", {x1: x(m.number), x2: x(m.number), y1: y(m.before), y2: y(m.after),
      class: "drop", stroke: MARKS[m.mark].colour}));
  }
  for (const m of review.moves) {
    const colour = m.mark ? MARKS[m.mark].colour : PLAYER_COLOURS[m.player % PLAYER_COLOURS.length];
    const point = svg("circle", {cx: x(m.number), cy: y(m.after), r: m.mark ? (step >= 6 ? 5 : 4) : 3,
      fill: colour, class: "pt" + (m.mark ? " marked " + m.mark : ""), "data-n": m.number,
      "data-player": m.player}, svg("title", {}, moveWords(m)));
    if (m.hint) {
      root.append(svg("circle", {cx: x(m.number), cy: y(m.after), r: 8, class: "hint-ring",
        "data-n": m.number}));
    }
    root.append(point);
    if (m.mark && step >= 10) {  // the signs only where there is room for them
      root.append(svg("text", {x: x(m.number), y: y(m.after) - 8, class: "sign",
        "text-anchor": "middle", fill: colour}, MARKS[m.mark].sign));
    }
  }
  root.addEventListener("click", (e) => {
    // The move nearest the click (a phone's tap seldom lands on a 6-pixel point).
    const bounds = root.getBoundingClientRect();
    const n = Math.round((e.clientX - bounds.left - reviewScale.left) / reviewScale.step);
    go(Math.max(1, Math.min(reviewScale.total, n)));
  });
  box.replaceChildren(root);
  if (reviewShownMove !== null) markReviewed(reviewShownMove);
}

function moveWords(m) {
  let words = "Move " + m.number + ", " + seatName(m.player) + ": " + m.move + ". Chance " +
    percent(m.before) + " → " + percent(m.after);
  if (m.mark) words += ", " + MARKS[m.mark].sign + " " + m.mark;
  if (m.best !== null) words += "; best " + m.best + " (" + percent(m.best_chance) + ")";
  if (m.hint) words += "; a hint was taken";
  return words + ".";
}

function drawTable() {
  const rows = review.moves.map((m) => el("tr", {"data-n": String(m.number),
    class: m.mark ? "marked " + m.mark : ""},
    el("td", {class: "num"}, m.number),
    el("td", {class: "move"}, seatName(m.player).split(" ")[0] + " " + m.move),
    el("td", {class: "chance"}, percent(m.before) + " → " + percent(m.after)),
    el("td", {class: "best"}, m.best === null ? "" : m.best + " (" + percent(m.best_chance) + ")"),
    el("td", {class: "mark"},
      m.mark ? el("span", {class: "sign", style: {color: MARKS[m.mark].colour}},
        MARKS[m.mark].sign + " " + m.mark) : null,
      m.hint ? el("span", {class: "badge hint"}, "hint") : null)));
  document.getElementById("review-moves").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", {class: "num"}, "#"), el("th", {}, "move"),
      el("th", {}, "chance"), el("th", {}, "best"), el("th", {}, "mark"))),
    el("tbody", {}, ...rows));
}

// The move shown by the page's time travel: the cursor on the graph, its row, its words.
function markReviewed(n) {
  const cursor = document.getElementById("review-cursor");
  if (cursor && reviewScale) {
    const cx = reviewScale.left + n * reviewScale.step;
    cursor.setAttribute("x1", cx);
    cursor.setAttribute("x2", cx);
  }
  for (const node of document.querySelectorAll("#review-graph .pt.current, #review-moves tr.current")) {
    node.classList.remove("current");
  }
  const point = document.querySelector("#review-graph .pt[data-n='" + n + "']");
  if (point) {
    point.classList.add("current");
    point.parentNode.append(point);  // drawn on top of its neighbours
  }
  const row = document.querySelector("#review-moves tr[data-n='" + n + "']");
  if (row) {
    row.classList.add("current");
    scrollWithin(document.getElementById("review-table-box"), row);  // game.js
  }
  const m = review.moves.find((move) => move.number === n);
  document.getElementById("review-current").textContent = n === 0 ? "The start of the game." :
    (m ? moveWords(m) : "Move " + n + " has not been reviewed.");
}

document.getElementById("review-moves").addEventListener("click", (e) => {
  const tr = e.target.closest("tbody tr");
  if (tr) go(parseInt(tr.dataset.n, 10));
});

let reviewWidth = 0;
new ResizeObserver(() => {
  const width = document.getElementById("review-graph").clientWidth;
  if (review && width !== reviewWidth) {
    reviewWidth = width;
    drawGraph();
  }
}).observe(document.getElementById("review-graph"));
