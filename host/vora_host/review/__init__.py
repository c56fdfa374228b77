"""Reviews of finished games (issue 41): the search's estimate of each mover's chance to win
before and after every move, the move it would have played, and a mark on the moves that
lost the most (`vora games review`, docs/bots.md "Reviews").

- `evaluate`: a game record replayed and every position searched at a fixed budget, with
  seeds from public things only, so a review is the same on every run and machine;
- `run`: a review of a game in the log, kept there, resumed where it stopped, computed
  by two processes where that pays;
- `cli`: `vora games review ID`, its table, progress bar and plot (`plot`).

A room of its own above the log (which keeps reviews: vora_host.log.reviews) and the bots
(whose search it uses), so that neither needs the other.
"""
