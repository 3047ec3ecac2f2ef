"""One module per game: `layout(rng, style) -> Layout` (world mm, rules-abiding)."""
