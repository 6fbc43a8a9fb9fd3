"""The `bridgeledger` command line: thin commands, each calling one function of `pipelines`."""


def main() -> None:
    """The `bridgeledger` command (`pipelines.cli.app.main`), imported only when it runs: the
    package's other modules load without the app."""
    from pipelines.cli.app import main as run

    run()
