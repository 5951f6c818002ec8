/**
 * `--allowed-command` and `--disallowed-command`, checked before the chat's
 * first frame: only the pattern parser loads here, not the command judge.
 */
import { validateCommandPattern } from "../tools/permissions/command-patterns";

/** `--allowed-command` and `--disallowed-command` patterns (`npm test`, `npm test:*`). */
export interface CommandPatternFlags {
    allow: string[];
    deny: string[];
}

/** The flags' patterns, or the first bad one named with why. */
export function checkCommandPatternFlags(args: {
    allowedCommands: readonly string[];
    disallowedCommands: readonly string[];
}): ({ ok: true } & CommandPatternFlags) | { ok: false; error: string } {
    for (const [flag, patterns] of [
        ["--allowed-command", args.allowedCommands],
        ["--disallowed-command", args.disallowedCommands],
    ] as const) {
        for (const pattern of patterns) {
            const invalid = validateCommandPattern(pattern);
            if (invalid !== null) return { ok: false, error: `${flag} "${pattern}": ${invalid}` };
        }
    }
    return { ok: true, allow: [...args.allowedCommands], deny: [...args.disallowedCommands] };
}
