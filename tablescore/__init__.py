"""tablescore: a computer-vision scoring assistant for five tabletop games."""

import os

__version__ = "0.1.0"

# numpy's OpenBLAS starts a worker thread per core for even tiny matrix products, and
# those threads spin: on 2 cores they burned 24-340 ms of CPU on single Mauerhuepfer
# photos (session 27) for products of a few hundred numbers. One thread is the right size
# here; it must be set before numpy loads, so `vision` and `webapp` import this package
# first. An explicit setting in the environment wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
