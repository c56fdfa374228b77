"""The game log: the SQLite store (`store`), the record files of `vora play --record`
(`records`), and `vora games` on the command line (`cli`)."""
