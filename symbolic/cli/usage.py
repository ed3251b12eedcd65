"""The command line's one error of its own: bad usage or input, exit status 2."""


class UsageError(Exception):
    """Bad usage or input on the command line (exit status 2)."""
