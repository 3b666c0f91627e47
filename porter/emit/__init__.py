"""Emit: IR -> TileLang Python source through templates/."""
