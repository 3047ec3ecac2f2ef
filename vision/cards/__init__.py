"""Vision for card and numbered-tile games: Magic Rabbit, Der Troetofanten-Zirkus and the
Hop la bille cards (key-point detector, card crops, per-game readers)."""
