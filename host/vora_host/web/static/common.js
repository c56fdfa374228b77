// Shared by the pages: fetching JSON with the server's own error words, dates, text.
"use strict";

async function getJSON(url) {
  const response = await fetch(url, {cache: "no-store"});
  let data = null;
  try { data = await response.json(); } catch (e) { /* not JSON: said below */ }
  if (!response.ok) {
    throw new Error(data && data.error ? data.error : "the server answered " + response.status);
  }
  // Every answer of the API is an object: anything else is an answer cut short (a server
  // stopped mid-answer), which the pages say rather than fail on.
  if (data === null || typeof data !== "object") {
    throw new Error("the server's answer could not be read (cut short?): reload the page");
  }
  return data;
}

function when(stamp) {
  if (!stamp) return "-";
  const d = new Date(stamp);
  if (isNaN(d)) return stamp;
  const pad = (n) => String(n).padStart(2, "0");
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
    pad(d.getHours()) + ":" + pad(d.getMinutes());
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "style") Object.assign(node.style, v);
    else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function resultText(result) {
  if (!result) return "-";
  if (!result.over) return "not over" + (result.end ? " (" + result.end + ")" : "");
  const scores = result.scores ? result.scores.map((s) => (s >= 0 ? "+" : "") + s).join(" ") : "";
  return (result.winner === null ? "draw" : "P" + result.winner + " wins") + ": " + scores;
}

// Live updates: an EventSource that says whether it is connected, and calls `onChange`
// on every change, and on every hello (the stream is open: what the page shows is read
// again, so that nothing changed before the stream began, or while it reconnected, is
// missed).
function follow(url, onChange) {
  const badge = document.getElementById("live-state");
  const source = new EventSource(url);
  source.addEventListener("hello", () => {
    badge.textContent = "live";
    badge.className = "badge live";
    onChange({});
  });
  source.addEventListener("changed", (e) => onChange(JSON.parse(e.data)));
  source.onerror = () => {
    badge.textContent = "reconnecting…";
    badge.className = "badge off";
  };
  return source;
}
