"""`python -m vora_host` runs the `vora` command line."""

import sys

from vora_host.cli import main

sys.exit(main())
