"""Kemps referee: pure rules engines, event-sourced sessions, call intake, server and CLI."""

__version__ = "0.1.0"
