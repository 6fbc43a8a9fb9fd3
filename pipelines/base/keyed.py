"""Exact key operations on a large frame, paying for string keys only where they might match.

Replay keys results by (event, session, section, board, table): five columns, mostly strings,
over millions of rows. Hashing or joining on them directly costs seconds and gigabytes, while the
other side of the operation (a few corrections, a few re-sent tables) is tiny. So each function here
first compares one 64-bit hash per row, and only the rows whose hash could match are compared on
the real keys. The hash narrows the work; the answer is always the exact one.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def key_hash(frame: pl.DataFrame, keys: Sequence[str]) -> pl.Series:
    """One 64-bit hash per row of the key columns (frames with the same key dtypes hash alike)."""
    return frame.select(list(keys)).hash_rows().rename("_hash")


def keep_last_per_key(frame: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The last row of each key, rows kept in their order (`unique(keep="last", maintain_order=True)`)."""
    hashes = key_hash(frame, keys)
    ordered = hashes.sort()
    repeated = ordered.filter(ordered == ordered.shift(1))  # sorting beats hashing the hashes again
    if repeated.is_empty():
        return frame
    shared = hashes.is_in(repeated.unique().implode())
    rows = shared.arg_true()
    candidates = frame.select(list(keys))[rows].with_columns(_row=rows)
    last = candidates.filter(pl.struct(list(keys)).is_last_distinct())["_row"]
    keep = (~shared).scatter(last, True)
    return frame.filter(keep)


def matching_rows(frame: pl.DataFrame, other: pl.DataFrame, keys: Sequence[str]) -> pl.Series:
    """A mask of the rows of `frame` whose key occurs in `other` (exactly; a null key matches nothing,
    as in a polars join)."""
    mask = pl.Series("_match", [False] * frame.height, dtype=pl.Boolean)
    if other.is_empty() or frame.is_empty():
        return mask
    rows = _candidate_rows(frame, other, keys)
    if rows.is_empty():
        return mask
    candidates = frame.select(list(keys))[rows].with_columns(_row=rows)
    matched = candidates.join(other.select(list(keys)).unique(), on=list(keys), how="semi", nulls_equal=False)
    return mask.scatter(matched["_row"], True)


def join_small(frame: pl.DataFrame, other: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """`frame` left-joined to `other`, whose keys are unique: `other`'s columns, null where no match.

    Row order and count are `frame`'s; a null key matches nothing, as in a polars join.
    """
    added = [name for name in other.columns if name not in keys]
    empty = frame.with_columns(pl.lit(None, dtype=other.schema[name]).alias(name) for name in added)
    if other.is_empty() or frame.is_empty():
        return empty
    rows = _candidate_rows(frame, other, keys)
    if rows.is_empty():
        return empty
    joined = (
        frame.select(list(keys))[rows].with_columns(_row=rows)
        .join(other, on=list(keys), how="inner", nulls_equal=False)
    )
    if joined["_row"].is_duplicated().any():
        raise ValueError(f"join_small: keys {list(keys)} are not unique in the smaller frame")
    return empty.with_columns(
        empty.get_column(name).scatter(joined["_row"], joined.get_column(name)) for name in added
    )


def _candidate_rows(frame: pl.DataFrame, other: pl.DataFrame, keys: Sequence[str]) -> pl.Series:
    """Indices of the rows of `frame` whose key hash occurs among `other`'s."""
    other_keys = other.select(list(keys)).cast({name: frame.schema[name] for name in keys})
    return key_hash(frame, keys).is_in(key_hash(other_keys, keys).unique().implode()).arg_true()
