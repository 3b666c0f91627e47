"""Verification: run the original and the port on the same inputs and compare every buffer."""
