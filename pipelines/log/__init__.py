"""The event log's owner: the only code that speaks SQL to the log.

`pipelines.log.store.EventStore` is the one door every other module uses to open the log and append to
it. Behind it the log of record is either the embedded DuckDB file (the default) or a PostgreSQL
database (`postgresql://` URL, `pipelines.log.postgres`), whose events are mirrored into a local
DuckDB analytics file (`pipelines.log.mirror`) for replay, scoring and analysts. Nothing outside
this package and `pipelines.log.store` writes an event, or reads the log's tables (`events`,
`commands`) in SQL: on a connection the store gives, every other module asks this package's
named functions, each taking that connection and giving plain values or polars frames:

- `reads` the log's positions, times and hashes (its head, its clock at a position, when events
  were received, what a position holds);
- `streams` which streams have events in a range of the log, and what their first events name them;
- `fields` a few payload fields of many events, older rows upcast first;
- `payload_frames` whole payloads as replay's frames (and the ranking's typed ones);
- `views` the analysts' SQL views over the log.

tests/log/test_owner.py holds every other module to this.
"""
