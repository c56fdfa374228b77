"""The game log, for every game of `shared_rules.games`: the store (`store`: GameLog, in
SQLite or PostgreSQL, put together from its parts `database`, `schema`, `holding`,
`writes`, `queries`, `checks` and `verify`), its file formats, JSON and text (`formats`;
read back and imported by `readers`), the record files of `vora play --record`
(`records`), a game logged while it is played (`live`), a command-line session's log
(`session`), and `vora games` on the command line (`cli`)."""
