/**
 * Output styles, as in Claude Code: Markdown files whose body is appended to
 * the system prompt of the main conversation. Frontmatter: `name` (default:
 * the file name), `description`, `keep-coding-instructions` (default false:
 * North's coding instructions are dropped) and, for a plugin's styles only,
 * `force-for-plugin`. Found in the project's `.north/output-styles/` and
 * `.claude/output-styles/` (only when the project is trusted: repository
 * text that changes the system prompt), the user's `~/.north/output-styles/`
 * and `~/.claude/output-styles/`, and enabled plugins (`plugin:style`).
 */
import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { readRegularFileSync, unreadableText } from "../util/read-regular-file";
import type { LoadedPlugin } from "./plugins/types";
import { BUILT_IN_OUTPUT_STYLES, DEFAULT_OUTPUT_STYLE } from "./output-styles/built-in";
import { frontmatterString, parseFrontmatter } from "./skills/frontmatter";

export { BUILT_IN_OUTPUT_STYLES, DEFAULT_OUTPUT_STYLE };

export type OutputStyleSource = "built-in" | "user" | "project" | "plugin";

export interface OutputStyle {
    /** As `/output-style` and the `outputStyle` setting name it; `plugin:style` for a plugin's. */
    name: string;
    description: string;
    /** The instructions (the file's body, trimmed); empty for `default`. */
    prompt: string;
    /** False: North's coding instructions are left out of the system prompt. */
    keepCodingInstructions: boolean;
    source: OutputStyleSource;
    file?: string;
    /** The plugin (`name@marketplace`) a plugin's style comes from. */
    plugin?: string;
    /** A plugin's style that applies while its plugin is enabled, over the user's choice. */
    forceForPlugin?: boolean;
}

/** Where styles are looked for, each list highest precedence first. */
export interface OutputStyleRoots {
    repoRoot: string;
    /** `.north/output-styles`, `.claude/output-styles` of the project; pass none when it is not trusted. */
    project: readonly string[];
    /** `~/.north/output-styles`, `~/.claude/output-styles`. */
    user: readonly string[];
    /** Enabled plugins (their `outputStyles`). */
    plugins?: ReadonlyArray<Pick<LoadedPlugin, "id" | "name" | "root" | "outputStyles">>;
}

export interface OutputStyleDiscovery {
    /** Built-ins first, then project, user and plugin styles, each sorted by name; one per name. */
    styles: OutputStyle[];
    warnings: string[];
}

const MAX_STYLE_BYTES = 64 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** The `.md` files of one folder (no sub-folders, as Claude Code), sorted; none when it is missing. */
function markdownFiles(dir: string): string[] {
    let entries: Dirent[];
    try {
        entries = readdirSync(dir, { withFileTypes: true });
    } catch {
        return [];
    }
    return entries
        .filter((entry) => !entry.name.startsWith(".") && entry.name.toLowerCase().endsWith(".md"))
        .filter((entry) => !entry.isDirectory())
        .map((entry) => join(dir, entry.name))
        .sort();
}

/** `true`/`false` or their strings; anything else is reported and read as `fallback`. */
function booleanField(
    value: unknown,
    key: string,
    file: string,
    fallback: boolean,
    warnings: string[]
): boolean {
    if (value === undefined || value === "") return fallback;
    const text = (Array.isArray(value) ? value.join(",") : String(value)).trim().toLowerCase();
    if (text === "true") return true;
    if (text === "false") return false;
    warnings.push(`${file}: ${key} should be true or false, not "${text}"; read as ${fallback}`);
    return fallback;
}

interface StyleFile {
    file: string;
    source: Exclude<OutputStyleSource, "built-in">;
    /** Files must resolve inside it (a symlink out is refused). */
    root?: string;
    rootName?: string;
    plugin?: { id: string; name: string; defaultName: string };
}

function readStyle(entry: StyleFile, warnings: string[]): OutputStyle | undefined {
    const { file, source, plugin } = entry;
    let text: string;
    try {
        const read = readRegularFileSync(file, {
            cap: MAX_STYLE_BYTES,
            insideRoot: entry.root,
            rootName: entry.rootName,
        });
        if (read.truncated) {
            warnings.push(`${file}: larger than 64 KB; output style skipped`);
            return undefined;
        }
        text = read.bytes.toString("utf8");
    } catch (error) {
        warnings.push(
            unreadableText(error, (m) => `${file}: cannot read (${m}); output style skipped`)
        );
        return undefined;
    }
    const parsed = parseFrontmatter(text);
    if (parsed.problem) warnings.push(`${file}: ${parsed.problem}; using what could be read`);
    const own = frontmatterString(parsed.data, "name") ?? basename(file).replace(/\.md$/i, "");
    if (!NAME.test(own)) {
        warnings.push(
            `${file}: output style name "${own}" may hold only letters, digits, ".", "_" and "-"; skipped`
        );
        return undefined;
    }
    const name = plugin
        ? frontmatterString(parsed.data, "name")
            ? `${plugin.name}:${own}`
            : plugin.defaultName
        : own;
    const prompt = parsed.body.trim();
    if (prompt === "") warnings.push(`${file}: output style "${name}" has no instructions`);
    let forceForPlugin: boolean | undefined;
    if (parsed.data["force-for-plugin"] !== undefined) {
        if (plugin) {
            forceForPlugin = booleanField(
                parsed.data["force-for-plugin"],
                "force-for-plugin",
                file,
                false,
                warnings
            );
        } else {
            warnings.push(`${file}: force-for-plugin counts only in a plugin's style; ignored`);
        }
    }
    return {
        name,
        description: frontmatterString(parsed.data, "description") ?? "",
        prompt,
        keepCodingInstructions: booleanField(
            parsed.data["keep-coding-instructions"],
            "keep-coding-instructions",
            file,
            false,
            warnings
        ),
        source,
        file,
        ...(plugin ? { plugin: plugin.id } : {}),
        ...(forceForPlugin ? { forceForPlugin } : {}),
    };
}

function styleFiles(roots: OutputStyleRoots): StyleFile[] {
    const project = roots.project.flatMap((dir) =>
        markdownFiles(dir).map((file): StyleFile => ({
            file,
            source: "project",
            root: roots.repoRoot,
        }))
    );
    const user = roots.user.flatMap((dir) =>
        markdownFiles(dir).map((file): StyleFile => ({ file, source: "user" }))
    );
    const plugins = (roots.plugins ?? []).flatMap((p) =>
        p.outputStyles.map((part): StyleFile => ({
            file: part.file,
            source: "plugin",
            root: p.root,
            rootName: `the plugin ${p.name}`,
            plugin: { id: p.id, name: p.name, defaultName: part.name },
        }))
    );
    return [...project, ...user, ...plugins];
}

/**
 * Every output style: the built-ins, then the files of `roots`. On a name
 * clash the earlier one wins (project over user; North's folder over
 * Claude Code's) and the other is reported; a built-in's name is reserved.
 * Never throws.
 */
export function discoverOutputStyles(roots: OutputStyleRoots): OutputStyleDiscovery {
    const warnings: string[] = [];
    const byName = new Map<string, OutputStyle>(BUILT_IN_OUTPUT_STYLES.map((s) => [s.name, s]));
    for (const entry of styleFiles(roots)) {
        const style = readStyle(entry, warnings);
        if (!style) continue;
        const winner = byName.get(style.name);
        if (winner) {
            warnings.push(
                winner.source === "built-in"
                    ? `${entry.file}: "${style.name}" is a built-in output style's name; rename the file or set another name`
                    : `output style "${style.name}" in ${entry.file} is shadowed by ${winner.file}`
            );
            continue;
        }
        byName.set(style.name, style);
    }
    const order: Record<OutputStyleSource, number> = {
        "built-in": 0,
        project: 1,
        user: 2,
        plugin: 3,
    };
    const styles = [...byName.values()].sort(
        (a, b) =>
            order[a.source] - order[b.source] ||
            (a.source === "built-in" ? 0 : a.name.localeCompare(b.name))
    );
    return { styles, warnings };
}

export interface ChosenOutputStyle {
    style: OutputStyle;
    /** Why the style is not the one asked for (missing, or a plugin forces its own). */
    notice?: string;
}

/**
 * The style a conversation uses: a plugin's forced style (the first), else
 * `wanted` (the `outputStyle` setting or the user's pick), else `default`.
 * A name that is not available falls back to `default` with a notice.
 */
export function chooseOutputStyle(
    styles: readonly OutputStyle[],
    wanted: string | undefined
): ChosenOutputStyle {
    const fallback =
        styles.find((s) => s.name === DEFAULT_OUTPUT_STYLE) ?? BUILT_IN_OUTPUT_STYLES[0]!;
    const forced = styles.find((s) => s.forceForPlugin);
    if (forced) {
        const over = wanted && wanted !== forced.name ? ` over "${wanted}"` : "";
        return {
            style: forced,
            notice: `output style "${forced.name}" of the plugin ${forced.plugin} applies while it is enabled${over} (force-for-plugin)`,
        };
    }
    if (!wanted) return { style: fallback };
    const found =
        styles.find((s) => s.name === wanted) ??
        styles.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
    if (found) return { style: found };
    return {
        style: fallback,
        notice: `output style "${wanted}" is not available here, so the default applies (a project's styles count only when the project is trusted; /output-style lists them)`,
    };
}
