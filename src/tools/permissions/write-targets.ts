/**
 * How the Edit rules judge a file a shell command writes (a redirection, an
 * output option), on the path as written and where its symlinks lead.
 */
import { homedir } from "node:os";
import path from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { realPathOfWriteSync } from "../path-guard";
import { isGitInternal, protectedConfigOf } from "../protected-paths";
import { type CommandAnalysis, analyzeCommand } from "./command-analysis";
import type { PermissionRules, RuleMatch } from "./rules";
import type { WriteTargetJudge } from "./types";

/** What the write judge needs of the session's approval settings. */
export interface WriteTargetSettings {
    permissionRules?: PermissionRules | undefined;
    isEditsAutoAccepted(): boolean;
}

/**
 * Deny and ask rules decide; else allow rules covering both paths, or edit
 * auto-accept, allow, except outside the project, on protected configuration
 * and in git's internals (a hook or a config line there runs on the next git
 * command), which are asked. A file written through a command's argument
 * (`tee f`, `cp a f`) needs no edit auto-accept: the command's allow rule
 * stands for it.
 */
export function createWriteTargetJudge(
    repoRoot: string,
    settings: WriteTargetSettings
): WriteTargetJudge {
    const home = settings.permissionRules?.bases.home ?? homedir();
    return (target, cwd, through = "redirection") => {
        const paths = pathsOfWrite(target, cwd, home);
        if (paths === undefined) return "ask";
        const matches = paths.map((p) => settings.permissionRules?.forPath("edit", p));
        if (matches.some((m) => m?.decision === "deny")) return "deny";
        const asked = matches.find((m) => m?.decision === "ask");
        if (asked) return { askRule: `${asked.rule.text} (${asked.rule.source})` };
        const allowedByRule = matches.every((m) => m?.decision === "allow");
        if (!paths.every((p) => isPathInside(repoRoot, p))) return allowedByRule ? "allow" : "ask";
        const special = paths
            .map((p) => path.relative(repoRoot, p).split(path.sep).join("/"))
            .some((rel) => isGitInternal(rel) || protectedConfigOf(rel) !== null);
        if (special) return "ask";
        if (allowedByRule || through === "argument") return "allow";
        return settings.isEditsAutoAccepted() ? "allow" : "ask";
    };
}

/**
 * A written file's path (`~` and `~/…` are the home folder, as bash expands
 * them) and, when a symlink leads elsewhere, its real one; undefined for a
 * link loop.
 */
function pathsOfWrite(target: string, cwd: string, home: string): string[] | undefined {
    const expanded = /^~(\/|$)/.test(target) ? path.join(home, target.slice(1)) : target;
    const absPath = path.resolve(cwd, expanded);
    const realPath = realPathOfWriteSync(absPath);
    if (realPath === undefined) return undefined;
    return realPath === absPath ? [absPath] : [absPath, realPath];
}

/** The Edit rule that denies a file a command writes, judged as the write judge did. */
export function denyingEditRuleOfWrite(
    rules: PermissionRules,
    target: string,
    cwd: string
): RuleMatch | undefined {
    return (pathsOfWrite(target, cwd, rules.bases.home) ?? [])
        .map((p) => rules.forPath("edit", p))
        .find((m) => m?.decision === "deny");
}

/**
 * Why no standing answer may be offered for `command`: a file it writes is in
 * git's internals or protected configuration, or is only known when it runs
 * (`> .[g]it/config`, `> $F`), so it could be one. Undefined when none is.
 * A standing "don't ask again" would let every later run of it write there.
 */
export async function protectedWriteOf(
    command: string,
    repoRoot: string,
    cwd: string,
    home: string = homedir()
): Promise<string | undefined> {
    let analysis: CommandAnalysis;
    try {
        analysis = await analyzeCommand(command, cwd);
    } catch {
        return "the command could not be read";
    }
    for (const write of analysis.writes) {
        if (write.path.dynamic) return `\`${write.display}\` writes a file only known when it runs`;
        for (const base of write.cwds ?? [cwd]) {
            const paths = pathsOfWrite(write.path.value, base, home) ?? [];
            const special = paths.some((p) => {
                if (!isPathInside(repoRoot, p)) return false;
                const rel = path.relative(repoRoot, p).split(path.sep).join("/");
                return isGitInternal(rel) || protectedConfigOf(rel) !== null;
            });
            if (special) return `\`${write.display}\` writes ${write.path.value}`;
        }
    }
    return undefined;
}
