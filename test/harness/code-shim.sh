#!/bin/sh
# An executable with VS Code's command line, for @vscode/test-electron's runTests({ vscodeExecutablePath }).
exec node "$(dirname "$0")/../../out/test/harness/vscodeShim.js" "$@"
