"""Value objects and the event catalogue. No I/O lives here."""
