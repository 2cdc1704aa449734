#!/usr/bin/env python3
"""Runs the consent pages' browser tests (Tests/browser/test_*.py) against a built server.

    Tests/browser/run.py [--server PATH] [unittest names or -k patterns ...]

--server (or PERMISSION_SERVER) is the permission-server binary to run, default
.build/debug/permission-server; nothing is built here. Needs Debian's chromium and
chromium-driver and Python's selenium and axe-selenium-python (scripts/setup.sh installs them):
without them it exits 2 saying what is missing. Exits 0 when every test passed, else 1.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import consent_harness as h  # noqa: E402


def missing_tools():
    missing = []
    for path, package in ((h.CHROMIUM, "chromium"), (h.CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            missing.append(f"{path} (Debian package {package})")
    for module, package in (("selenium", "selenium==4.51.0"), ("axe_selenium_python", "axe-selenium-python==2.1.6")):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"Python module {module} (PyPI {package})")
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get(
        "PERMISSION_SERVER", os.path.join(h.REPO, ".build/debug/permission-server")))
    parser.add_argument("-k", dest="patterns", action="append", default=[],
                        help="only tests whose name contains this (unittest -k)")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("tests", nargs="*", help="test names, e.g. test_link.ConsentLinkTests")
    arguments = parser.parse_args()

    missing = missing_tools()
    if missing:
        print("browser tests: missing " + "; ".join(missing) + ". Run scripts/setup.sh to install them.",
              file=sys.stderr)
        return 2
    os.environ["PERMISSION_SERVER"] = os.path.abspath(arguments.server)
    if not os.access(arguments.server, os.X_OK):
        print(f"browser tests: no server binary at {arguments.server}; build it first (swift build).",
              file=sys.stderr)
        return 2

    # Everything the run's processes put in the temporary directory (Chromium's singleton
    # directories, the servers' state) goes to one of its own, removed at the end unless
    # KEEP_BROWSER_TEST_DIR=1.
    scratch = tempfile.mkdtemp(prefix="browser-tests-")
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch

    loader = unittest.TestLoader()
    loader.testNamePatterns = [f"*{k}*" for k in arguments.patterns] or None
    if arguments.tests:
        suite = loader.loadTestsFromNames(arguments.tests)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    started = time.monotonic()
    try:
        result = unittest.TextTestRunner(verbosity=1 if arguments.quiet else 2, stream=sys.stderr).run(suite)
    finally:
        h.quit_drivers()
        h.stop_server()
        if os.environ.get("KEEP_BROWSER_TEST_DIR") == "1":
            print(f"browser tests: kept the run's files in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"browser tests: {result.testsRun} run, {len(result.failures)} failed, {len(result.errors)} errors, "
          f"{len(result.skipped)} skipped in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
