#!/usr/bin/env node
import { existsSync } from "node:fs";
import module from "node:module";

const entry = new URL("../dist/cli.js", import.meta.url);
// A source checkout is not built on install (no `prepare`): say so instead of a module stack trace.
if (!existsSync(entry)) {
    process.stderr.write(
        "north: dist/ is missing: run `npm run build` in the North checkout first\n"
    );
    process.exit(2);
}
// Node 22.1+ can cache compiled code between runs; older versions simply skip it.
module.enableCompileCache?.();
await import(entry.href);
