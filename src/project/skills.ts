/**
 * Skills: folders holding a `SKILL.md` (frontmatter `name`, `description`,
 * then instructions), in `.north/skills/`, `.claude/skills/`, `~/.north/skills/`.
 * Only names and descriptions are read up front; a body is read when the
 * model (or the user) uses the skill.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isPathInside, readRegularTextSync, unreadableText } from "../util/read-regular-file";
import type * as z from "zod";
import { prebuiltToolSchema } from "../util/prebuilt-tool-schemas";
import type { ZodApi } from "../util/zod-runtime";
import { firstLine, frontmatterString, parseFrontmatter } from "./skills/frontmatter";

export const SKILL_FILE = "SKILL.md";
/** A skill body is cut to this many UTF-8 bytes. */
export const MAX_SKILL_BODY_BYTES = 64 * 1024;
const MAX_DESCRIPTION_CHARS = 1024;
/** The tool description (the list the model sees) stays under this many characters. */
export const MAX_SKILL_TOOL_DESCRIPTION_CHARS = 2048;
const LISTED_DESCRIPTION_CHARS = 150;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export interface Skill {
    name: string;
    description: string;
    /** The skill's folder; files it mentions are relative to it. */
    path: string;
    /** The `SKILL.md` file. */
    file: string;
    /** The skills folder it was found in. */
    root: string;
    /** False when the frontmatter says `disable-model-invocation: true` (user-only skill). */
    modelInvocable: boolean;
    /** For a skill in the repository: the repo root its file must resolve inside. */
    insideRoot?: string;
    /** The plugin (`name@marketplace`) it came from: its name is then `plugin:skill`. */
    plugin?: string;
    /** Applied to the body when loaded (a plugin's `${CLAUDE_PLUGIN_ROOT}` and the like). */
    expandBody?: (body: string) => string;
}

export interface SkillDiscovery {
    /** Sorted by name; one per name. */
    skills: Skill[];
    /** Broken frontmatter, unreadable files, names shadowed by an earlier root. */
    warnings: string[];
}

async function isDirectory(path: string): Promise<boolean> {
    try {
        return (await stat(path)).isDirectory();
    } catch {
        return false;
    }
}

export async function readSkill(
    root: string,
    folder: string,
    warnings: string[],
    insideRoot: string | undefined
): Promise<Skill | undefined> {
    const path = join(root, folder);
    const file = join(path, SKILL_FILE);
    let text: string;
    try {
        text = readRegularTextSync(file, { insideRoot });
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") {
            warnings.push(
                unreadableText(
                    error,
                    (message) => `${file}: cannot read (${message}); skill skipped`
                )
            );
        }
        return undefined;
    }
    const parsed = parseFrontmatter(text);
    if (parsed.problem) warnings.push(`${file}: ${parsed.problem}; using what could be read`);
    else if (Object.keys(parsed.data).length === 0) {
        warnings.push(`${file}: no frontmatter (name, description); using the folder name`);
    }
    let name = frontmatterString(parsed.data, "name") ?? folder;
    if (!NAME_PATTERN.test(name)) {
        warnings.push(`${file}: invalid skill name ${JSON.stringify(name)}; using the folder name`);
        name = folder;
    }
    const description = (
        frontmatterString(parsed.data, "description") ??
        firstLine(parsed.body, LISTED_DESCRIPTION_CHARS) ??
        ""
    ).slice(0, MAX_DESCRIPTION_CHARS);
    const disabled = frontmatterString(parsed.data, "disable-model-invocation") === "true";
    return {
        name,
        description,
        path,
        file,
        root,
        modelInvocable: !disabled,
        insideRoot,
    };
}

/**
 * Finds skills under `roots`, given in precedence order (project before
 * user: `.north/skills`, `.claude/skills`, `~/.north/skills`, …). Missing
 * roots are fine. On a name clash the earlier root wins and the other is
 * reported. Roots under `repoRoot` are repository content: their files must
 * resolve inside it (a `SKILL.md` symlinked to `~/.ssh/…` is refused). Never throws.
 */
export async function discoverSkills(roots: string[], repoRoot?: string): Promise<SkillDiscovery> {
    const byName = new Map<string, Skill>();
    const warnings: string[] = [];
    for (const root of roots) {
        let entries: Dirent[];
        try {
            entries = await readdir(root, { withFileTypes: true });
        } catch {
            continue;
        }
        const folders = entries
            .filter((entry) => !entry.name.startsWith("."))
            .map((entry) => entry.name)
            .sort();
        const insideRoot =
            repoRoot !== undefined && isPathInside(repoRoot, root) ? repoRoot : undefined;
        for (const folder of folders) {
            if (!(await isDirectory(join(root, folder)))) continue;
            const skill = await readSkill(root, folder, warnings, insideRoot);
            if (!skill) continue;
            const winner = byName.get(skill.name);
            if (winner) {
                warnings.push(
                    `skill "${skill.name}" in ${skill.path} is shadowed by ${winner.path}`
                );
                continue;
            }
            byName.set(skill.name, skill);
        }
    }
    const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    return { skills, warnings };
}

/** The instructions of `skill` (frontmatter removed), cut to 64 KB. */
export async function loadSkillBody(skill: Skill): Promise<{ body: string; truncated: boolean }> {
    const text = readRegularTextSync(skill.file, { insideRoot: skill.insideRoot });
    const raw = parseFrontmatter(text).body.trim();
    const body = skill.expandBody ? skill.expandBody(raw) : raw;
    const bytes = Buffer.from(body, "utf8");
    if (bytes.length <= MAX_SKILL_BODY_BYTES) return { body, truncated: false };
    let end = MAX_SKILL_BODY_BYTES;
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    return {
        body:
            `${bytes.subarray(0, end).toString("utf8")}\n[North: ${SKILL_FILE} is longer than 64 KB; ` +
            `the rest was cut. Read ${skill.file} for the remainder.]`,
        truncated: true,
    };
}

/** What the skill tool returns. */
export interface SkillToolDetails {
    name: string;
    /** The skill's folder: scripts and references it mentions are relative to it. */
    path: string;
    body: string;
    truncated: boolean;
}

type SkillToolResult =
    | { ok: true; data: SkillToolDetails }
    | { ok: false; error: { code: "not_found" | "io_error" | "cancelled"; message: string } };

/**
 * The `skill` tool, shaped like `ToolDefinition<{ name: string }, SkillToolDetails>`
 * from tools/types (project/ may not import tools/, so the shape is spelled out).
 */
export interface SkillTool {
    name: "skill";
    description: string;
    /** Built on first use, by tools/tool-input (a `ToolInput`). */
    input: { readonly build: (zod: ZodApi) => z.ZodType<{ name: string }> };
    /** Prebuilt by the build; absent from source, where the registry derives it. */
    inputJsonSchema: Record<string, unknown> | undefined;
    approvalPolicy: "none";
    readOnly: true;
    /** Claude Code's name for it, so a hook matching `Skill` fires. */
    hookAliases: readonly string[];
    execute(input: { name: string }, ctx: { signal: AbortSignal }): Promise<SkillToolResult>;
}

/** One object for every skill tool, so its schema is built once per process. */
const SKILL_INPUT: SkillTool["input"] = {
    build: (zod) =>
        zod.object({ name: zod.string().min(1).describe("The skill's name, from the list") }),
};

function oneLine(text: string, max: number): string {
    const line = text.replace(/\s+/g, " ").trim();
    return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The model-facing description: what the tool is for, then as many skills as fit. */
export function skillToolDescription(skills: Skill[]): string {
    const head =
        "Loads a skill: instructions (and files in its folder) for a specialised task. " +
        "When the user's request matches a skill below, call this with its name first, then " +
        "follow the instructions it returns.\nSkills:";
    const listed = skills.filter((skill) => skill.modelInvocable);
    let text = head;
    for (let i = 0; i < listed.length; i++) {
        const skill = listed[i] as Skill;
        const line = `\n- ${skill.name}: ${oneLine(skill.description, LISTED_DESCRIPTION_CHARS)}`;
        // Room for the "and N more" line unless this is the last skill.
        const reserve = i === listed.length - 1 ? 0 : 64;
        if (text.length + line.length + reserve > MAX_SKILL_TOOL_DESCRIPTION_CHARS) {
            return `${text}\n- and ${listed.length - i} more (an unknown name lists them all)`;
        }
        text += line;
    }
    return text;
}

/**
 * The `skill` tool over `skills`, read at each use: a plugin enabled or
 * disabled mid-session changes the array in place (and the description).
 */
export function createSkillTool(skills: Skill[]): SkillTool {
    const usableNow = (): Skill[] => skills.filter((skill) => skill.modelInvocable);
    return {
        name: "skill",
        get description() {
            return skillToolDescription(usableNow());
        },
        input: SKILL_INPUT,
        inputJsonSchema: prebuiltToolSchema("skill"),
        approvalPolicy: "none",
        readOnly: true,
        hookAliases: ["Skill"],
        async execute(input, ctx) {
            const usable = usableNow();
            const skill =
                usable.find((s) => s.name === input.name) ??
                usable.find((s) => s.name.toLowerCase() === input.name.toLowerCase());
            if (!skill) {
                const names = usable.map((s) => s.name).join(", ") || "(none)";
                return {
                    ok: false,
                    error: {
                        code: "not_found",
                        message: `No skill named "${input.name}". Available skills: ${names}.`,
                    },
                };
            }
            if (ctx.signal.aborted) {
                return { ok: false, error: { code: "cancelled", message: "skill was cancelled." } };
            }
            try {
                const { body, truncated } = await loadSkillBody(skill);
                return { ok: true, data: { name: skill.name, path: skill.path, body, truncated } };
            } catch (error) {
                return {
                    ok: false,
                    error: {
                        code: "io_error",
                        message: `Cannot read ${skill.file}: ${(error as Error).message}`,
                    },
                };
            }
        },
    };
}
