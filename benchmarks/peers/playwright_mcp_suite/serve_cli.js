#!/usr/bin/env node
// Stands in for Playwright MCP's cli.js inside a checkout of its repository, so its own
// test fixture (tests/fixtures.ts: `node ../cli.js ARGS`, cwd = the test's output folder)
// starts `subterminator serve --tools playwright` instead (suite_services.toml beside it
// names the suite's test servers as the one service its pages belong to). Playwright MCP's own options
// (--headless, --browser=chrome, --config=...) are dropped: serve runs headless Chromium
// and takes no such options. Every test gets its own profiles and journal under its
// output folder, and no operator: a call a rule holds is refused (the suite cannot answer).
const { spawn } = require('child_process');
const path = require('path');

const subterminator = process.env.SUBTERMINATOR_BIN || 'subterminator';
const here = process.cwd();
const args = [
  'serve', '--tools', 'playwright', '--operator-tty', 'none',
  // The suite's test servers as one service (loopback origins are never "any site").
  '--services', path.join(__dirname, 'suite_services.toml'),
  '--profile-root', path.join(here, 'serve-profiles'),
];
const child = spawn(subterminator, args, {
  stdio: 'inherit',
  env: { ...process.env, SUBTERMINATOR_JOURNAL: path.join(here, 'serve-journal.sqlite3') },
});
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
