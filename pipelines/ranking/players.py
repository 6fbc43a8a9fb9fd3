"""Who each player in a file is: a member by id, by an explicit link, by name, or unmatched.

Order of evidence, strongest first:

1. a `PlayerLinked` event for (event, name as written): a person settled it;
2. the federation id the file carries, when it is a member's;
3. the member whose normalised name equals the player's (accents, case, punctuation and word
   order ignored), when exactly one member of the rule set's federation has that name.

Anything else is unmatched and listed, never guessed. `PlayerIdentitiesMerged` then maps a merged
id to the id kept, from the merge's time on: an edition before it still shows both.
"""

from __future__ import annotations

import polars as pl

from pipelines.ranking.inputs import RankingInputs

PLAYER_KEYS = ["event_id", "session_id", "section", "direction", "contestant_id"]
_FOLD = {"ł": "l", "ø": "o", "ß": "ss", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
_MERGE_DEPTH = 16
"""Chains of merges longer than this are not followed (a cycle would otherwise never end)."""


def normalised_name(name: pl.Expr) -> pl.Expr:
    """A name reduced for exact matching: no accents, case, punctuation or word order."""
    folded = (name.str.normalize("NFKD").str.replace_all(r"\p{M}", "").str.to_lowercase()
              .str.replace_many(list(_FOLD), list(_FOLD.values())))
    words = folded.str.replace_all(r"[^\p{L}\p{N}]+", " ").str.strip_chars().str.split(" ")
    return words.list.eval(pl.element().filter(pl.element() != "")).list.sort().list.join(" ")


def contestant_players(contestants: pl.DataFrame) -> pl.DataFrame:
    """One row per player of each registered contestant: its key, name and file id."""
    exploded = contestants.explode("players").filter(pl.col("players").is_not_null())
    return exploded.select(
        *PLAYER_KEYS, "kind",
        player_name=pl.col("players").struct.field("name"),
        file_id=pl.col("players").struct.field("federation_id"),
    ).with_columns(session_id=pl.col("session_id").fill_null(""), section=pl.col("section").fill_null(""))


def resolve_players(players: pl.DataFrame, inputs: RankingInputs, federation: str | None) -> pl.DataFrame:
    """`players` with `original_id` (the member found, before merges), `player_id` (after merges),
    `matched_by` (link, file id, name) and, when unmatched, `unmatched_reason`."""
    members = inputs.members
    if federation is not None:
        members = members.filter(pl.col("federation") == federation)
    by_id = members.select(file_id="federation_id", _id_member="federation_id")
    by_name = (
        members.select("federation_id", _norm=normalised_name(pl.col("name")))
        .group_by("_norm").agg(_name_member=pl.col("federation_id").first(), _namesakes=pl.len())
    )
    # A federation's players are the same few names week after week: each (name, file id) is
    # resolved once, then joined back to every registration it occurs in.
    written = players.select("player_name", "file_id").unique()
    unique_name = pl.when(pl.col("_namesakes") == 1).then(pl.col("_name_member"))
    by_file = (
        written.with_columns(_norm=normalised_name(pl.col("player_name")))
        .join(by_id, on="file_id", how="left")
        .join(by_name, on="_norm", how="left")
        .select(
            "player_name", "file_id",
            _found=pl.coalesce("_id_member", unique_name),
            _by=pl.when(pl.col("_id_member").is_not_null()).then(pl.lit("file id"))
            .when(unique_name.is_not_null()).then(pl.lit("name")),
            _reason=pl.when(pl.col("_namesakes") > 1)
            .then(pl.format("{} members share this name", pl.col("_namesakes")))
            .when(pl.col("file_id").is_not_null()).then(pl.format("id {} is not a member; no member of that name",
                                                                    pl.col("file_id")))
            .otherwise(pl.lit("no member of that name")),
        )
    )
    found = players.join(by_file, on=["player_name", "file_id"], how="left", nulls_equal=True, maintain_order="left")
    if inputs.links.height:
        links = inputs.links.select("event_id", "player_name", _link_member="federation_id")
        found = found.join(links, on=["event_id", "player_name"], how="left", maintain_order="left")
    else:
        found = found.with_columns(_link_member=pl.lit(None, dtype=pl.String))
    resolved = found.with_columns(
        original_id=pl.coalesce("_link_member", "_found"),
        matched_by=pl.when(pl.col("_link_member").is_not_null()).then(pl.lit("link")).otherwise(pl.col("_by")),
        unmatched_reason=pl.when(pl.coalesce("_link_member", "_found").is_null()).then(pl.col("_reason")),
    ).drop("_link_member", "_found", "_by", "_reason")
    return resolved.with_columns(player_id=merged_ids(pl.col("original_id"), inputs.merges))


def merged_ids(ids: pl.Expr, merges: pl.DataFrame) -> pl.Expr:
    """Each id mapped through the merges (merged -> kept), following chains."""
    mapping = dict(zip(merges["merged_id"].to_list(), merges["kept_id"].to_list(), strict=True))
    final = {}
    for start in mapping:
        current, steps = start, 0
        while current in mapping and steps < _MERGE_DEPTH:
            current, steps = mapping[current], steps + 1
        final[start] = current
    if not final:
        return ids
    return ids.replace(final)


def unmatched_players(resolved: pl.DataFrame) -> pl.DataFrame:
    """Players no member could be found for, one row per (event, name as written)."""
    return (
        resolved.filter(pl.col("original_id").is_null())
        .group_by("event_id", "player_name")
        .agg(file_id=pl.col("file_id").drop_nulls().first(),
             contestant_ids=pl.col("contestant_id").unique().sort().str.join(" "),
             reason=pl.col("unmatched_reason").first())
        .sort("event_id", "player_name")
    )
