/**
 * Paths whose contents decide what runs or what is approved without asking:
 * git's internals (never written by any tool) and configuration files that
 * North, Claude Code, editors, direnv, git hook managers or CI act on. A write
 * to one of those is never auto-accepted: the chat always shows its review,
 * print mode needs `--allow-edits --allow-config-edits`.
 *
 * Names are compared the way a case-insensitive filesystem would (and with
 * the characters HFS+ ignores removed): on Linux `.GIT` is harmless to
 * refuse, on macOS or Windows it is the same folder as `.git`.
 */

export interface ProtectedConfig {
    /**
     * Globs over a repo-relative POSIX path, matched at any depth (a nested
     * project opened with `--path` has its own). `*` and `?` stay within one
     * name; a trailing `/**` means anything below that folder.
     */
    patterns: readonly string[];
    /** Why a write there can act without the user; shown in docs and reviews. */
    why: string;
}

/** The one list of protected configuration files. */
export const PROTECTED_CONFIG: readonly ProtectedConfig[] = [
    {
        patterns: [".north/**"],
        why: "North's own settings: hooks, the command allowlist, edit and command auto-approval, custom commands and skills",
    },
    {
        patterns: [".claude/**"],
        why: "Claude Code's settings (hooks, which North runs too, and permissions), commands, agents and skills",
    },
    {
        patterns: [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".gemini/settings.json"],
        why: "MCP servers that North, Claude Code, Cursor, VS Code or Gemini CLI start: each stdio server is a command",
    },
    {
        patterns: [".lsp.json"],
        why: "language servers that North and Claude Code start: each is a command",
    },
    {
        patterns: [".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json"],
        why: "VS Code tasks (which can run when the folder opens), launch configurations and settings that name programs to run",
    },
    {
        patterns: ["*.code-workspace"],
        why: "VS Code workspace files carry settings, tasks and launch configurations",
    },
    {
        patterns: [".devcontainer/**", ".devcontainer.json"],
        why: "dev container definitions run lifecycle commands (postCreateCommand, …) and choose the image",
    },
    { patterns: [".envrc"], why: "direnv runs it as shell code when you enter the folder" },
    {
        patterns: [".github/workflows/**"],
        why: "CI workflows run with the repository's secrets on the next push",
    },
    {
        patterns: [
            ".husky/**",
            ".pre-commit-config.yaml",
            "*lefthook*.yml",
            "*lefthook*.yaml",
            ".gitmodules",
            ".gitattributes",
        ],
        why: "git hook managers run these on commit and push; .gitmodules names what git clones, .gitattributes picks the filter and diff programs git runs",
    },
];

/** Characters HFS+ ignores in names (git's `core.protectHFS` list). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** One path component as a case-insensitive filesystem (and Windows, with its trailing dots) sees it. */
function normalizeName(name: string): string {
    return (
        name
            .replace(HFS_IGNORED, "")
            .toLowerCase()
            .replace(/[. ]+$/, "") || name
    );
}

function components(relPath: string): string[] {
    return relPath
        .split("/")
        .filter((part) => part !== "" && part !== ".")
        .map(normalizeName);
}

/** True when a repo-relative path goes into, or is, a `.git` folder or file (any depth). */
export function isGitInternal(relPath: string): boolean {
    return components(relPath).includes(".git");
}

interface CompiledPattern {
    names: RegExp[];
    /** Ends with `/**`: matches anything below the named folder. */
    below: boolean;
    config: ProtectedConfig;
}

function globName(name: string): RegExp {
    const source = name
        .toLowerCase()
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, "[^/]*")
        .replace(/\?/g, "[^/]");
    return new RegExp(`^${source}$`);
}

const COMPILED: CompiledPattern[] = PROTECTED_CONFIG.flatMap((config) =>
    config.patterns.map((pattern) => {
        const below = pattern.endsWith("/**");
        const names = (below ? pattern.slice(0, -3) : pattern).split("/").map(globName);
        return { names, below, config };
    })
);

function matchesAt(parts: readonly string[], start: number, names: readonly RegExp[]): boolean {
    return names.every((re, i) => re.test(parts[start + i] ?? "\0"));
}

/** The protected-config entry a repo-relative path falls under, or null. */
export function protectedConfigOf(relPath: string): ProtectedConfig | null {
    const parts = components(relPath);
    for (const { names, below, config } of COMPILED) {
        if (below) {
            // The folder anywhere, with something below it.
            for (let i = 0; i + names.length < parts.length; i++) {
                if (matchesAt(parts, i, names)) return config;
            }
        } else if (parts.length >= names.length) {
            if (matchesAt(parts, parts.length - names.length, names)) return config;
        }
    }
    return null;
}
