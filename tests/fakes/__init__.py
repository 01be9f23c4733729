"""Test doubles that speak real protocols (HTTP on loopback) instead of mocking SDKs."""
