"""Files in and out: a file's records become events (ingest), the tables they claim, a session written
back as PBN or LIN."""
