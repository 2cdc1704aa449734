#!/usr/bin/env bash
# Regenerates the consent pages' screenshots docs/access-control.md shows (docs/consent/*.png): builds
# permission-server (debug), then scripts/consent_screenshots.py runs it with a temporary
# database and photographs the pages in headless Chromium at 390x844 and 1280x800.
# Needs what scripts/setup.sh installs (chromium, chromium-driver, selenium).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product permission-server
exec python3 scripts/consent_screenshots.py --server "$(swift build --show-bin-path)/permission-server" "$@"
