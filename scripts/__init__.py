# SPDX-License-Identifier: MIT
"""scripts/ as a package, so that the tests (run from the top directory
as python3 -m tests....) import scripts.keel."""
