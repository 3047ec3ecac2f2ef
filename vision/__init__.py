"""Recognition: find the play area, rectify, segment pieces, classify crops."""
