"""Law 77: the duplicate scoring table, as polars expressions.

One formula serves both the frame-wide scorer and the scalar helper, so they cannot disagree.
Scores are the declaring side's: positive when the contract makes, negative when defeated.
"""

from __future__ import annotations

import polars as pl

STRAINS = ("C", "D", "H", "S", "NT")
DOUBLINGS = ("", "X", "XX")


def declarer_score_expr(
    level: pl.Expr, strain: pl.Expr, doubling: pl.Expr, tricks: pl.Expr, vulnerable: pl.Expr
) -> pl.Expr:
    """Law 77 score for the declaring side, from columns level, strain, doubling, tricks, vulnerable.

    `doubling` is '', 'X' or 'XX'; `tricks` is the total tricks declarer won; level 0 is passed out.
    """
    mult = pl.when(doubling == "XX").then(4).when(doubling == "X").then(2).otherwise(1)
    per_trick = pl.when(strain.is_in(["C", "D"])).then(20).otherwise(30)
    trick_score = (per_trick * level + pl.when(strain == "NT").then(10).otherwise(0)) * mult
    over = tricks - level - 6
    under = -over
    return (
        pl.when(level == 0).then(0)
        .when(over >= 0).then(_made(level, trick_score, per_trick, over, doubling, vulnerable))
        .otherwise(-_defeated(under, doubling, vulnerable))
        .cast(pl.Int64)
    )


def _made(level: pl.Expr, trick_score: pl.Expr, per_trick: pl.Expr, over: pl.Expr,
          doubling: pl.Expr, vulnerable: pl.Expr) -> pl.Expr:
    game_or_part = (
        pl.when(trick_score >= 100).then(pl.when(vulnerable).then(500).otherwise(300)).otherwise(50)
    )
    slam = (
        pl.when(level == 7).then(pl.when(vulnerable).then(1500).otherwise(1000))
        .when(level == 6).then(pl.when(vulnerable).then(750).otherwise(500))
        .otherwise(0)
    )
    insult = pl.when(doubling == "XX").then(100).when(doubling == "X").then(50).otherwise(0)
    doubled_over = pl.when(vulnerable).then(200).otherwise(100)
    overtrick_value = (
        pl.when(doubling == "XX").then(2 * doubled_over)
        .when(doubling == "X").then(doubled_over)
        .otherwise(per_trick)
    )
    return trick_score + game_or_part + slam + insult + over * overtrick_value


def _defeated(under: pl.Expr, doubling: pl.Expr, vulnerable: pl.Expr) -> pl.Expr:
    undoubled = under * pl.when(vulnerable).then(100).otherwise(50)
    # Doubled, not vulnerable: 100, 200, 200, then 300 each; vulnerable: 200 then 300 each.
    doubled_nv = 100 + 200 * pl.min_horizontal(under - 1, 2) + 300 * pl.max_horizontal(under - 3, 0)
    doubled_v = 200 + 300 * (under - 1)
    doubled = pl.when(vulnerable).then(doubled_v).otherwise(doubled_nv)
    return (
        pl.when(doubling == "XX").then(2 * doubled)
        .when(doubling == "X").then(doubled)
        .otherwise(undoubled)
    )


def contract_score(level: int, strain: str, doubling: str, tricks: int, vulnerable: bool) -> int:
    """Law 77 score of one contract for the declaring side (negative when defeated).

    strain in C, D, H, S, NT; doubling '', 'X' or 'XX'; tricks = total tricks won by declarer
    (0-13); level 0 = passed out, which scores 0.
    """
    if not 0 <= level <= 7:
        raise ValueError(f"level must be 0 (passed out) to 7, got {level}")
    if level and strain not in STRAINS:
        raise ValueError(f"strain must be one of {', '.join(STRAINS)}, got {strain!r}")
    if doubling not in DOUBLINGS:
        raise ValueError(f"doubling must be '', 'X' or 'XX', got {doubling!r}")
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks must be 0-13, got {tricks}")
    frame = pl.DataFrame({"level": [level], "strain": [strain], "doubling": [doubling],
                          "tricks": [tricks], "vulnerable": [vulnerable]})
    expr = declarer_score_expr(pl.col("level"), pl.col("strain"), pl.col("doubling"),
                               pl.col("tricks"), pl.col("vulnerable"))
    return int(frame.select(expr).item())
