"""How a vectorised fast path leaves a file to its careful reader.

A fast path takes a file only when it can vouch for every value in it; at the first check that fails
it raises `Declined` with the check's name, and the careful reader reads the file instead (and
reports whatever is wrong with it, with positions). Declining is not an error.
"""


class Declined(Exception):
    """The fast path does not vouch for this file (the message says which check failed)."""


def require(condition: object, reason: str) -> None:
    """Decline the file unless `condition` holds (a bool or numpy bool)."""
    if not condition:
        raise Declined(reason)
