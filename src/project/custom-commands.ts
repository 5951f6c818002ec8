/**
 * Custom slash commands: Markdown files in `.north/commands/`,
 * `.claude/commands/`, `~/.north/commands/` (and `~/.claude/commands/`), as in
 * Claude Code. `review.md` is `/review`; `frontend/component.md` is
 * `/frontend:component`. Optional frontmatter: `description`, `argument-hint`.
 * The body is a prompt template with `$ARGUMENTS` and `$1`…`$9`.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFileSync, unreadableText } from "../util/read-regular-file";
import { firstLine, frontmatterString, parseFrontmatter } from "./skills/frontmatter";

export type CommandScope = "project" | "user";

export interface CommandRoot {
    dir: string;
    scope: CommandScope;
}

export interface CustomCommand {
    /** Without the slash: `review`, `frontend:component`. */
    name: string;
    description: string;
    argumentHint?: string;
    /** The prompt template (frontmatter removed). */
    body: string;
    file: string;
    scope: CommandScope;
    /**
     * A plugin's command (`name@marketplace`): `name` is then `plugin:command`,
     * and the bare `/command` reaches it only when nothing else owns that name.
     */
    plugin?: string;
}

export interface CustomCommandDiscovery {
    /** Project commands first, then user commands, each sorted by name; one per name. */
    commands: CustomCommand[];
    warnings: string[];
}

const MAX_COMMAND_BYTES = 64 * 1024;
const MAX_DEPTH = 4;
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** `.md` files under `dir`, as paths relative to it (POSIX), sorted. */
async function markdownFiles(dir: string, prefix: string[] = [], depth = 0): Promise<string[][]> {
    let entries: Dirent[];
    try {
        entries = await readdir(dir, { withFileTypes: true });
    } catch {
        return [];
    }
    const out: string[][] = [];
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.name.startsWith(".")) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory() || (entry.isSymbolicLink() && !entry.name.endsWith(".md"))) {
            if (depth < MAX_DEPTH) {
                out.push(...(await markdownFiles(path, [...prefix, entry.name], depth + 1)));
            }
        } else if (entry.name.toLowerCase().endsWith(".md")) {
            out.push([...prefix, entry.name]);
        }
    }
    return out;
}

async function readCommand(
    root: CommandRoot,
    parts: string[],
    warnings: string[],
    repoRoot: string | undefined
): Promise<CustomCommand | undefined> {
    const file = join(root.dir, ...parts);
    const segments = [...parts.slice(0, -1), (parts[parts.length - 1] ?? "").replace(/\.md$/i, "")];
    if (!segments.every((part) => NAME_PART.test(part))) {
        warnings.push(`${file}: a command name may not contain spaces or symbols; skipped`);
        return undefined;
    }
    let text: string;
    try {
        // Project commands are repository content: they must resolve inside it.
        const read = readRegularFileSync(file, {
            cap: MAX_COMMAND_BYTES,
            insideRoot: root.scope === "project" ? repoRoot : undefined,
        });
        if (read.truncated) {
            warnings.push(`${file}: larger than 64 KB; skipped`);
            return undefined;
        }
        text = read.bytes.toString("utf8");
    } catch (error) {
        warnings.push(
            unreadableText(error, (message) => `${file}: cannot read (${message}); skipped`)
        );
        return undefined;
    }
    const parsed = parseFrontmatter(text);
    if (parsed.problem) warnings.push(`${file}: ${parsed.problem}; using what could be read`);
    // As written: `[file] [line]` is a hint, not a YAML list.
    const argumentHint =
        parsed.raw["argument-hint"] ?? frontmatterString(parsed.data, "argument-hint");
    return {
        name: segments.join(":"),
        description:
            frontmatterString(parsed.data, "description") ?? firstLine(parsed.body, 80) ?? "",
        ...(argumentHint ? { argumentHint } : {}),
        body: parsed.body,
        file,
        scope: root.scope,
    };
}

/**
 * Finds commands under `roots`, given in precedence order (project roots
 * first). On a name clash the earlier root wins and the other file is
 * reported. Files of "project" roots must resolve inside `repoRoot` when
 * given. Missing roots are fine; never throws.
 */
export async function discoverCustomCommands(
    roots: CommandRoot[],
    repoRoot?: string
): Promise<CustomCommandDiscovery> {
    const byName = new Map<string, CustomCommand>();
    const warnings: string[] = [];
    for (const root of roots) {
        for (const parts of await markdownFiles(root.dir)) {
            const command = await readCommand(root, parts, warnings, repoRoot);
            if (!command) continue;
            const winner = byName.get(command.name);
            if (winner) {
                warnings.push(
                    `command /${command.name} in ${command.file} is shadowed by ${winner.file}`
                );
                continue;
            }
            byName.set(command.name, command);
        }
    }
    const order = (scope: CommandScope): number => (scope === "project" ? 0 : 1);
    const commands = [...byName.values()].sort(
        (a, b) => order(a.scope) - order(b.scope) || a.name.localeCompare(b.name)
    );
    return { commands, warnings };
}

/**
 * Splits arguments like a shell would for `$1`…`$9`: whitespace separates,
 * single or double quotes keep spaces (an unclosed quote runs to the end).
 */
export function splitCommandArgs(args: string): string[] {
    const out: string[] = [];
    const pattern = /"([^"]*)"?|'([^']*)'?|([^\s"']+)/g;
    let current = "";
    let inToken = false;
    let lastEnd = -1;
    for (const match of args.matchAll(pattern)) {
        const start = match.index;
        if (inToken && start !== lastEnd) {
            out.push(current);
            current = "";
        }
        current += match[1] ?? match[2] ?? match[3] ?? "";
        inToken = true;
        lastEnd = start + match[0].length;
    }
    if (inToken) out.push(current);
    return out;
}

/**
 * The prompt for `/name args`: `$ARGUMENTS` becomes the whole argument text,
 * `$1`…`$9` the positional arguments ("" when absent). A template with no
 * placeholder gets the arguments appended as `ARGUMENTS: …`, as Claude Code does.
 */
export function expandCustomCommand(command: CustomCommand, args: string): string {
    const all = args.trim();
    const positional = splitCommandArgs(all);
    let used = false;
    const text = command.body
        .replace(/\$ARGUMENTS/g, () => {
            used = true;
            return all;
        })
        .replace(/\$([1-9])(?![0-9])/g, (_match, digit: string) => {
            used = true;
            return positional[Number(digit) - 1] ?? "";
        });
    if (!used && all !== "") return `${text.trimEnd()}\n\nARGUMENTS: ${all}`;
    return text;
}
