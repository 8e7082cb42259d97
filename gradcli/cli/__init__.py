"""One module per command; cli.py imports them only when the command runs."""
