"""The event log's owner: its records, its hash chain, and its two backends.

`pipelines.store.EventStore` is the one door every other module uses. Behind it the log of record
is either the embedded DuckDB file (the default) or a PostgreSQL database (`postgresql://` URL,
`pipelines.log.postgres`), whose events are mirrored into a local DuckDB analytics file
(`pipelines.log.mirror`) for replay, scoring and analysts. Nothing outside this package and
`pipelines.store` writes an event.
"""
