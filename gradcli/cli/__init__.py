"""The command line: main.py's group and one module per command, its click decorators
above its body, which imports the rest of gradcli only when the command runs."""
