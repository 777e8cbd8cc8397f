"""The exit statuses the ``nimmt`` command shares between its commands and the terminal game.

A module of its own, importing nothing, so that :mod:`nimmt.terminal` and :mod:`nimmt.cli` both
take them from one place without either importing the other's layer.
"""

EXIT_INTERRUPTED = 130
"""The exit status of a program stopped by Ctrl-C (128 + SIGINT), as shells report it."""
