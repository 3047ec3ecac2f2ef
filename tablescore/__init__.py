"""tablescore: a computer-vision scoring assistant for five tabletop games."""

__version__ = "0.1.0"
