"""The log read back: events up to a position become frames, scored into projections and editions, with
the audit of each session."""
