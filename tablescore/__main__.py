import sys

from tablescore.cli import main

sys.exit(main())
