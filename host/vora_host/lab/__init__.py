"""The balance lab: many games between bots, and what they say about a game's balance.

`vora lab GAME` (cli) checks a run's spec (spec: the game, bots, options, the values
compared, the seeds), has a runner play it (runners: this process, local processes or a
Ray cluster; playing: one game to its summary), keeps every game's summary in the run's
games file (store), and turns them into the report (analysis, with stats) shown in the
terminal, as plots and as one HTML page (report). docs/lab.md is the user's guide.
"""
