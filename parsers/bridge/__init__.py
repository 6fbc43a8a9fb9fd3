"""The bridge engine: the rules of calls, auctions, play and claims, once, for every reader and writer.

Modules: `calls` (the vocabulary of calls and every spelling the formats use), `cards` (card codes
and spellings, suit masks, which card wins a trick), `auction_arrays` (the rules of the auction,
Laws 18, 19 and 22 and who declares, the only place they are written: a batch of auctions judged
at once, call by call, for the careful readers and both fast paths), `auction` (the careful
readers' side: records' calls and PBN auction sections put to `auction_arrays` a batch at a time,
its verdicts in each reader's words), `play` (tricks replayed from the lead, claims, PBN's play
rows), `play_arrays` (the same play rules over arrays, for both fast paths).
Everything works on plain strings (`Pass`, `1NT`, `SA`) or numbers and reports problems as values;
each reader turns them into positioned diagnostics with its own codes (`models.diagnostics`).
"""
