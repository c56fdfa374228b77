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
// missed; a page the server dropped for reading too slowly catches up so).
const LIVE_RETRY_MS = 5000;  // how soon a refused stream is asked for again

function follow(url, onChange) {
  const badge = document.getElementById("live-state");
  const note = document.getElementById("live-problem");
  let source = null;
  function state(text, cls) {
    badge.textContent = text;
    badge.className = "badge " + cls;
  }
  function open() {
    source = new EventSource(url);
    source.addEventListener("hello", () => {
      state("live", "live");
      note.hidden = true;
      onChange({});
    });
    source.addEventListener("changed", (e) => onChange(JSON.parse(e.data)));
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        state("reconnecting…", "off");  // the browser connects again by itself
        return;
      }
      // Refused (an answer that is no stream, such as the 503 past --max-streams): the
      // browser gives up, so the page asks why, says it, and tries again later.
      source.close();
      state("not live", "off");
      refused().then((reason) => {
        if (reason === null) { setTimeout(open, 1000); return; }  // it would be taken now
        note.textContent = "Live updates are off: " + reason + ". This page reads the " +
          "log and asks again every " + LIVE_RETRY_MS / 1000 + " s.";
        note.hidden = false;
        onChange({});  // the page reads the log all the same, at each try: not live
        setTimeout(open, LIVE_RETRY_MS);
      });
    };
  }
  async function refused() {
    const controller = new AbortController();
    try {
      const response = await fetch(url, {cache: "no-store", signal: controller.signal});
      if (response.ok) {
        controller.abort();
        return null;
      }
      const data = await response.json().catch(() => null);
      return data && data.error ? data.error : "the server answered " + response.status;
    } catch (e) {
      return "the server cannot be reached (" + e.message + ")";
    }
  }
  open();
}
