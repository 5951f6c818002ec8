/**
 * Finding a plugin's Markdown parts (commands, agents, output styles) and
 * skill folders. Every file is checked as a regular file of bounded size
 * inside the plugin folder; a symlink out of it is skipped with a warning.
 */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { readRegularFileSync } from "../../util/read-regular-file";
import { frontmatterString, parseFrontmatter } from "../skills/frontmatter";
import { guardPath, shown } from "./paths";
import type { LoadedPlugin, PluginMarkdownFile } from "./types";

/** A command, agent or style file larger than this is skipped (North's custom-command limit). */
export const MAX_PART_BYTES = 64 * 1024;
/** A SKILL.md larger than this is skipped (its body is capped lower when used). */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
const MAX_DEPTH = 4;
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export interface PartContext {
    /** The plugin folder's real path. */
    root: string;
    /** The plugin's name: the prefix of every part. */
    name: string;
    warnings: string[];
}

/**
 * A regular file of at most `cap` bytes inside the plugin folder. Checked
 * with stat, not read: a start with ten plugins reads no part it does not use
 * (a command's body is read when it runs), and a FIFO is never opened.
 */
function checkRegular(ctx: PartContext, file: string, cap: number): boolean {
    const label = shown(ctx.root, file);
    const guarded = guardPath(ctx.root, file, label);
    if (guarded.kind === "outside") {
        ctx.warnings.push(guarded.message);
        return false;
    }
    if (guarded.kind !== "file") {
        const what = guarded.kind === "missing" ? "does not exist" : "not a regular file";
        const fifo = guarded.kind === "other" && guarded.stats.isFIFO();
        ctx.warnings.push(fifo ? `${label} is a FIFO; not read` : `${label}: ${what}; skipped`);
        return false;
    }
    if (guarded.stats.size > cap) {
        ctx.warnings.push(`${label} is larger than ${Math.round(cap / 1024)} KB; skipped`);
        return false;
    }
    return true;
}

function partFile(
    ctx: PartContext,
    file: string,
    segments: string[]
): PluginMarkdownFile | undefined {
    const parts = [
        ...segments.slice(0, -1),
        (segments[segments.length - 1] ?? "").replace(/\.md$/i, ""),
    ];
    if (!parts.every((part) => NAME_PART.test(part))) {
        ctx.warnings.push(
            `${shown(ctx.root, file)}: a name may not contain spaces or symbols; skipped`
        );
        return undefined;
    }
    if (!checkRegular(ctx, file, MAX_PART_BYTES)) return undefined;
    return { name: [ctx.name, ...parts].join(":"), file };
}

function walk(
    ctx: PartContext,
    dir: string,
    prefix: string[],
    depth: number,
    recursive: boolean
): PluginMarkdownFile[] {
    const out: PluginMarkdownFile[] = [];
    let names: string[];
    try {
        names = readdirSync(dir).sort((a, b) => a.localeCompare(b));
    } catch {
        return out;
    }
    for (const entry of names) {
        if (entry.startsWith(".")) continue;
        const path = join(dir, entry);
        const guarded = guardPath(ctx.root, path, shown(ctx.root, path));
        if (guarded.kind === "outside") {
            ctx.warnings.push(guarded.message);
            continue;
        }
        if (guarded.kind === "directory") {
            if (recursive && depth < MAX_DEPTH)
                out.push(...walk(ctx, path, [...prefix, entry], depth + 1, recursive));
        } else if (entry.toLowerCase().endsWith(".md")) {
            const part = partFile(ctx, path, [...prefix, entry]);
            if (part) out.push(part);
        }
    }
    return out;
}

/**
 * Markdown parts under `paths` (absolute, already inside the plugin): a
 * folder is scanned (`sub/x.md` → `plugin:sub:x` when `recursive`), a file
 * is one part. Missing paths given by the manifest are warned about.
 */
export function markdownParts(
    ctx: PartContext,
    paths: Array<{ path: string; fromManifest: boolean }>,
    recursive: boolean
): PluginMarkdownFile[] {
    const out: PluginMarkdownFile[] = [];
    const seen = new Set<string>();
    for (const { path, fromManifest } of paths) {
        const label = shown(ctx.root, path);
        const guarded = guardPath(ctx.root, path, label);
        let found: PluginMarkdownFile[] = [];
        if (guarded.kind === "outside") ctx.warnings.push(guarded.message);
        else if (guarded.kind === "missing") {
            if (fromManifest) ctx.warnings.push(`${label} named in the manifest does not exist`);
        } else if (guarded.kind === "directory") found = walk(ctx, path, [], 0, recursive);
        else {
            const part = partFile(ctx, path, [basename(path)]);
            if (part) found = [part];
        }
        for (const part of found) {
            if (seen.has(part.name)) {
                ctx.warnings.push(
                    `${shown(ctx.root, part.file)}: ${part.name} is already defined; skipped`
                );
                continue;
            }
            seen.add(part.name);
            out.push(part);
        }
    }
    return out;
}

function skillIn(ctx: PartContext, dir: string): boolean {
    const file = join(dir, "SKILL.md");
    const guarded = guardPath(ctx.root, file, shown(ctx.root, file));
    if (guarded.kind === "missing") return false;
    if (guarded.kind === "outside") {
        ctx.warnings.push(guarded.message);
        return false;
    }
    return checkRegular(ctx, file, MAX_SKILL_FILE_BYTES);
}

/**
 * Skill folders: each path is a skill itself (it holds `SKILL.md`) or a
 * folder of skills (its sub-folders holding one).
 */
export function skillDirs(
    ctx: PartContext,
    paths: Array<{ path: string; fromManifest: boolean }>
): string[] {
    const out: string[] = [];
    const add = (dir: string): void => {
        if (!out.includes(dir)) out.push(dir);
    };
    for (const { path, fromManifest } of paths) {
        const label = shown(ctx.root, path);
        const guarded = guardPath(ctx.root, path, label);
        if (guarded.kind === "outside") {
            ctx.warnings.push(guarded.message);
            continue;
        }
        if (guarded.kind !== "directory") {
            if (fromManifest) ctx.warnings.push(`${label} named in the manifest is not a folder`);
            continue;
        }
        if (path !== ctx.root && skillIn(ctx, path)) {
            add(path);
            continue;
        }
        let names: string[];
        try {
            names = readdirSync(path).sort((a, b) => a.localeCompare(b));
        } catch {
            continue;
        }
        for (const entry of names) {
            if (entry.startsWith(".")) continue;
            const sub = join(path, entry);
            const inner = guardPath(ctx.root, sub, shown(ctx.root, sub));
            if (inner.kind === "outside") ctx.warnings.push(inner.message);
            else if (inner.kind === "directory" && skillIn(ctx, sub)) add(sub);
        }
        if (path === ctx.root && skillIn(ctx, path)) add(path);
    }
    return out;
}

/**
 * A plugin skill's name as a person reaches it, `plugin:skill`: the last
 * part is its frontmatter `name`, else its folder's name (the plugin's own
 * name for a root `SKILL.md`).
 */
export function pluginSkillName(plugin: Pick<LoadedPlugin, "name" | "root">, dir: string): string {
    let name = dir === plugin.root ? plugin.name : basename(dir);
    try {
        const read = readRegularFileSync(join(dir, "SKILL.md"), {
            cap: MAX_PART_BYTES,
            insideRoot: plugin.root,
        });
        const written = frontmatterString(
            parseFrontmatter(read.bytes.toString("utf8")).data,
            "name"
        );
        if (written !== undefined && NAME_PART.test(written)) name = written;
    } catch {
        // Unreadable now: the folder's name (reading the plugin already warned).
    }
    return `${plugin.name}:${name}`;
}
