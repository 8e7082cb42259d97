"""gradcli.check."""
