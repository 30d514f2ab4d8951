"""Runnable services. Nothing under libs/ imports from here."""
