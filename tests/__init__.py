# SPDX-License-Identifier: MIT
"""The Python tests, run as modules from the top directory, e.g.
python3 -m tests.qemu.x86_64 --help; they import scripts.keel."""
