"""gradcli.core."""
