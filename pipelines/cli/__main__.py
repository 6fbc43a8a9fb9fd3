"""`python -m pipelines.cli`: the `bridgeledger` command."""

from pipelines.cli import main

main()
