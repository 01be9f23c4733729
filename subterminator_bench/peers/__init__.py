"""Peers."""
