#!/usr/bin/env node
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli.js", import.meta.url);
// A source checkout is not built on install (no `prepare`): say so instead of a module stack trace.
if (!existsSync(entry)) {
    process.stderr.write(
        "north: dist/ is missing: run `npm run build` in the North checkout first\n"
    );
    process.exit(2);
}
await import(entry.href);
