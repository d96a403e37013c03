"""Writing without half-written results: staged folder transactions with a journal, the GitOps
layouts built on them, and the small atomic file writes the caches use."""
