"""Typed methods per area of the API (tasks, spools, test controls), over the one request function."""
