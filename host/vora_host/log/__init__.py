"""The game log, for every game of `shared_rules.games`: the SQLite store (`store`), its
file formats, JSON and text (`formats`), the record files of `vora play --record`
(`records`), a game logged while it is played (`live`), and `vora games` on the command
line (`cli`)."""
