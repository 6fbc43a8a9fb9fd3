"""What every stage uses: DuckDB rows as polars frames, exact keyed joins, text made safe to show."""
