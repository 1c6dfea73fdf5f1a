#!/usr/bin/env bash
# The same checks as CI (.ci/run): formatting, lints, tests, benches in test mode.
exec "$(dirname "$0")/../.ci/run"
