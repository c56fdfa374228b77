"""`vora serve`: the web mirror. A local web server that lists every logged game (live
first), draws a live game as the board draws it (the 7x7 keys, the game's legend) beside
the terminal's own drawing (hands, farms, track, carousel) and its scores, updates it
within a poll of the log, and steps through any logged game move by move (time travel),
checking each move's digest on the way.

- `game_data`: what a page may show of a game, from the log's public API only (so it
  works on whatever backend the log has): summaries, positions replayed from the record,
  hidden information kept hidden until the game can no longer go on.
- `app`: the Starlette application (pages, JSON API, server-sent events).
- `serve`: `vora serve` and `vora play --serve`: binding the port (a busy one is said so),
  running uvicorn in the foreground or in a thread.
- `seats`, `seating`: seats of a table (vora_host.table) played from browsers: each seat's
  token and view, and `vora play --web` opening them (the server, each seat's link and QR
  code).
- `tables`: tables the server plays itself (`vora serve --tables`): set up through the
  API or the /tables page, their seats browsers and the server's bots, logged, and taken
  up again from the log when the server starts again.
- `cli`: `vora serve`, and the web server and browser seats `vora play` starts.
- `static/`: the pages' HTML, JavaScript and CSS, shipped as package data.

docs/web.md describes the pages, the API and the secrecy rule.
"""

#: `vora serve`'s port unless --port says otherwise (the board has 7x7 = 49 keys).
DEFAULT_PORT = 8049

#: tables `vora serve --tables` plays at once unless --max-tables says otherwise.
MAX_TABLES = 20
