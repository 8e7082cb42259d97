"""gradcli.spec."""
