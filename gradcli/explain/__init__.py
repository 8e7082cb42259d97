"""gradcli.explain."""
