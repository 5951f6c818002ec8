import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { ToolRunner } from "../agent/session";
import { toolError } from "../tools/types";
import type { AnyToolDefinition } from "../tools/types";
import { closestMatches } from "../util/levenshtein";
import type { CliArgs } from "./args";

/** The flags scripts use to shape a session (Claude Code's names), checked. */
export interface ScriptFlags {
    systemPrompt?: string;
    appendSystemPrompt?: string;
    maxBudgetUsd?: number;
    /** `--web-search`: the provider's web search for this run, whatever the settings say. */
    webSearch?: boolean;
    /** Names as given; matched by `withoutTools`. */
    disallowedTools: string[];
    /** `--add-dir`: absolute, symlink-resolved directories the tools may also use. */
    addDirs: string[];
}

/** Each `--add-dir` (relative to the current directory) as a real directory path. */
function checkAddDirs(
    dirs: readonly string[]
): { ok: true; dirs: string[] } | { ok: false; error: string } {
    const real: string[] = [];
    for (const dir of dirs) {
        let path: string;
        try {
            path = realpathSync(resolve(dir));
        } catch {
            return { ok: false, error: `--add-dir: ${dir} does not exist` };
        }
        if (!statSync(path).isDirectory()) {
            return { ok: false, error: `--add-dir: ${dir} is not a directory` };
        }
        if (!real.includes(path)) real.push(path);
    }
    return { ok: true, dirs: real };
}

/** What the model is told of the added directories (absolute paths reach them). */
export function addedDirsNote(dirs: readonly string[]): string | undefined {
    if (dirs.length === 0) return undefined;
    return `Besides the repository, you may read (and, with the user's approval, change) files in these directories, by absolute path: ${dirs.join(", ")}`;
}

export function checkScriptFlags(
    args: CliArgs
): ({ ok: true } & ScriptFlags) | { ok: false; error: string } {
    for (const [flag, value] of [
        ["--system-prompt", args.systemPrompt],
        ["--append-system-prompt", args.appendSystemPrompt],
    ] as const) {
        if (value !== undefined && value.trim() === "") {
            return { ok: false, error: `${flag} needs some text` };
        }
    }
    let maxBudgetUsd: number | undefined;
    if (args.maxBudgetUsd !== undefined) {
        maxBudgetUsd = Number(args.maxBudgetUsd);
        if (!/^\s*\d*\.?\d+\s*$/.test(args.maxBudgetUsd) || !(maxBudgetUsd > 0)) {
            return {
                ok: false,
                error: `--max-budget-usd must be a positive number of dollars, such as 0.50 (got "${args.maxBudgetUsd}")`,
            };
        }
    }
    const addDirs = checkAddDirs(args.addDirs);
    if (!addDirs.ok) return addDirs;
    return {
        ok: true,
        addDirs: addDirs.dirs,
        systemPrompt: args.systemPrompt,
        appendSystemPrompt: args.appendSystemPrompt,
        maxBudgetUsd,
        ...(args.webSearch ? { webSearch: true } : {}),
        disallowedTools: args.disallowedTools,
    };
}

/**
 * Whether `name` (North's tool name or Claude Code's, any case) names the
 * tool; `mcp__server` names every tool of that server.
 */
function names(tool: AnyToolDefinition, name: string): boolean {
    const wanted = name.toLowerCase();
    const tail = tool.name.toLowerCase();
    if (tail === wanted) return true;
    if (wanted.startsWith("mcp__") && tail.startsWith(`${wanted}__`)) return true;
    return tool.hookAliases?.some((alias) => alias.toLowerCase() === wanted) === true;
}

/**
 * The tools minus the disallowed ones: they are not offered to the model at
 * all, and a call to one anyway is refused. A name that matches no tool is
 * reported (MCP names are not: their servers may not have listed tools yet).
 */
export function withoutTools(
    runner: ToolRunner,
    disallowed: readonly string[],
    warn: (message: string) => void
): ToolRunner {
    if (disallowed.length === 0) return runner;
    const known = runner.list();
    for (const name of disallowed) {
        if (name.toLowerCase().startsWith("mcp__") || known.some((t) => names(t, name))) continue;
        const candidates = [...new Set(known.flatMap((t) => [t.name, ...(t.hookAliases ?? [])]))];
        const [closest] = closestMatches(name, candidates, 1);
        warn(
            `--disallowed-tools: no tool is named "${name}"${closest ? ` (did you mean ${closest}?)` : ""}`
        );
    }
    const named = (tool: AnyToolDefinition): boolean => disallowed.some((n) => names(tool, n));
    // A tool offered only beside another (the process tools beside shell_run) goes with it.
    const allowed = (tool: AnyToolDefinition): boolean => {
        if (named(tool)) return false;
        const companion = tool.offeredWith && known.find((t) => t.name === tool.offeredWith);
        return !companion || !named(companion);
    };
    return {
        list: () => runner.list().filter(allowed),
        schemas: (filter) => runner.schemas((tool) => allowed(tool) && (filter?.(tool) ?? true)),
        execute: (name, input, ctx) => {
            const tool = runner.list().find((t) => t.name === name);
            if (tool && !allowed(tool)) {
                return Promise.resolve(
                    toolError("unknown_tool", `${name} is not available in this session`)
                );
            }
            return runner.execute(name, input, ctx);
        },
    };
}
