"""Benchmarks: scripts that print figures, each measuring a peer in the same run."""
