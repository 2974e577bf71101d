"""The references check."""
