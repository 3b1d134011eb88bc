import sys

from kindling.cli import main

sys.exit(main())
