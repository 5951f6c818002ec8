/**
 * The launch boundary: the one place where start-up time shapes North's code.
 * Two paths are kept fast, the chat's launch to its first frame and a print
 * run to its first request; everything behind them imports plainly. Each
 * device below earns its place with a figure (ARCHITECTURE.md, "The launch
 * boundary", has the inventory and how each was measured).
 *
 * - Node's module compile cache in North's data folder (`enableCompileCache`):
 *   on Node ≥ 22.1 a warm chat launch is faster (figure in ARCHITECTURE.md).
 * - Four split points (`loadChat`, `loadPrint`, `loadSubcommands`, `loadAcp`): `north
 *   --version` and `north -p` compile none of the chat, and the chat none of
 *   the subcommands; test/build/launch-path-modules and print-path-modules
 *   count what each path loads.
 * - Elsewhere, because their code cannot live here: zod loaded on first use
 *   (util/zod-runtime.ts), the built-in tools' JSON Schemas and the user
 *   settings check generated at build time (scripts/tool-schemas.mjs),
 *   the SDKs' error classes loaded on a failure only (providers/*-sdk.ts),
 *   vscode-jsonrpc loaded when the first language server starts (tools/lsp/manager.ts),
 *   and `north acp`'s slash commands listed without ICU's collator (acp/slash-commands.ts).
 */
import module from "node:module";
import { join } from "node:path";
import { dataDir } from "../storage/paths";

/** Node ≥ 22.1's `module.enableCompileCache`, which Node 20's types lack. */
interface CompileCacheApi {
    enableCompileCache?: (directory: string) => { status: number; message?: string };
}

/**
 * Caches the compiled code of every module loaded from here on in
 * `<data folder>/compile-cache`. Node before 22.1 has no such cache, and a
 * folder that cannot be written leaves the run uncached: neither is an error.
 */
export function enableCompileCache(env: Record<string, string | undefined>): void {
    const enable = (module as CompileCacheApi).enableCompileCache;
    if (!enable) return;
    try {
        enable(join(dataDir(env), "compile-cache"));
    } catch {
        // A data folder that cannot be created: this run compiles as without the cache.
    }
}

/** The chat: Ink, React and the session, none of it compiled for `--version` or `-p`. */
export const loadChat = () => import("./interactive-command");

/** A print run's engine, without the chat's UI. */
export const loadPrint = () => import("./engine-entry");

/** `models`, `list`, `doctor`, `completion`, `mcp`, `rewind`. */
export const loadSubcommands = () => import("./subcommands");

/** `north acp`: the Agent Client Protocol server and its SDK, compiled on this path only. */
export const loadAcp = () => import("./acp/command");
