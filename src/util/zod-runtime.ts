/**
 * Zod, loaded the first time a schema is built rather than with every run:
 * a print run that validates nothing (no tool call, no odd settings file)
 * never compiles it. Loading is synchronous (`require`), so callers stay
 * synchronous: the build writes the members North uses, tree-shaken, to
 * dist/zod.cjs (scripts/build.mjs); from source, the installed package is
 * required, unless a test setup or script has provided its own instance.
 * Every runtime use of zod goes through `zod()`, so there is one instance.
 * A device of the launch boundary (src/cli/launch-boundary.ts has the figure).
 */
import { createRequire } from "node:module";
import type * as Zod from "zod";
import { fileBesideBundle } from "./beside-bundle";

/** The zod members North uses at run time: scripts/build.mjs bundles exactly these. */
export const ZOD_MEMBERS = [
    "array",
    "boolean",
    "config",
    "discriminatedUnion",
    "enum",
    "literal",
    "looseObject",
    "number",
    "object",
    "record",
    "string",
    "toJSONSchema",
    "union",
    "unknown",
    "ZodArray",
    "ZodObject",
    "ZodOptional",
    "ZodRecord",
    "ZodUnion",
] as const;

export type ZodApi = Pick<typeof Zod, (typeof ZOD_MEMBERS)[number]>;

/** The file name of the bundled zod beside dist/'s entry files; undefined from source. */
declare const __NORTH_ZOD_CJS__: string | undefined;

let loaded: ZodApi | undefined;

function configured(api: ZodApi): ZodApi {
    // Zod's JIT compiles each object schema with `new Function`: slower than it saves for
    // the few validations of a run.
    api.config({ jitless: true });
    return api;
}

/** The bundled zod beside dist/'s entry files. */
function bundledPath(file: string): string {
    const path = fileBesideBundle(file);
    if (path === undefined)
        throw new Error(`${file} is missing beside North's bundle; reinstall North`);
    return path;
}

/** Zod, loaded on the first call. */
export function zod(): ZodApi {
    if (loaded) return loaded;
    const require = createRequire(import.meta.url);
    const specifier =
        typeof __NORTH_ZOD_CJS__ === "string" ? bundledPath(__NORTH_ZOD_CJS__) : "zod";
    loaded = configured(require(specifier) as ZodApi);
    return loaded;
}

/** A schema built on first use, with zod loaded then. */
export function lazySchema<T>(build: (z: ZodApi) => T): () => T {
    let built: { value: T } | undefined;
    return () => (built ??= { value: build(zod()) }).value;
}

/**
 * Uses `api` as zod from now on: tests and build scripts that import zod
 * themselves pass theirs, so schemas built here and there are one zod's.
 */
export function provideZod(api: ZodApi): void {
    loaded = configured(api);
}
