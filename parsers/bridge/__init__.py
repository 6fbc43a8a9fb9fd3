"""The bridge engine: the rules of calls, auctions, play and claims, once, for every reader and writer.

Modules: `calls` (the vocabulary of calls and every spelling the formats use), `cards` (card codes
and spellings, suit masks, which card wins a trick), `auction_arrays` (the rules of the auction,
Laws 18, 19 and 22 and who declares, the only place they are written: a batch of auctions judged
at once, call by call, for the careful readers and both fast paths), `auction` (the careful
readers' side: records' calls and PBN auction sections put to `auction_arrays` a batch at a time,
its verdicts in each reader's words), `play_arrays` (the rules of play, written only there: who
holds which card, revokes, trick winners and leads, declarer's tricks; every play of a batch at
once, for every reader), `play` (the careful readers' side: LIN's cards and PBN's play sections
put to `play_arrays`, its findings in each reader's words; claims).
Everything works on plain strings (`Pass`, `1NT`, `SA`) or numbers and reports problems as values;
each reader turns them into positioned diagnostics with its own codes (`models.diagnostics`).
"""
