"""What the session is told: the dream prompt, its per-workspace override, and computed signals."""
