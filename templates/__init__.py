"""Jinja templates for the emitted TileLang modules (layout only; decisions live in porter.emit)."""
