"""Recognition: find the play area, rectify, segment pieces, classify crops."""

import tablescore  # noqa: F401  (first: its BLAS thread setting must precede numpy)
