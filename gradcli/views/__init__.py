"""gradcli.views."""
