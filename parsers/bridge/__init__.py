"""The bridge engine: the rules of calls, auctions, play and claims, once, for every reader and writer.

Modules: `calls` (the vocabulary of calls, every spelling the formats use, Laws 18 and 19),
`cards` (card codes and spellings, suit masks, which card wins a trick), `auction` (legality,
completion and the final contract), `auction_arrays` (the same rules over arrays, every auction of
a file at once, for both fast paths), `play` (tricks replayed from the lead, claims, PBN's play rows).
Everything works on plain strings (`Pass`, `1NT`, `SA`) and reports problems as values; each reader
turns them into positioned diagnostics with its own codes (`models.diagnostics`).
"""
