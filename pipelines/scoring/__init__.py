"""bridgeledger package."""
