"""gradcli.runtime."""
