"""Readers and writers of bridge file formats. Pure: text in, records and diagnostics out."""
